/* softmax_check.h — inputs and accuracy checks of softmax variants against the double
 * reference, shared by `microbench softmax` (before and after timing) and the tests.
 *
 * Inputs are a pure function of (seed, input set, row, col), so any row can be
 * regenerated anywhere.  Each input set mixes row kinds by row index (row % k):
 *  RANDOM  U[-12,12]; U[-1,1] (flat: many comparable terms, tests the sum);
 *          U[-60,60] (peaked: most outputs tiny or flushed to 0); rising by 60 and by
 *          80 along the row (the max far beyond the first elements: the optimistic
 *          pass of softmax_fast_core.h within its +64 margin, and past it)
 *  HUGE    U[-1e4,1e4]; 1e4 - U[0,30] (all near the top: x - max must be exact);
 *          -1e4 + U[0,30] (all near the bottom: exp(x) alone would be 0/0);
 *          U[-30,30] with one +inf (a NaN row); U[-3e38,3e38] (x - max overflows to -inf)
 *  MASKED  U[-12,12] with half the entries -inf; the first half of the row -inf (whole
 *          blocks masked before finite ones); all -inf but one (output exactly 1);
 *          all -inf (a NaN row)
 *  NAN     one NaN in U[-12,12] (a NaN row); clean; one NaN, all else -inf (a NaN row);
 *          clean — clean rows next to NaN rows must stay clean
 *  UNIFORM U[-10,10], the timing input: typical logits, no special values.
 * Targets (xent): uniform over the columns; every row with row % 7 == 6 is ignored
 * (target -1).  A target on a masked entry gives loss +inf, as it should. */
#ifndef RS_SOFTMAX_CHECK_H
#define RS_SOFTMAX_CHECK_H

#include <stdint.h>

#include "softmax.h"

typedef enum {
    SOFTMAX_IN_RANDOM,
    SOFTMAX_IN_HUGE,
    SOFTMAX_IN_MASKED,
    SOFTMAX_IN_NAN,
    SOFTMAX_IN_UNIFORM,
    SOFTMAX_NINPUTS
} softmax_inputs;

/* The input sets every variant is checked on (UNIFORM is for timing). */
#define SOFTMAX_NCHECK_INPUTS 4

const char *softmax_inputs_name(softmax_inputs k);   /* "random", "huge", ... */

float softmax_input(uint64_t seed, softmax_inputs k, long row, long col, long cols);
/* x (r1 - r0, cols): rows r0..r1-1 of input set k. */
void softmax_fill(float *x, long r0, long r1, int cols, softmax_inputs k, uint64_t seed);
int softmax_target(uint64_t seed, long row, int cols);
/* targets (r1 - r0): those of rows r0..r1-1. */
void softmax_fill_targets(int *targets, long r0, long r1, int cols, uint64_t seed);

/* Run variant v on x (rows, cols): y = softmax (plain variants) or dlogits and loss
 * (xent; targets and loss used only there).  path forces a row algorithm where the
 * variant has several (else ignored). */
void softmax_run(const softmax_variant *v, softmax_path path, const float *x,
                 const int *targets, float *y, float *loss, int rows, int cols);

/* Errors as softmax.h defines them. */
typedef struct {
    double max_rel_err;  /* max over compared outputs */
    double row_sum_err;  /* max over rows of |sum_c y - sum_c ref| (all columns) */
    double loss_err;     /* xent: max |loss - ref| / max(1, |ref|); 0 for plain softmax */
    long long n;         /* outputs compared */
    long worst_row, worst_col;  /* where max_rel_err was seen (-1: none) */
    float worst_y;
    double worst_ref;
} softmax_err;

void softmax_err_init(softmax_err *e);
/* Fold b into a (max of each, n summed; a's worst place kept unless b's is worse). */
void softmax_err_merge(softmax_err *a, const softmax_err *b);
/* 1 if within SOFTMAX_MAX_REL_ERR / SOFTMAX_LOSS_TOL. */
int softmax_err_ok(const softmax_err *e);

/* Reference normalizers of each row (softmax_ref_norm): m, s (rows). */
void softmax_ref_norms(const float *x, int rows, int cols, double *m, double *s);

/* Compare the output of variant kind `xent` (0/1) with the reference.  m, s: the
 * rows' reference normalizers (softmax_ref_norms).  Every stride-th column of each row
 * is compared (stride 1: all); NaN-ness and the row sums always use every column. */
void softmax_compare(const float *x, const int *targets, const float *y, const float *loss,
                     int rows, int cols, int xent, long stride, const double *m,
                     const double *s, softmax_err *out);

/* The check suite: every applicable input set (HUGE only for overflow-safe variants)
 * on rows = 10 and cols in {1, 7, 17, 33, 1000, 1057, 3000} (tails, one and several
 * blocks), every path the variant has, y placed off 64-byte alignment by a varying
 * amount.  Returns 1 if every result is within tolerance, else 0 with *what naming the
 * first failure ("huge cols=17 path=online: ..."). */
int softmax_check_variant(const softmax_variant *v, softmax_err *out, char *what, int len);

#endif
