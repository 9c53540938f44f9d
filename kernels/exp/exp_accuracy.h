/* exp_accuracy.h — ULP error of expf variants against the double-precision reference.
 *
 * ULP error of y for true value r = exp((double)x): |y - r| / ulp(r), where ulp(r) is
 * the spacing of floats at |r| (2^-149 for subnormal results, the spacing of FLT_MAX
 * beyond it).  y = NaN where r is not NaN, or an infinity where r is finite within
 * float range (or vice versa), counts as an infinite error.
 *
 * Input sets:
 *  - EXP_SPECIALS: NaN, ±inf, ±0, overflow (x > 88.72284), underflow (x < -103.97208),
 *    subnormal results (-103.97 < x < -87.34), the boundaries themselves and their
 *    neighbours;
 *  - EXP_SAMPLE: a deterministic dense sample (~2^22 floats): a fixed stride through
 *    the bit patterns of [-104, 89] plus the specials;
 *  - EXP_EXHAUSTIVE: every float in [-104, 89] (about 2.2e9 inputs) plus the specials.
 * Only inputs inside a variant's declared domain count towards its max/RMS; for
 * variants with specials = 0, special values are skipped. */
#ifndef RS_EXP_ACCURACY_H
#define RS_EXP_ACCURACY_H

#include "exp.h"

typedef enum { EXP_SPECIALS, EXP_SAMPLE, EXP_EXHAUSTIVE } exp_inputs;

typedef struct {
    double max_ulp;      /* worst ULP error (INFINITY for a wrong special value) */
    double rms_ulp;      /* root mean square of the ULP errors */
    float worst_x;       /* an input that gave max_ulp */
    float worst_y;       /* what the variant returned there */
    long long n;         /* inputs checked */
    int specials_ok;     /* 1 if every special value was exact (or not applicable) */
    char specials_msg[160]; /* first wrong special: "exp(-inf) gave nan, want +0" */
} exp_acc;

/* ULP error of y against the true value ref (double). */
double exp_ulp_error(float y, double ref);

/* Check nv variants on one input set; reference values are computed once per chunk
 * and shared; nthreads threads split the input range.  progress != 0 draws a progress
 * line (exhaustive runs take minutes).  Returns 0, or -1 if interrupted (rs_lasterr). */
int exp_accuracy(const exp_variant *const *v, int nv, exp_inputs inputs, int nthreads,
                 int progress, exp_acc *out);

#endif
