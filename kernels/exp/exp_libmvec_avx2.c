/* exp_libmvec_avx2.c — glibc libmvec's 8-lane AVX2 expf (variant libmvec, avx2).
 *
 * _ZGVdN8v_expf is the vector-ABI name GCC calls when it vectorizes expf under
 * -ffast-math; calling it directly measures what such code gets.  libmvec promises
 * at most 4 ULP and handles special lanes by calling scalar expf for them.  Built
 * only where the Makefile found -lmvec (HAVE_LIBMVEC). */
#ifdef HAVE_LIBMVEC
#include <immintrin.h>

#include "exp_kernels.h"
#include "exp_loop.h"

__m256 _ZGVdN8v_expf(__m256 x);

void exp_libmvec_avx2(const float *x, float *y, size_t n)
{
    EXP_VEC_LOOP(__m256, _ZGVdN8v_expf, x, y, n);
}
#endif
