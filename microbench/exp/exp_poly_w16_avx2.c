/* exp_poly_w16_avx2.c — the AVX-512 poly arithmetic, built for AVX2 to verify it.
 *
 * Not a variant: 16-lane generic vectors (GCC splits each into two AVX2 halves) doing
 * exactly what exp_poly_avx512.c does, with vrangeps and vscalefps replaced by
 * their bit-exact generic equivalents (exp_poly_clamp, exp_poly_scale_exact).  The
 * tests run it on every input set, so the AVX-512 variant's results are checked on
 * machines that cannot execute it. */
#define EXP_POLY_W 16
#include "exp_poly_core.h"
#include "exp_kernels.h"

void exp_poly_w16_avx2(const float *x, float *y, size_t n)
{
    EXP_VEC_LOOP(exp_vf, exp_poly_exact, x, y, n);
}
