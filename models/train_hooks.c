/* train_hooks.c — the hooks set (train_hooks.h): each call of train_platform.h is the
 * set hook, else the native one (train_native.c); and the run_ctx_* calls through
 * which a hook sees the run. */
#include "train_platform.h"

static train_hooks now;   /* per simulated rank: SMPI privatizes it */

#define HOOK(name) (now.name ? now.name : train_native_hooks.name)

void train_set_hooks(const train_hooks *h)
{
    now = h ? *h : (train_hooks){0};
}

int train_platform_start(void) { return HOOK(start)(); }
uint64_t train_now_ns(void) { return HOOK(now_ns)(); }
int train_default_threads(void) { return HOOK(default_threads)(); }
void *train_big_alloc(size_t bytes) { return HOOK(big_alloc)(bytes); }
void train_big_free(void *p) { HOOK(big_free)(p); }

int train_corpus_load(corpus *c, const char *path, corpus_level level, int cap, int cap_explicit)
{
    return HOOK(corpus_load)(c, path, level, cap, cap_explicit);
}

void train_corpus_free(corpus *c) { HOOK(corpus_free)(c); }

int train_gemm_auto(run_ctx *r, int threads, int reentrant)
{
    return HOOK(gemm_auto)(r, threads, reentrant);
}

int train_bench_warmup(void) { return HOOK(bench_warmup)(); }
double train_peak_gflops(int threads) { return HOOK(peak_gflops)(threads); }
int train_numerics_checked(void) { return HOOK(numerics_checked)(); }
int train_bucketed_check(void) { return HOOK(bucketed_check)(); }

double train_compute(run_ctx *r, int *Tw_out, float **grad_out)
{
    return HOOK(compute)(r, Tw_out, grad_out);
}

void train_score_groups(model *m, const int *data, long n, int G, int g0, int g1, int windows,
                        double *sum, long *tokens)
{
    HOOK(score_groups)(m, data, n, G, g0, g1, windows, sum, tokens);
}

void train_charge_update(const run_ctx *r) { HOOK(charge_update)(r); }
int train_spare_threads(void) { return !now.no_spare_threads; }

/* ---- the run, as the hooks see it ---- */
const model *run_ctx_model(const run_ctx *r) { return &r->m; }
int run_ctx_workers(const run_ctx *r) { return r->dp.local; }

double run_ctx_compute(run_ctx *r, int *Tw_out, float **grad_out)
{
    return train_dp_compute(r, Tw_out, grad_out);
}

/* The window at st.pos and where train_dp_compute leaves the rank's gradient. */
double run_ctx_skip_compute(run_ctx *r, int *Tw_out, float **grad_out)
{
    long left = r->train.len - 1 - r->st.pos;
    *Tw_out = left <= 0 ? 0 : left < r->m.cfg.bptt ? (int)left : r->m.cfg.bptt;
    *grad_out = r->dp.local > 1 ? r->dp.grad_sum : r->m.grads;
    train_dp_sparse_windows(r);   /* sparse: the union is real, the gradient not */
    return 0;
}

double run_ctx_update_bytes(const run_ctx *r)
{
    return 4.0 * r->dp.update_len * (4 + 2 * optim_nstate(r->opt.kind));
}

int run_ctx_bucketed(const run_ctx *r) { return r->dp.buckets != NULL; }
void run_ctx_start_buckets(run_ctx *r) { train_sync_start_charged(r); }
long run_ctx_buckets_pending(const run_ctx *r) { return dp_buckets_pending(r->dp.buckets); }

long run_ctx_bucket_offset(const run_ctx *r, long k)
{
    const float *grad = r->dp.local > 1 ? r->dp.grad_sum : r->m.grads;
    return dp_buckets_pending_buf(r->dp.buckets, k) - grad;
}

void run_ctx_sum_buckets(run_ctx *r, const train_bucket_pace *pace)
{
    dp_buckets_sum_pending(r->dp.buckets, pace->ready, pace->clock_s, pace->ctx);
}

void run_ctx_set_exposed_exchange(run_ctx *r, double seconds)
{
    r->dp.overlap_exposed_s = seconds;
}
