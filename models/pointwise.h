/* pointwise.h — the cells' fused point-wise math, vectorized with the project's exp.
 *
 * sigmoid(x) = 1 / (1 + e^-x),  tanh(x) = 1 - 2 / (e^2x + 1): one exp each, from
 * exp_poly_core.h (the clamped, exactly-scaled path: NaN stays NaN, so a diverging
 * run is seen as such).  At the ends e^-x = inf gives 0 and e^2x = inf gives 1, the
 * right limits.  Each kernel makes one pass over a step's (B, G) block: the four gate
 * non-linearities, the cell update and the output in one loop, no temporaries.
 *
 * One kernel set per ISA, one file each (pointwise_avx512.c, pointwise_avx2.c,
 * pointwise_portable.c), behind this struct; pointwise_best() picks by CPUID.  The backward point-wise math
 * needs no exp (it uses the stored activations) and is plain C in the cell files.
 * The double reference (ref.c) is the oracle the tests hold these to. */
#ifndef RS_MODELS_POINTWISE_H
#define RS_MODELS_POINTWISE_H

#include "cpu.h"

typedef struct pointwise_kernels {
    const char *name;   /* "poly avx512", "poly avx2", "poly portable" */
    rs_isa isa;
    /* LSTM step, per row b of B:  gates (B, 4H) holds the pre-activations on entry
     * and i, f, g, o on exit;  c = f c_prev + i g;  tc = tanh(c);  h = o tc.
     * c_prev, c, tc, h (B, H). */
    void (*lstm_fwd)(float *gates, const float *c_prev, float *c, float *tc, float *h, int B,
                     int H);
    /* x (n) = tanh(x) in place (the Elman cell). */
    void (*tanh_inplace)(float *x, long n);
} pointwise_kernels;

extern const pointwise_kernels pointwise_avx512, pointwise_avx2, pointwise_portable;
/* Every kernel set, widest first (the tests run each the CPU has). */
extern const pointwise_kernels *const pointwise_all[3];
const pointwise_kernels *pointwise_best(void);

#endif
