/* train_hooks.h — where a simulator adapts rnn-train without changing it: the clock,
 * big buffers, the corpus and the GEMM plan per process, what compute and evaluation
 * cost, the optimizer's charge, and the overlap of --sync bucketed.  rnn-train runs
 * with the native hooks (models/train_native.c: host clock, libc, compute run);
 * rnn-train-smpi sets SimGrid SMPI's (scaling/sim/train_smpi.c) with one call before the
 * command line runs, as collectives/ar_hooks.h does for the allreduce library:
 *
 *     static const train_hooks sim = {.now_ns = sim_clock, .compute = sim_compute};
 *     train_set_hooks(&sim);             // before train_cli_main; unset: the native ones
 *     return train_cli_main(argc, argv);
 *
 * A hook sees the run as an opaque run_ctx, through the run_ctx_* calls below only (the
 * run's state, models/train_ctx.h, is the trainer's own). */
#ifndef RS_MODELS_TRAIN_HOOKS_H
#define RS_MODELS_TRAIN_HOOKS_H

#include <stddef.h>
#include <stdint.h>

#include "corpus.h"
#include "model.h"

typedef struct run_ctx run_ctx;   /* one rnn-train run */

typedef struct {
    /* Right after MPI_Init (dp_comm_start; not called without a launcher): 0, or -1
     * with rs_seterr. */
    int (*start)(void);
    /* The trainer's clock for its timings, in ns: the host's, or the simulated one. */
    uint64_t (*now_ns)(void);
    /* --threads' default: every CPU, or 1 (one core per simulated node). */
    int (*default_threads)(void);
    /* The model's big buffers (bigmem.h): 64-byte aligned and zeroed (folded: garbage),
     * NULL when out of memory; big_free takes what big_alloc gave. */
    void *(*big_alloc)(size_t bytes);
    void (*big_free)(void *p);
    /* The corpus (corpus_load's contract), loaded once per process where ranks share
     * one (read-only thereafter); corpus_free releases this rank's hold. */
    int (*corpus_load)(corpus *c, const char *path, corpus_level level, int cap,
                       int cap_explicit);
    void (*corpus_free)(corpus *c);
    /* --gemm auto for the run's model (run_ctx_model): tuned once per process, every
     * rank dispatching alike; natively the plan is then chosen on the model's own step
     * (gemm_context.c).  0, or -1. */
    int (*gemm_auto)(run_ctx *r, int threads, int reentrant);
    /* --bench's untimed steps before the timed ones: 2 (caches, pages, a library's
     * pool); none where every step is charged alike. */
    int (*bench_warmup)(void);
    /* The peak the benchmark's frac_of_peak divides by (GFLOP/s; <= 0: unknown). */
    double (*peak_gflops)(int threads);
    /* 1 when the numbers mean something; 0 when buffers are folded or compute is
     * charged without running: the checksum, NaN stops and evaluation scores are then
     * skipped. */
    int (*numerics_checked)(void);
    /* --sync bucketed can run (and in this compute mode): 0, or -1 (rs_lasterr). */
    int (*bucketed_check)(void);
    /* Forward and backward of this rank's workers, run (run_ctx_compute) or charged:
     * the sum of their mean losses; *Tw_out the window's steps, *grad_out the rank's
     * summed gradient.  Bucketed without a spare thread, the buckets the backward
     * started are summed here too (run_ctx_sum_buckets). */
    double (*compute)(run_ctx *r, int *Tw_out, float **grad_out);
    /* Groups [g0, g1) of a split scored (eval_groups_partial, train.h), run or
     * charged as compute is: evaluation costs simulated time in every mode. */
    void (*score_groups)(model *m, const int *data, long n, int G, int g0, int g1, int windows,
                         double *sum, long *tokens);
    /* After the optimizer's update: where compute is charged, its memory traffic too
     * (run_ctx_update_bytes). */
    void (*charge_update)(const run_ctx *r);
    /* 1 where a rank cannot run a second thread (SMPI's simulated ranks): no
     * --eval-async, and bucketed's buckets are summed by the rank itself, in compute. */
    int no_spare_threads;
} train_hooks;

/* Copies *h; its unset members (and all, for NULL) are the native ones.  Call before
 * train_cli_main (train.h), in each simulated rank: SMPI privatizes the table. */
void train_set_hooks(const train_hooks *h);

/* ---- the run, for the hooks ---- */
const model *run_ctx_model(const run_ctx *r);
int run_ctx_workers(const run_ctx *r);   /* this rank's (model_step_flops is one worker's) */
/* The native compute: forward and backward of this rank's workers on the next window. */
double run_ctx_compute(run_ctx *r, int *Tw_out, float **grad_out);
/* The same window and gradient without running anything (charged compute where the
 * buffers are folded or sampled): returns 0. */
double run_ctx_skip_compute(run_ctx *r, int *Tw_out, float **grad_out);
/* The bytes the last update moved: the norm reads the gradient; the update reads it,
 * reads and writes the parameters and each optimizer state array (all of them, or the
 * rank's block with --shard-update). */
double run_ctx_update_bytes(const run_ctx *r);

/* ---- --sync bucketed without a spare thread (no_spare_threads) ----
 * The backward starts buckets (ranges of the gradient) as it readies them; no thread
 * sums them, so the compute hook does, in order, each once ready (those it leaves are
 * summed at the step's wait, after the backward).  pace->ready(ctx, k)
 * returns when pending bucket k may be summed (a simulator's backward, charged
 * meanwhile, has readied it); each sum's seconds by pace->clock_s. */
typedef struct {
    void (*ready)(void *ctx, long k);
    double (*clock_s)(void *ctx);
    void *ctx;
} train_bucket_pace;

int run_ctx_bucketed(const run_ctx *r);      /* 1 under --sync bucketed with ranks to sum over */
/* Compute charged and not run: this step's buckets started at once, cut as a run
 * backward cuts them. */
void run_ctx_start_buckets(run_ctx *r);
long run_ctx_buckets_pending(const run_ctx *r);          /* started and not yet summed */
long run_ctx_bucket_offset(const run_ctx *r, long k);    /* pending bucket k's first float */
/* Collective: the pending buckets summed over ranks now, paced; a failed allreduce is
 * reported at the step's wait. */
void run_ctx_sum_buckets(run_ctx *r, const train_bucket_pace *pace);
/* Of compute's seconds, those the rank spent summing after the backward ended:
 * counted as exchange, not compute. */
void run_ctx_set_exposed_exchange(run_ctx *r, double seconds);

#endif
