/* train_native.c — train_platform.h for rnn-train on real machines: the host's clock,
 * libc's memory, one corpus per process, GEMM tuned here, compute run.  The SMPI build
 * links scaling/train_smpi.c in its place. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "matmul.h"
#include "peak.h"
#include "timer.h"
#include "train_platform.h"

int train_platform_start(void) { return 0; }
uint64_t train_now_ns(void) { return rs_now_ns(); }
int train_default_threads(void) { return rs_ncpus(); }

void *train_big_alloc(size_t bytes)
{
    void *p = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (p)
        memset(p, 0, bytes);
    return p;
}

void train_big_free(void *p) { free(p); }

int train_corpus_load(corpus *c, const char *path, corpus_level level, int cap, int cap_explicit)
{
    return corpus_load(c, path, level, cap, cap_explicit);
}

void train_corpus_free(corpus *c) { corpus_free(c); }

int train_gemm_auto(const model_cfg *c, int threads, int reentrant)
{
    return mm_init_auto(c, threads, reentrant);
}

int train_bench_warmup(void) { return 2; }
double train_peak_gflops(int threads) { return peak_fma_gflops_for(threads, NULL); }
int train_numerics_checked(void) { return 1; }
int train_spare_threads(void) { return 1; }
/* its communication thread's MPI level is checked when the thread starts */
int train_bucketed_check(void) { return 0; }

double train_compute(run_ctx *r, int *Tw_out, float **grad_out)
{
    return train_dp_compute(r, Tw_out, grad_out);
}

void train_score_groups(model *m, const int *data, long n, int G, int g0, int g1, double *sum,
                        long *tokens)
{
    eval_groups_partial(m, data, n, G, g0, g1, sum, tokens);
}

void train_charge_update(const run_ctx *r) { (void)r; }
