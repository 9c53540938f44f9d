/* fma_avx512.c — fp32 FMA throughput with AVX-512F: 16 chains of vfmadd on 16-lane zmm.
 *
 * Built with the AVX-512 flags (Makefile rule for *_avx512.c); called only after
 * rs_isa_supported(RS_ISA_AVX512), through peak_fma_variants[] (fma.c).
 * Same structure as fma_avx2.c (verified there on an AVX2 machine), only wider
 * vectors and more chains: latency 4 x 2 FMA ports needs >= 8 chains; 16 leave
 * headroom and, with mul and add, use 18 of the 32 zmm registers — no spills
 * (`objdump -d build/obj/kernels/peak/fma_avx512.o`: 16 vfmadd on zmm per iteration). */
#include <immintrin.h>

#include "peak_kernels.h"

void peak_fma_avx512(void *ctx_, int tid, long reps)
{
    peak_fma_ctx *ctx = ctx_;
    const __m512 m = _mm512_set1_ps(ctx->mul), b = _mm512_set1_ps(ctx->add);
    /* Distinct starting values so no two chains are provably equal (CSE). */
    __m512 a0 = _mm512_set1_ps(0.0f), a1 = _mm512_set1_ps(0.1f), a2 = _mm512_set1_ps(0.2f);
    __m512 a3 = _mm512_set1_ps(0.3f), a4 = _mm512_set1_ps(0.4f), a5 = _mm512_set1_ps(0.5f);
    __m512 a6 = _mm512_set1_ps(0.6f), a7 = _mm512_set1_ps(0.7f), a8 = _mm512_set1_ps(0.8f);
    __m512 a9 = _mm512_set1_ps(0.9f), a10 = _mm512_set1_ps(1.0f), a11 = _mm512_set1_ps(1.1f);
    __m512 a12 = _mm512_set1_ps(1.2f), a13 = _mm512_set1_ps(1.3f), a14 = _mm512_set1_ps(1.4f);
    __m512 a15 = _mm512_set1_ps(1.5f);

    for (long it = 0; it < reps * PEAK_FMA_ITERS; it++) {
        a0 = _mm512_fmadd_ps(a0, m, b);   a1 = _mm512_fmadd_ps(a1, m, b);
        a2 = _mm512_fmadd_ps(a2, m, b);   a3 = _mm512_fmadd_ps(a3, m, b);
        a4 = _mm512_fmadd_ps(a4, m, b);   a5 = _mm512_fmadd_ps(a5, m, b);
        a6 = _mm512_fmadd_ps(a6, m, b);   a7 = _mm512_fmadd_ps(a7, m, b);
        a8 = _mm512_fmadd_ps(a8, m, b);   a9 = _mm512_fmadd_ps(a9, m, b);
        a10 = _mm512_fmadd_ps(a10, m, b); a11 = _mm512_fmadd_ps(a11, m, b);
        a12 = _mm512_fmadd_ps(a12, m, b); a13 = _mm512_fmadd_ps(a13, m, b);
        a14 = _mm512_fmadd_ps(a14, m, b); a15 = _mm512_fmadd_ps(a15, m, b);
    }

    /* Consume every chain: the sum is stored, so no FMA is dead code. */
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3)),
                             _mm512_add_ps(_mm512_add_ps(a4, a5), _mm512_add_ps(a6, a7)));
    __m512 t = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(a8, a9), _mm512_add_ps(a10, a11)),
                             _mm512_add_ps(_mm512_add_ps(a12, a13), _mm512_add_ps(a14, a15)));
    float lanes[16];
    _mm512_storeu_ps(lanes, _mm512_add_ps(s, t));
    float total = 0.0f;
    for (int i = 0; i < 16; i++)
        total += lanes[i];
    ctx->sink[(long)tid * PEAK_SINK_STRIDE] = total;
}
