/* exp_libmvec_avx512.c — glibc libmvec's 16-lane AVX-512 expf (variant libmvec).
 *
 * _ZGVeN16v_expf, what GCC calls for expf vectorized under -ffast-math with AVX-512.
 * libmvec promises at most 4 ULP (2.56 was measured on an AVX-512 Xeon) and handles
 * special lanes through scalar expf.  Built only with HAVE_LIBMVEC. */
#ifdef HAVE_LIBMVEC
#include <immintrin.h>

#include "exp_kernels.h"
#include "exp_loop.h"

__m512 _ZGVeN16v_expf(__m512 x);

void exp_libmvec_avx512(const float *x, float *y, size_t n)
{
    EXP_VEC_LOOP(__m512, _ZGVeN16v_expf, x, y, n);
}
#endif
