/* exp_sleef_avx512.c — SLEEF's 16-lane expf, 1.0-ULP class (variant sleef, avx512).
 *
 * Sleef_expf16_u10avx512f, the AVX-512 build behind Sleef_expf16_u10 — what
 * PyTorch's AVX-512 exp calls.  Built only with HAVE_SLEEF. */
#ifdef HAVE_SLEEF
#include <immintrin.h>
#include <sleef.h>

#include "exp_kernels.h"
#include "exp_loop.h"

void exp_sleef_avx512(const float *x, float *y, size_t n)
{
    EXP_VEC_LOOP(__m512, Sleef_expf16_u10avx512f, x, y, n);
}
#endif
