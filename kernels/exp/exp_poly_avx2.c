/* exp_poly_avx2.c — the project's own expf, 8 lanes of AVX2 + FMA (variant poly).
 *
 * exp_poly_core.h's arithmetic.  AVX2 has no scalef, so the hot path scales by
 * adding k to the exponent field (2 integer ops), which is exact only while the
 * result is a normal float; one compare per vector sends any vector with a lane
 * outside |x| <= 86.5 (or NaN) to the full path — clamp and two exact multiplies —
 * which is correct for every input.  Both paths give identical bits where both
 * apply.  Real data (activations, softmax inputs after max subtraction) seldom
 * leaves the fast range. */
#include <immintrin.h>

#define EXP_POLY_W 8
#include "exp_poly_core.h"
#include "exp_kernels.h"

#define EXP_POLY_FAST_BITS 0x42ad0000 /* 86.5f: k in [-125, 125], results normal */

static inline exp_vf exp_poly_avx2_vec(exp_vf x)
{
    /* |x| as an integer exceeds 86.5's pattern for large |x|, inf and NaN alike. */
    exp_vi out = (exp_vi)((exp_vu)x & 0x7fffffff) > EXP_POLY_FAST_BITS;
    if (__builtin_expect(_mm256_movemask_ps((__m256)out) != 0, 0))
        return exp_poly_exact(x);
    exp_vf y, k;
    exp_vf p = exp_poly_eval(x, &y, &k);
    (void)k;
    return exp_poly_scale_fast(p, y);
}

void exp_poly_avx2(const float *x, float *y, size_t n)
{
    EXP_VEC_LOOP(exp_vf, exp_poly_avx2_vec, x, y, n);
}
