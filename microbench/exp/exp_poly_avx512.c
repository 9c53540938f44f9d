/* exp_poly_avx512.c — the project's own expf, 16 lanes of AVX-512 (variant poly).
 *
 * The arithmetic is exp_poly_core.h's; two of its steps map to one AVX-512
 * instruction each: the clamp to one vrangeps (|x| <= 104.5, sign and NaN kept) and
 * the final scaling to one vscalefps, which rounds p*2^k once — so overflow,
 * gradual underflow and NaN need no extra work.  That makes 12 vector operations
 * per 16 floats (clamp, FMA + subtract for k, 2 FMAs of reduction, 6 of Horner,
 * scalef), ~6 cycles on 2 FMA ports.  This file cannot run on a machine without
 * AVX-512; exp_poly_w16_avx2.c is the same computation for AVX2, which the tests
 * run everywhere (exp_poly_core.h, "Verification"). */
#include <immintrin.h>

#define EXP_POLY_W 16
#include "exp_poly_core.h"
#include "exp_kernels.h"

static inline exp_vf exp_poly_avx512_vec(exp_vf x)
{
    exp_vf y, k;
    /* imm 0x02: the operand of smaller magnitude, with the sign of x (the first). */
    exp_vf xc = (exp_vf)_mm512_range_ps((__m512)x, _mm512_set1_ps(EXP_POLY_CLAMP), 0x02);
    exp_vf p = exp_poly_eval(xc, &y, &k);
    (void)y;
    return (exp_vf)_mm512_scalef_ps((__m512)p, (__m512)k);
}

void exp_poly_avx512(const float *x, float *y, size_t n)
{
    EXP_VEC_LOOP(exp_vf, exp_poly_avx512_vec, x, y, n);
}
