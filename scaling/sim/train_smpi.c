/* train_smpi.c — `rnn-train-smpi`: rnn-train's own code (its command line,
 * train_cli_main) under SimGrid SMPI, with the trainer's hooks (models/train_hooks.h)
 * set for the simulation first, one call in main (scaling/sim/train_smpi.mk builds it;
 * study train-sim runs it).  Its start hook, after MPI_Init, sets the same
 * collectives hooks as allreduce-bench-smpi (smpi_hooks.h); the others make:
 *
 *   clock    the trainer's timings read MPI_Wtime, so the --bench columns (step_ms_*,
 *            compute_ms, exchange_exposed_ms, optimizer_ms) are simulated time;
 *   memory   big buffers go through ar_big_memalign: folded under RS_SMPI_FOLD_BYTES
 *            (scaling/sim/smpi_fold.c), so 800 ranks fit; the corpus is read once per
 *            process and shared read-only (SMPI_SHARED_CALL's table), as is the
 *            --gemm auto plan (tuned by the first rank, the others dispatch by its record);
 *   compute  RS_SMPI_COMPUTE chooses how forward + backward costs simulated time:
 *              run       executed, timed by SMPI's benchmarking (smpirun's default
 *                        smpi/simulate-computation:yes; smpi/host-speed converts);
 *              sample:K  SMPI_SAMPLE_GLOBAL: executed for the first K steps of all
 *                        ranks together, then every step is charged their mean
 *                        (smpi/host-speed converts; the numbers are then garbage);
 *              flops:GF  charged model_step_flops / (GF * 1e9) seconds: deterministic
 *                        with smpi/simulate-computation:no; executed unless folded.
 *            In sample and flops modes the optimizer is charged its memory traffic at
 *            the gamma rate (the platform's rs_reduce_gbytes_per_s).  --sync bucketed
 *            (flops only): the rank sums the buckets while an actor on its host charges
 *            the backward (dp_buckets_smpi.h), the forward charged first.  Evaluation is
 *            charged alike: its forward's flops (flops; not run when folded), each
 *            group's measured time (sample) or its benchmarked run (run);
 *   numbers  folded or sampled, the checksum, NaN stops and evaluation scoring are
 *            skipped (said once on stderr); the exchange and the optimizer still run. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <smpi/smpi.h>

#include "ar_hooks.h"
#include "check.h"
#include "dp_buckets_smpi.h"
#include "matmul.h"
#include "smpi_hooks.h"
#include "train.h"
#include "train_hooks.h"

typedef enum { COMPUTE_RUN, COMPUTE_SAMPLE, COMPUTE_FLOPS } compute_mode;

/* per simulated rank: SMPI privatizes these globals */
static compute_mode mode;
static int sample_runs = 3;     /* sample:K */
static double node_gflops;      /* flops:GF */
static int folded;

static int parse_compute(const char *v)
{
    char *end;
    if (!v || !*v || strcmp(v, "run") == 0) {
        mode = COMPUTE_RUN;
    } else if (strcmp(v, "sample") == 0) {
        mode = COMPUTE_SAMPLE;
    } else if (strncmp(v, "sample:", 7) == 0) {
        long k = strtol(v + 7, &end, 10);
        RS_CHECK(end > v + 7 && !*end && k >= 1 && k <= 1000000, "RS_SMPI_COMPUTE=%s: K is not a "
                 "count of sampled steps >= 1 (e.g. sample:3)", v);
        mode = COMPUTE_SAMPLE;
        sample_runs = (int)k;
    } else if (strncmp(v, "flops:", 6) == 0) {
        node_gflops = strtod(v + 6, &end);
        RS_CHECK(end > v + 6 && !*end && node_gflops > 0 && isfinite(node_gflops),
                 "RS_SMPI_COMPUTE=%s: GF is not a node speed in GFLOP/s > 0 (e.g. flops:100)", v);
        mode = COMPUTE_FLOPS;
    } else {
        RS_CHECK(0, "RS_SMPI_COMPUTE: unknown mode '%s' (expected run, sample, sample:K or flops:GF)", v);
    }
    return 0;
}

static int numerics_checked(void) { return !folded && mode != COMPUTE_SAMPLE; }

static int start(void)
{
    if (smpi_hooks_install() != 0 || parse_compute(getenv("RS_SMPI_COMPUTE")) != 0)
        return -1;
    folded = smpi_hooks_fold_bytes() > 0;
    /* run mode benchmarks the real reductions; the gamma charge would count them twice */
    if (mode == COMPUTE_RUN && !folded)
        ar_set_reduce_charge(NULL, NULL);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0 && !numerics_checked())
        fprintf(stderr, "%s: %s: losses, perplexities and parameters are not meaningful; the "
                "checksum, NaN stops and evaluation scoring are skipped (timings only)\n",
                rs_progname(), folded ? "buffers folded (RS_SMPI_FOLD_BYTES)"
                                      : "compute sampled (RS_SMPI_COMPUTE=sample)");
    return 0;
}

static int bucketed_check(void)
{
    RS_CHECK(mode == COMPUTE_FLOPS, "--sync bucketed under SMPI needs compute charged by flops "
             "(RS_SMPI_COMPUTE=flops:GF, train-sim --compute flops:GF): its overlap is the "
             "backward's charge; use --sync fused with sample or run");
    return 0;
}

static uint64_t now_ns(void) { return (uint64_t)llround(MPI_Wtime() * 1e9); }
static int default_threads(void) { return 1; }

static void *big_alloc(size_t bytes)
{
    void *p;
    if (ar_big_memalign(&p, bytes) != 0)
        return NULL;
    if (!folded || bytes < smpi_hooks_fold_bytes())   /* folded: garbage anyway, 200 MB a rank */
        memset(p, 0, bytes);
    return p;
}

static void big_free(void *p) { ar_big_free(p); }

/* ---- the corpus, once per process ---- */
typedef struct {
    int rc;
    char err[512];
    corpus c;
} shared_corpus;

static shared_corpus *load_once(const char *path, corpus_level level, int cap, int cap_explicit)
{
    shared_corpus *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->rc = corpus_load(&s->c, path, level, cap, cap_explicit);
    if (s->rc != 0)
        snprintf(s->err, sizeof s->err, "%s", rs_lasterr());
    return s;
}

static int corpus_load_shared(corpus *c, const char *path, corpus_level level, int cap,
                              int cap_explicit)
{
    char key[4200];
    snprintf(key, sizeof key, "%d %d %d %s", (int)level, cap, cap_explicit, path);
    shared_corpus *s = smpi_shared_known_call("corpus_load", key)
                           ? smpi_shared_get_call("corpus_load", key)
                           : smpi_shared_set_call("corpus_load", key,
                                                  load_once(path, level, cap, cap_explicit));
    RS_CHECK(s, "out of memory loading the corpus");
    RS_CHECK(s->rc == 0, "%s", s->err);
    *c = s->c;
    return 0;
}

/* The process's copy stays until the simulation ends: other ranks may still read it. */
static void corpus_forget(corpus *c) { memset(c, 0, sizeof *c); }

/* ---- GEMM: tuned by the first rank; the others dispatch by its record ---- */
static int gemm_auto(run_ctx *r, int threads, int reentrant)
{
    const model_cfg *c = &run_ctx_model(r)->cfg;
    char key[160];
    snprintf(key, sizeof key, "%d %d %d %d %d %d %d %d %d %d", (int)c->cell, c->layers, c->hidden,
             c->embed, c->vocab, c->batch, c->bptt, c->classes, threads, reentrant);
    if (smpi_shared_known_call("gemm_auto", key))
        return mm_init_record(smpi_shared_get_call("gemm_auto", key), c, threads);
    if (mm_init_auto(c, threads, reentrant) != 0)
        return -1;
    smpi_shared_set_call("gemm_auto", key, strdup(mm_record()));
    return 0;
}

/* flops mode charges every step alike; run and sample need their first steps */
static int bench_warmup(void) { return mode == COMPUTE_FLOPS ? 0 : 2; }

/* The simulated node's speed where it is stated (flops:GF); else unknown. */
static double peak_gflops(int threads)
{
    (void)threads;
    return mode == COMPUTE_FLOPS ? node_gflops : -1;
}

/* ---- compute ---- */

static double sampled(run_ctx *r, int *Tw_out, float **grad_out)
{
    double loss = 0;
    int ran = 0;
    SMPI_SAMPLE_GLOBAL(int once = 0, once < 1, once++, sample_runs, -1) {
        loss = run_ctx_compute(r, Tw_out, grad_out);
        ran = 1;
    }
    return ran ? loss : run_ctx_skip_compute(r, Tw_out, grad_out);
}

/* The bucket starting at the gradient's float `offset`: the seconds of the backward
 * done when it is ready. */
typedef struct {
    const model *m;
    int Tw;
} bucket_timing;

static double bucket_ready_s(void *ctx, long offset)
{
    const bucket_timing *t = ctx;
    return model_backward_flops_ready(&t->m->cfg, &t->m->lay, t->Tw, offset) /
           (node_gflops * 1e9);
}

/* --sync bucketed, flops mode: the rank is charged what precedes the last worker's
 * backward, then sums the buckets while an actor charges that backward
 * (dp_buckets_smpi.h).  Unfolded, the step runs first and its backward starts the
 * buckets (recorded, no MPI), so the sums are of the real gradient. */
static double overlapped(run_ctx *r, int *Tw_out, float **grad_out)
{
    double loss = folded ? run_ctx_skip_compute(r, Tw_out, grad_out)
                         : run_ctx_compute(r, Tw_out, grad_out);
    if (folded)
        run_ctx_start_buckets(r);
    bucket_timing t = {run_ctx_model(r), *Tw_out};
    grad_event ev[MODEL_MAX_EVENTS];
    int n = model_backward_events(&t.m->cfg, &t.m->lay, t.Tw, ev);
    double per_s = node_gflops * 1e9, backward = ev[n - 1].flops / per_s;   /* all of it */
    smpi_hooks_charge_seconds(model_step_flops(&t.m->cfg, t.Tw) * run_ctx_workers(r) / per_s -
                              backward);
    run_ctx_set_exposed_exchange(r, dp_buckets_overlap(r, bucket_ready_s, &t, backward));
    return loss;
}

static double compute(run_ctx *r, int *Tw_out, float **grad_out)
{
    double loss;
    if (mode == COMPUTE_SAMPLE) {
        loss = sampled(r, Tw_out, grad_out);
    } else if (mode == COMPUTE_FLOPS && run_ctx_bucketed(r)) {
        loss = overlapped(r, Tw_out, grad_out);
    } else if (mode == COMPUTE_FLOPS) {
        loss = folded ? run_ctx_skip_compute(r, Tw_out, grad_out)
                      : run_ctx_compute(r, Tw_out, grad_out);
        double flops = model_step_flops(&run_ctx_model(r)->cfg, *Tw_out) * run_ctx_workers(r);
        smpi_hooks_charge_seconds(flops / (node_gflops * 1e9));
    } else {
        loss = run_ctx_compute(r, Tw_out, grad_out);
    }
    /* a garbage NaN would make train_dp_exchange skip the allreduce being timed */
    return numerics_checked() || isfinite(loss) ? loss : 0;
}

/* sample: one group's scoring timed for the first K groups of all ranks, then charged */
static void sampled_groups(model *m, const int *data, long n, int G, int g0, int g1, int windows)
{
    for (int g = g0; g < g1; g++) {
        SMPI_SAMPLE_GLOBAL(int once = 0, once < 1, once++, sample_runs, -1) {
            double sum;
            long tokens;
            eval_groups_score(m, data, n, G, g, g + 1, windows, &sum, &tokens);
        }
    }
}

static void score_groups(model *m, const int *data, long n, int G, int g0, int g1, int windows,
                         double *sum, long *tokens)
{
    if (mode == COMPUTE_SAMPLE) {
        sampled_groups(m, data, n, G, g0, g1, windows);
        *sum = NAN, *tokens = 0;
        return;
    }
    eval_groups_partial(m, data, n, G, g0, g1, windows, sum, tokens);   /* folded: not run */
    if (mode == COMPUTE_FLOPS)
        smpi_hooks_charge_seconds(eval_groups_flops(&m->cfg, n, G, g0, g1, windows) / (node_gflops * 1e9));
}

/* The update's memory traffic (run_ctx_update_bytes) at the gamma rate. */
static void charge_update(const run_ctx *r)
{
    if (mode == COMPUTE_RUN)
        return;   /* benchmarked by SMPI with the rest */
    smpi_hooks_charge_seconds(run_ctx_update_bytes(r) * smpi_hooks_seconds_per_byte());
}

static const train_hooks smpi_train_hooks = {
    .start = start,
    .now_ns = now_ns,
    .default_threads = default_threads,
    .big_alloc = big_alloc,
    .big_free = big_free,
    .corpus_load = corpus_load_shared,
    .corpus_free = corpus_forget,
    .gemm_auto = gemm_auto,
    .bench_warmup = bench_warmup,
    .peak_gflops = peak_gflops,
    .numerics_checked = numerics_checked,
    .bucketed_check = bucketed_check,
    .compute = compute,
    .score_groups = score_groups,
    .charge_update = charge_update,
    .no_spare_threads = 1,   /* bucketed's overlap is charged (dp_buckets_smpi.h) */
};

/* Each simulated rank runs main: its hooks first, then rnn-train as it is. */
int main(int argc, char **argv)
{
    train_set_hooks(&smpi_train_hooks);
    return train_cli_main(argc, argv);
}
