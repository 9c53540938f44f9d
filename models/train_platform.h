/* train_platform.h — what each build of rnn-train links from exactly one of two files,
 * chosen by the Makefile: models/train_native.c (rnn-train: the plain calls) or
 * scaling/train_smpi.c (rnn-train-smpi under SimGrid SMPI: simulated time, folded
 * buffers, one shared corpus, charged compute).  The trainer calls these where the
 * two builds differ and nowhere else, so both run the same code paths:
 *
 *     double loss = train_compute(r, &Tw, &grad);   // forward + backward, or its charge
 *     uint64_t t = train_now_ns();                   // host, or simulated, nanoseconds */
#ifndef RS_MODELS_TRAIN_PLATFORM_H
#define RS_MODELS_TRAIN_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "bigmem.h"   /* train_big_alloc, train_big_free */
#include "train_ctx.h"

/* Right after MPI_Init (dp_comm.c): the build's hooks.  0, or -1 (rs_lasterr). */
int train_platform_start(void);
/* The trainer's clock for its timings, in ns: the host's, or the simulated one. */
uint64_t train_now_ns(void);
/* Seconds on that clock since t0 (a train_now_ns() reading). */
static inline double train_seconds_since(uint64_t t0)
{
    return (double)(train_now_ns() - t0) * 1e-9;
}
/* --threads' default: every CPU, or 1 (one core per simulated node). */
int train_default_threads(void);
/* The corpus, loaded once per process where ranks share one (read-only thereafter). */
int train_corpus_load(corpus *c, const char *path, corpus_level level, int cap, int cap_explicit);
void train_corpus_free(corpus *c);
/* --gemm auto: tuned once per process, every rank dispatching alike.  0, or -1. */
int train_gemm_auto(const model_cfg *c, int threads, int reentrant);
/* --bench's untimed steps before the timed ones: 2 (caches, pages, a library's pool);
 * none where every step is charged alike (nothing to warm in a simulation). */
int train_bench_warmup(void);
/* The peak the benchmark's frac_of_peak divides by (GFLOP/s; <= 0: unknown). */
double train_peak_gflops(int threads);
/* 1 when the numbers mean something; 0 when buffers are folded or compute is charged
 * without running: the checksum, NaN stops and evaluation scores are then skipped. */
int train_numerics_checked(void);
/* 1 where a rank may run a second thread (bucketed's communication thread, --eval-async);
 * 0 under SMPI, whose simulated ranks cannot (bucketed's overlap is charged there). */
int train_spare_threads(void);
/* --sync bucketed can run in this build (and its compute mode): 0, or -1 (rs_lasterr). */
int train_bucketed_check(void);
/* Forward and backward of this rank's workers (train_dp_compute), run or charged. */
double train_compute(run_ctx *r, int *Tw_out, float **grad_out);
/* Groups [g0, g1) of a split scored (eval_groups_partial), run or charged as compute is:
 * evaluation costs simulated time in every mode. */
void train_score_groups(model *m, const int *data, long n, int G, int g0, int g1, double *sum,
                        long *tokens);
/* After the optimizer's update: where compute is charged, its memory traffic too. */
void train_charge_update(const run_ctx *r);

#endif
