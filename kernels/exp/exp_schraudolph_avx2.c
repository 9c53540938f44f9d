/* exp_schraudolph_avx2.c — Schraudolph's exp on 8 lanes (variant schraudolph, avx2):
 * one FMA and one float->int conversion per vector, the result's bits are the int.
 * Float form of the paper's trick (exp_schraudolph.h); ~4% relative error, no
 * special values, x in [-87, 88] only. */
#include <immintrin.h>

#include "exp_kernels.h"
#include "exp_loop.h"
#include "exp_schraudolph.h"

static inline __m256 exp_schraudolph_avx2_vec(__m256 x)
{
    __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(EXP_SCHR_A_F), _mm256_set1_ps(EXP_SCHR_B_F));
    return _mm256_castsi256_ps(_mm256_cvtps_epi32(t));
}

void exp_schraudolph_avx2(const float *x, float *y, size_t n)
{
    EXP_VEC_LOOP(__m256, exp_schraudolph_avx2_vec, x, y, n);
}
