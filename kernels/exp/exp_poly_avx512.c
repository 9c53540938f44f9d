/* exp_poly_avx512.c — the project's own expf, 16 lanes of AVX-512 (variant poly).
 *
 * The arithmetic is exp_poly_core.h's, clamp included; only the final scaling is an
 * AVX-512 instruction: vscalefps rounds p*2^k once, so overflow, gradual underflow and
 * NaN (a NaN p or k gives NaN) need no extra work.  13 vector operations per 16 floats
 * (max + min clamp, FMA + subtract for k, 2 FMAs of reduction, 6 of Horner, scalef).
 *
 * Not vrangeps for the clamp: like minNum, it returns the number when one operand is a
 * quiet NaN, so exp(NaN) came out as exp(±104.5) (seen on a Zen 5).  The generic clamp
 * compiles to vmaxps/vminps with x as the second operand, which x86 returns for NaN.
 * exp_poly_w16_avx2.c is this computation with scalef done by two exact multiplies; the
 * tests compare the two bit for bit wherever AVX-512 runs. */
#include <immintrin.h>

#define EXP_POLY_W 16
#include "exp_poly_core.h"
#include "exp_kernels.h"

static inline exp_vf exp_poly_avx512_vec(exp_vf x)
{
    exp_vf y, k;
    exp_vf p = exp_poly_eval(exp_poly_clamp(x), &y, &k);
    (void)y;
    return (exp_vf)_mm512_scalef_ps((__m512)p, (__m512)k);
}

void exp_poly_avx512(const float *x, float *y, size_t n)
{
    EXP_VEC_LOOP(exp_vf, exp_poly_avx512_vec, x, y, n);
}
