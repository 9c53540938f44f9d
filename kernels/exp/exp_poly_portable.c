/* exp_poly_portable.c — the project's own expf in plain C (variant poly, portable).
 *
 * The same algorithm as exp_poly_core.h — k = round(x log2 e), r = x - k ln2, the
 * same degree-6 polynomial, times 2^k — but evaluated in double precision on
 * 4-lane generic vectors (SSE2 on x86-64, whatever the target has elsewhere).
 * Why double: without FMA hardware every Horner step rounds twice, and in float
 * that alone exceeds the 1-ULP target (measured 1.13 ULP).  In double the only
 * rounding that matters is the final conversion to float, so the result is within
 * 0.5 ULP + the polynomial's 0.05, and the conversion also gives correctly rounded
 * subnormals, +inf on overflow and +0 on underflow for free (2^k for |k| <= 151 is
 * a normal double). */
#include <stdint.h>
#include <string.h>

#include "exp_kernels.h"
#include "exp_loop.h"

typedef float exp_vf4 __attribute__((vector_size(16)));
typedef int32_t exp_vi4 __attribute__((vector_size(16)));
typedef double exp_vd4 __attribute__((vector_size(32)));
typedef int64_t exp_vl4 __attribute__((vector_size(32)));
typedef uint64_t exp_vq4 __attribute__((vector_size(32)));

#define EXP_PD_LOG2E 0x1.71547652b82fep+0   /* log2(e) */
#define EXP_PD_LN2   0x1.62e42fefa39efp-1   /* ln 2 */
#define EXP_PD_SHIFT 0x1.8p52               /* x + SHIFT rounds x to an integer */
#define EXP_PD_SHIFT_BITS 0x4338000000000000LL
#define EXP_PD_CLAMP 104.5f                 /* exp beyond is +inf or +0 in float */

static inline exp_vf4 exp_poly_portable_vec(exp_vf4 xf)
{
    /* clamp while still float: 4-lane int masks select without scalar code */
    const exp_vf4 cl = (exp_vf4){0} + EXP_PD_CLAMP;
    exp_vi4 lo = xf < -cl, hi = xf > cl; /* false for NaN: NaN is kept */
    xf = (exp_vf4)(((exp_vi4)xf & ~lo) | ((exp_vi4)-cl & lo));
    xf = (exp_vf4)(((exp_vi4)xf & ~hi) | ((exp_vi4)cl & hi));
    exp_vd4 x = __builtin_convertvector(xf, exp_vd4);
    exp_vd4 t = x * EXP_PD_LOG2E + EXP_PD_SHIFT;
    exp_vd4 k = t - EXP_PD_SHIFT;
    exp_vd4 r = x - k * EXP_PD_LN2;      /* error ~1e-14: exact for float purposes */
    /* exp_poly_core.h's coefficients (float values, exact in double) */
    exp_vd4 p = r * (double)0x1.6a4ed0p-10f + (double)0x1.12399cp-7f;
    p = p * r + (double)0x1.5558b0p-5f;
    p = p * r + (double)0x1.555492p-3f;
    p = p * r + (double)0x1.fffffcp-2f;
    p = p * r + 1.0;
    p = p * r + 1.0;
    exp_vq4 kb = (exp_vq4)t - EXP_PD_SHIFT_BITS;   /* k, two's complement */
    exp_vd4 s = (exp_vd4)((kb + 1023) << 52);       /* 2^k */
    return __builtin_convertvector(p * s, exp_vf4);             /* the one rounding */
}

/* Two vectors per step: the Horner chain is latency-bound, two independent chains
 * keep the SSE2 units busy. */
static inline void exp_poly_portable_two(const float *x, float *y)
{
    exp_vf4 a, b;
    memcpy(&a, x, sizeof a);
    memcpy(&b, x + 4, sizeof b);
    a = exp_poly_portable_vec(a);
    b = exp_poly_portable_vec(b);
    memcpy(y, &a, sizeof a);
    memcpy(y + 4, &b, sizeof b);
}

void exp_poly_portable(const float *x, float *y, size_t n)
{
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        exp_poly_portable_two(x + i, y + i);
    EXP_VEC_LOOP(exp_vf4, exp_poly_portable_vec, x + i, y + i, n - i);
}
