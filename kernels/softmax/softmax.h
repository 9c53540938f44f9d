/* softmax.h — the softmax variants, one file each behind one interface, that
 * `microbench softmax` studies (microbench/softmax/cmd_softmax.c), and the fused
 * cross-entropy that RNN training calls.
 *
 * Layout: x and y are (rows, cols), row-major and contiguous; softmax runs along a row:
 *   y[r][c] = exp(x[r][c] - m_r) / s_r,  m_r = max_c x[r][c],  s_r = sum_c exp(x[r][c] - m_r).
 * rows >= 0, cols >= 1; x and y must not overlap; no alignment is required.
 *
 * What every overflow-safe variant (all but naive) returns, exactly as the double
 * reference (softmax_ref.c) defines it:
 *  - any finite x, e.g. |x| = 1e4 or FLT_MAX: no overflow (the row max is subtracted);
 *  - x = -inf (a masked entry): probability exactly 0;
 *  - a row holding a NaN: every output of that row is NaN; other rows are untouched;
 *  - a row holding +inf, or a row that is all -inf (fully masked): every output of the
 *    row is NaN, as in PyTorch (inf - inf, and 0/0).  A caller that masks whole rows
 *    must skip them itself;
 *  - probabilities below 2^-126 (FLT_MIN) may come out as 0: no subnormal outputs.
 * naive (overflow_safe = 0) is the Sunway TaihuLight study's "before": exp(x) overflows for x > 88.7, so
 * the huge-input checks do not apply to it; masked and NaN inputs do.
 *
 * Cross-entropy (xent), with integer targets t[r] in [0, cols):
 *   loss[r]    = -log softmax(x[r])[t[r]] = m_r + log(s_r) - x[r][t[r]]   (a float
 *                within SOFTMAX_LOSS_TOL of the double value; +inf where the target is
 *                masked)
 *   dlogits[r] = softmax(x[r]) - onehot(t[r])
 * dlogits is NOT divided by rows: it is the gradient of the summed loss sum_r loss[r];
 * a trainer that averages over the batch scales once (e.g. in its learning rate).
 * t[r] < 0 marks an ignored (padding) row: loss 0 and an all-zero gradient row.
 *
 * Names are part of the user-facing contract: variants naive, safe, online, fast, xent;
 * ISAs avx512, avx2, portable. */
#ifndef RS_SOFTMAX_H
#define RS_SOFTMAX_H

#include <stddef.h>

#include "cpu.h"
#include "registry.h"
#include "exp.h"

/* ---- the kernels ---- */

/* y (rows, cols) = softmax of each row of x (rows, cols). */
typedef void (*softmax_fn)(const float *x, float *y, int rows, int cols);
/* Fused forward + backward: loss (rows) and dlogits (rows, cols) from x (rows, cols)
 * and targets (rows). */
typedef void (*xent_fn)(const float *x, const int *targets, float *dlogits, float *loss,
                        int rows, int cols);
/* Forward only (evaluation, perplexity): loss (rows); reads x once. */
typedef void (*xent_loss_fn)(const float *x, const int *targets, float *loss, int rows,
                             int cols);

/* The vectorized kernels pick a row algorithm per call (softmax_fast_core.h); tests
 * and the check suite force each one so every path is verified on small shapes. */
typedef enum {
    SOFTMAX_PATH_AUTO = 0, /* what run/xent do: STORE in cache, STORE_NT beyond the LLC */
    SOFTMAX_PATH_STORE,    /* 3 passes, 1 exp/element: max; e = exp(x - max) into y; scale */
    SOFTMAX_PATH_ONLINE,   /* 2 passes, 2 exps/element: running max per block and sum; y */
    SOFTMAX_PATH_STREAM,   /* ONLINE with non-temporal stores of y */
    SOFTMAX_PATH_STORE_NT, /* STORE with the exps stored non-temporally */
    SOFTMAX_NPATHS
} softmax_path;

typedef void (*softmax_path_fn)(const float *x, float *y, int rows, int cols, softmax_path p);
typedef void (*xent_path_fn)(const float *x, const int *targets, float *dlogits, float *loss,
                             int rows, int cols, softmax_path p);

typedef struct {
    const char *variant;    /* "fast" */
    rs_isa isa;             /* instruction set it needs (checked before calling) */
    const char *algo;       /* how it works, one line (--list) */
    int overflow_safe;      /* 1: the special values above are right; 0: naive */
    softmax_fn run;         /* plain softmax; NULL for xent */
    xent_fn xent;           /* fused forward + backward; NULL for plain softmax */
    xent_loss_fn xent_loss; /* fused forward only; NULL for plain softmax */
    softmax_path_fn run_path; /* vectorized kernels: the same with the path forced, */
    xent_path_fn xent_path;   /* else NULL */
} softmax_variant;

/* The registry (softmax_registry.c): every variant compiled in, in display order.
 * naive comes first: it is the Sunway TaihuLight study's "before" that speedups are measured against. */
extern const softmax_variant softmax_variants[];
extern const int softmax_nvariants;
extern const rs_registry softmax_registry;   /* the same rows, for registry.h's lookups */

/* Look up by variant and ISA; NULL if none. */
const softmax_variant *softmax_find(const char *variant, rs_isa isa);

/* The 16-lane (AVX-512) code compiled for AVX2 (softmax_w16_avx2.c): not in the
 * registry; the tests run it so the AVX-512 variants' arithmetic is verified on
 * machines without AVX-512 (it is the same source with the same IEEE operations). */
void softmax_fast_w16_avx2_path(const float *x, float *y, int rows, int cols, softmax_path p);
void softmax_xent_w16_avx2_path(const float *x, const int *targets, float *dlogits, float *loss,
                                int rows, int cols, softmax_path p);
void softmax_xent_loss_w16_avx2(const float *x, const int *targets, float *loss, int rows,
                                int cols);

/* ---- the reference (softmax_ref.c): double precision, the oracle of every check ---- */

/* Row normalizer in double: *m = max, *s = sum exp(x - max).  Special rows (a NaN,
 * +inf, all -inf) give *s = NaN.  Returns 1 for a NaN row, else 0. */
int softmax_ref_norm(const float *x, int cols, double *m, double *s); /* x (cols) */
/* y (rows, cols) = softmax in double. */
void softmax_ref(const float *x, double *y, int rows, int cols);
/* Loss (rows) and, if dlogits != NULL, dlogits (rows, cols), in double. */
void softmax_xent_ref(const float *x, const int *targets, double *dlogits, double *loss,
                      int rows, int cols);

/* ---- accuracy: stated once ----
 * An output y is judged against the reference r (and the probability p, = r for
 * softmax, r + [c == t] for dlogits) by
 *   err = |y - r| / max(|r|, p, SOFTMAX_REL_FLOOR)
 * so probabilities below the floor are judged by absolute error, and the dlogits
 * entry at the target (p - 1, which cancels) is judged against p rather than p - 1.
 * NaN against non-NaN (or an infinity against a finite value) is an infinite error.
 * Every variant must keep err <= SOFTMAX_MAX_REL_ERR and |sum_c y - sum_c r| <= it:
 * 1e-5 is ~84 float ULPs, which covers x - max rounded in float for |x - max| up to
 * 87 (the main error: up to 2^-18 absolute, i.e. 4e-6 relative in exp), a ~1-ULP exp,
 * the reciprocal, and float partial sums of at most 64 terms (then summed in double). */
#define SOFTMAX_MAX_REL_ERR 1e-5
#define SOFTMAX_REL_FLOOR 1e-30
/* Loss: |loss - ref| <= SOFTMAX_LOSS_TOL * max(1, |ref|). */
#define SOFTMAX_LOSS_TOL 1e-5

/* ---- work and bounds: stated once ----
 * Bytes: every variant reads x and writes y once at least: 8 bytes per element
 * (gbytes_per_s = 8 * rows * cols / time).  Beyond the LLC the bound is
 *   bound_ns_per_elem = SOFTMAX_BYTES_PER_ELEM / copy_gbytes_per_s
 * with STREAM copy on the same threads, measured right after the kernel's timing (the
 * two side by side: this machine's bandwidth swings between minutes).  STREAM
 * copy counts 16 bytes per element but also reads each destination line before writing
 * it (24 bytes move), so this bound is met by a kernel that moves 12 bytes per element
 * with non-temporal stores — the two-pass online algorithm (x read twice, y once; path
 * STREAM) — if its two exps per element keep up (softmax_fast_core.h).
 * In cache the bound is the exp FMA-port bound plus what softmax adds per vector:
 * max, subtract the max, add to the sum, multiply by 1/sum:
 *   bound_cycles_per_elem = SOFTMAX_BOUND_VECOPS * 2 * tsc_ghz / fma_gflops
 * (exp.h: the vector FMA rate per cycle is gflops / (2 * lanes * tsc_ghz); lanes cancel).
 * A row's bound is the larger of the two where the data exceed the LLC. */
#define SOFTMAX_BYTES_PER_ELEM 8.0
#define SOFTMAX_BOUND_VECOPS (EXP_BOUND_VECOPS + 4.0)

/* Elements per block of the scalar online variant's per-block max (4 KiB of x: a block
 * stays in L1 between its max and its exps; the vector core uses 64 vectors). */
#ifndef SOFTMAX_BLOCK
#define SOFTMAX_BLOCK 1024
#endif

#endif
