/* fma_avx2.c — fp32 FMA throughput with AVX2+FMA: 12 chains of vfmadd on 8-lane ymm.
 *
 * Built with -mavx2 -mfma (Makefile rule for *_avx2.c); called only after
 * rs_isa_supported(RS_ISA_AVX2), through peak_fma_variants[] (fma.c).
 * Why 12: FMA latency 4-5 cycles x 2 FMA ports needs >= 10 chains in flight; 12
 * chains + mul + add fit the 16 ymm registers, so the loop has no spills (check with
 * `objdump -d build/obj/kernels/peak/fma_avx2.o`: 12 vfmadd per iteration, no
 * loads or stores in the loop). */
#include <immintrin.h>

#include "peak_kernels.h"

void peak_fma_avx2(void *ctx_, int tid, long reps)
{
    peak_fma_ctx *ctx = ctx_;
    const __m256 m = _mm256_set1_ps(ctx->mul), b = _mm256_set1_ps(ctx->add);
    /* Distinct starting values so no two chains are provably equal (CSE). */
    __m256 a0 = _mm256_set1_ps(0.0f), a1 = _mm256_set1_ps(0.1f), a2 = _mm256_set1_ps(0.2f);
    __m256 a3 = _mm256_set1_ps(0.3f), a4 = _mm256_set1_ps(0.4f), a5 = _mm256_set1_ps(0.5f);
    __m256 a6 = _mm256_set1_ps(0.6f), a7 = _mm256_set1_ps(0.7f), a8 = _mm256_set1_ps(0.8f);
    __m256 a9 = _mm256_set1_ps(0.9f), a10 = _mm256_set1_ps(1.0f), a11 = _mm256_set1_ps(1.1f);

    for (long it = 0; it < reps * PEAK_FMA_ITERS; it++) {
        a0 = _mm256_fmadd_ps(a0, m, b);   a1 = _mm256_fmadd_ps(a1, m, b);
        a2 = _mm256_fmadd_ps(a2, m, b);   a3 = _mm256_fmadd_ps(a3, m, b);
        a4 = _mm256_fmadd_ps(a4, m, b);   a5 = _mm256_fmadd_ps(a5, m, b);
        a6 = _mm256_fmadd_ps(a6, m, b);   a7 = _mm256_fmadd_ps(a7, m, b);
        a8 = _mm256_fmadd_ps(a8, m, b);   a9 = _mm256_fmadd_ps(a9, m, b);
        a10 = _mm256_fmadd_ps(a10, m, b); a11 = _mm256_fmadd_ps(a11, m, b);
    }

    /* Consume every chain: the sum is stored, so no FMA is dead code. */
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                             _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
    s = _mm256_add_ps(s, _mm256_add_ps(_mm256_add_ps(a8, a9), _mm256_add_ps(a10, a11)));
    float lanes[8];
    _mm256_storeu_ps(lanes, s);
    float total = 0.0f;
    for (int i = 0; i < 8; i++)
        total += lanes[i];
    ctx->sink[(long)tid * PEAK_SINK_STRIDE] = total;
}
