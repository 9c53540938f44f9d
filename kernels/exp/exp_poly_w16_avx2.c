/* exp_poly_w16_avx2.c — the AVX-512 poly arithmetic, built for AVX2: its twin.
 *
 * Not a variant: 16-lane generic vectors (GCC splits each into two AVX2 halves) doing
 * what exp_poly_avx512.c does, with vscalefps replaced by its bit-exact generic
 * equivalent (exp_poly_scale_exact).  The tests run it on every input set everywhere,
 * and compare it bit for bit with exp_poly_avx512 where AVX-512 runs. */
#define EXP_POLY_W 16
#include "exp_poly_core.h"
#include "exp_kernels.h"

void exp_poly_w16_avx2(const float *x, float *y, size_t n)
{
    EXP_VEC_LOOP(exp_vf, exp_poly_exact, x, y, n);
}
