/* exp_schraudolph_avx512.c — Schraudolph's exp on 16 lanes (variant schraudolph,
 * avx512): one FMA and one conversion per vector, as exp_schraudolph_avx2.c. */
#include <immintrin.h>

#include "exp_kernels.h"
#include "exp_loop.h"
#include "exp_schraudolph.h"

static inline __m512 exp_schraudolph_avx512_vec(__m512 x)
{
    __m512 t = _mm512_fmadd_ps(x, _mm512_set1_ps(EXP_SCHR_A_F), _mm512_set1_ps(EXP_SCHR_B_F));
    return _mm512_castsi512_ps(_mm512_cvtps_epi32(t));
}

void exp_schraudolph_avx512(const float *x, float *y, size_t n)
{
    EXP_VEC_LOOP(__m512, exp_schraudolph_avx512_vec, x, y, n);
}
