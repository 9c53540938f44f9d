/* fma_portable.c — what plain C gets without ISA flags: fp32 scalar multiply-add.
 *
 * Built with no ISA flags, so on x86-64 each step is a scalar SSE mulss + addss
 * (no FMA instruction exists at that baseline); one "FMA" here = one mul+add pair
 * = 2 flops, lanes = 1.  It is the ceiling of un-vectorized compiled code, the
 * fallback every optimized kernel is compared with — not a hardware FMA peak.
 * 12 chains x (mul latency + add latency = 6-8 cycles) cover 2 pairs per cycle on
 * Zen 3 (on Skylake-X, 8-cycle chains, 12 chains reach at most 1.5 pairs per cycle).
 * The vectorizer is switched off for this function: it would otherwise pack the
 * scalar chains into SSE vectors and measure something else. */
#include "peak_kernels.h"

__attribute__((optimize("no-tree-vectorize", "no-tree-slp-vectorize")))
void peak_fma_portable(void *ctx_, int tid, long reps)
{
    peak_fma_ctx *ctx = ctx_;
    const float m = ctx->mul, b = ctx->add;
    float a0 = 0.0f, a1 = 0.1f, a2 = 0.2f, a3 = 0.3f, a4 = 0.4f, a5 = 0.5f;
    float a6 = 0.6f, a7 = 0.7f, a8 = 0.8f, a9 = 0.9f, a10 = 1.0f, a11 = 1.1f;

    for (long it = 0; it < reps * PEAK_FMA_ITERS; it++) {
        a0 = a0 * m + b;   a1 = a1 * m + b;   a2 = a2 * m + b;   a3 = a3 * m + b;
        a4 = a4 * m + b;   a5 = a5 * m + b;   a6 = a6 * m + b;   a7 = a7 * m + b;
        a8 = a8 * m + b;   a9 = a9 * m + b;   a10 = a10 * m + b; a11 = a11 * m + b;
    }

    /* Consume every chain: the sum is stored, so no step is dead code. */
    ctx->sink[(long)tid * PEAK_SINK_STRIDE] =
        ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7)) + ((a8 + a9) + (a10 + a11));
}
