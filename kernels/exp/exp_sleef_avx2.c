/* exp_sleef_avx2.c — SLEEF's 8-lane expf, 1.0-ULP class (variant sleef, avx2).
 *
 * Sleef_expf8_u10avx2 is the AVX2+FMA build behind SLEEF's dispatching
 * Sleef_expf8_u10, called directly so the record says exactly what ran.  The bar
 * the project's own AVX2 poly must beat.  Built only with HAVE_SLEEF. */
#ifdef HAVE_SLEEF
#include <immintrin.h>
#include <sleef.h>

#include "exp_kernels.h"
#include "exp_loop.h"

void exp_sleef_avx2(const float *x, float *y, size_t n)
{
    EXP_VEC_LOOP(__m256, Sleef_expf8_u10avx2, x, y, n);
}
#endif
