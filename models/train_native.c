/* train_native.c — the native hooks (train_hooks.h) for rnn-train on real machines:
 * the host's clock, libc's memory, one corpus per process, GEMM tuned here, compute
 * run, a spare thread for bucketed's exchange.  Every member set: a hook left unset by
 * a simulator (train_set_hooks) is the one here. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "matmul.h"
#include "peak.h"
#include "timer.h"
#include "train_platform.h"

static int native_start(void) { return 0; }
static uint64_t native_now_ns(void) { return rs_now_ns(); }
static int native_default_threads(void) { return rs_ncpus(); }

static void *native_big_alloc(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (p)
        memset(p, 0, bytes);
    return p;
}

static void native_big_free(void *p) { free(p); }

static int native_bench_warmup(void) { return 2; }
static double native_peak_gflops(int threads) { return peak_fma_gflops_for(threads, NULL); }
static int native_numerics_checked(void) { return 1; }
/* its communication thread's MPI level is checked when the thread starts */
static int native_bucketed_check(void) { return 0; }
static void native_charge_update(const run_ctx *r) { (void)r; }

const train_hooks train_native_hooks = {
    .start = native_start,
    .now_ns = native_now_ns,
    .default_threads = native_default_threads,
    .big_alloc = native_big_alloc,
    .big_free = native_big_free,
    .corpus_load = corpus_load,
    .corpus_free = corpus_free,
    .gemm_auto = gemm_auto_in_context,
    .bench_warmup = native_bench_warmup,
    .peak_gflops = native_peak_gflops,
    .numerics_checked = native_numerics_checked,
    .bucketed_check = native_bucketed_check,
    .compute = run_ctx_compute,
    .score_groups = eval_groups_partial,
    .charge_update = native_charge_update,
    .no_spare_threads = 0,
};
