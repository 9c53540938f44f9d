/* exp_table_avx2.c — table-driven expf on 8 lanes of AVX2 + FMA (variant table).
 *
 * exp_table.h's method with the two table halves fetched by vgatherdps.  As in
 * exp_poly_avx2.c, the hot path scales by an integer add to the exponent, and a
 * vector with any lane outside |x| <= 86 (or NaN) takes the full path — clamp and
 * two exact multiplies — which returns the same bits wherever both apply. */
#include <immintrin.h>
#include <stdint.h>

#include "exp_kernels.h"
#include "exp_loop.h"
#include "exp_table.h"

static inline __m256 exp_table_avx2_any(__m256 x, int full)
{
    if (full) /* max/min return their second operand for NaN: NaN is kept */
        x = _mm256_min_ps(_mm256_set1_ps(EXP_TABLE_CLAMP),
                          _mm256_max_ps(_mm256_set1_ps(-EXP_TABLE_CLAMP), x));
    __m256 t = _mm256_fmadd_ps(x, _mm256_set1_ps(EXP_TABLE_INV_L), _mm256_set1_ps(EXP_TABLE_SHIFT));
    __m256 n = _mm256_sub_ps(t, _mm256_set1_ps(EXP_TABLE_SHIFT));
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(EXP_TABLE_L1), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(EXP_TABLE_L2), r);
    __m256i ni = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(EXP_TABLE_SHIFT_BITS));
    __m256i j = _mm256_and_si256(ni, _mm256_set1_epi32(31));
    __m256 hi = _mm256_i32gather_ps(exp_table_hi, j, 4);
    __m256 lo = _mm256_i32gather_ps(exp_table_lo, j, 4);
    __m256 q = _mm256_fmadd_ps(r, _mm256_set1_ps(EXP_TABLE_C3), _mm256_set1_ps(EXP_TABLE_C2));
    q = _mm256_mul_ps(q, r);
    __m256 p = _mm256_fmadd_ps(q, r, r);
    __m256 v = _mm256_add_ps(hi, _mm256_fmadd_ps(hi, p, lo));
    __m256i m = _mm256_srai_epi32(ni, 5);
    if (!full)
        return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(v), _mm256_slli_epi32(m, 23)));
    __m256i m1 = _mm256_srai_epi32(m, 1), m2 = _mm256_sub_epi32(m, m1);
    __m256i bias = _mm256_set1_epi32(127);
    __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(m1, bias), 23));
    __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(m2, bias), 23));
    return _mm256_mul_ps(_mm256_mul_ps(v, s1), s2);
}

static inline __m256 exp_table_avx2_vec(__m256 x)
{
    /* |x| as an integer exceeds 86.0's pattern for large |x|, inf and NaN alike */
    __m256i ax = _mm256_and_si256(_mm256_castps_si256(x), _mm256_set1_epi32(0x7fffffff));
    __m256i out = _mm256_cmpgt_epi32(ax, _mm256_castps_si256(_mm256_set1_ps(EXP_TABLE_FAST)));
    return exp_table_avx2_any(x, _mm256_movemask_ps(_mm256_castsi256_ps(out)) != 0);
}

void exp_table_avx2(const float *x, float *y, size_t n)
{
    EXP_VEC_LOOP(__m256, exp_table_avx2_vec, x, y, n);
}
