/* fma.c — the FMA-throughput registry (one row per ISA) and peak_fma_gflops().
 *
 * peak_fma_gflops() is what `microbench peak` and other studies call to get the
 * compute limit: it runs the ISA's kernel under rs_bench() on nthreads threads and
 * converts the minimum time per repetition into GFLOP/s (min: a peak is the best
 * the machine did). */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "peak.h"
#include "peak_kernels.h"

const peak_fma_variant peak_fma_variants[RS_ISA_COUNT] = {
    [RS_ISA_PORTABLE] = {.isa = RS_ISA_PORTABLE, .fn = peak_fma_portable,
                         .nacc = PEAK_FMA_NACC_PORTABLE, .what = "scalar mulss+addss"},
    [RS_ISA_AVX2] = {.isa = RS_ISA_AVX2, .fn = peak_fma_avx2, .nacc = PEAK_FMA_NACC_AVX2,
                     .what = "vfmadd ymm"},
    [RS_ISA_AVX512] = {.isa = RS_ISA_AVX512, .fn = peak_fma_avx512, .nacc = PEAK_FMA_NACC_AVX512,
                       .what = "vfmadd zmm"},
};

double peak_fma_flops_per_rep(const peak_fma_variant *v)
{
    /* One FMA lane = a multiply and an add = 2 flops. */
    return (double)PEAK_FMA_ITERS * v->nacc * rs_isa_lanes(v->isa) * 2.0;
}

int peak_fma_gflops(rs_isa isa, int nthreads, const rs_bench_cfg *cfg, double *gflops)
{
    *gflops = -1.0;
    RS_CHECK(isa >= 0 && isa < RS_ISA_COUNT && rs_isa_supported(isa),
          "peak fma: ISA %d (%s) is not supported on this CPU", (int)isa,
          isa >= 0 && isa < RS_ISA_COUNT ? rs_isa_name(isa) : "unknown");
    RS_CHECK(nthreads >= 1, "peak fma: %d threads (expected >= 1)", nthreads);

    const peak_fma_variant *v = &peak_fma_variants[isa];
    /* mul and add are read at run time (volatile), so the chains cannot fold. */
    volatile float mul = 0.999999f, add = 1e-6f;
    peak_fma_ctx ctx = {mul, add, calloc((size_t)nthreads * PEAK_SINK_STRIDE, sizeof(float))};
    RS_CHECK(ctx.sink, "peak fma: out of memory");

    rs_bench_result r;
    int rc = rs_bench(cfg, nthreads, v->fn, &ctx, &r);
    free(ctx.sink);
    if (rc != 0)
        return -1;
    RS_CHECK(r.ns.min > 0, "peak fma %s: zero time per repetition", rs_isa_name(isa));

    /* Every thread does a repetition's flops in the measured wall time. */
    *gflops = peak_fma_flops_per_rep(v) * nthreads / r.ns.min;
    return isfinite(*gflops) ? 0 : -1;
}

double peak_fma_gflops_for(int threads, const rs_json *machine)
{
    rs_isa best = rs_isa_best();
    char key[96];
    if (machine) {
        snprintf(key, sizeof key, "peak.fma.%s.threads_all", rs_isa_name(best));
        int all = (int)rs_json_num(machine, key, 0);
        snprintf(key, sizeof key, "peak.fma.%s.gflops_%s", rs_isa_name(best), threads == 1 ? "1t" : "all");
        double g = rs_json_num(machine, key, -1);
        if (g > 0 && (threads == 1 || threads == all))
            return g;
    }
    rs_bench_cfg cfg = rs_bench_defaults(1);
    double g = -1;
    return peak_fma_gflops(best, threads, &cfg, &g) == 0 ? g : -1;
}
