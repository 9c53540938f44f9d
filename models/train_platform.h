/* train_platform.h — the trainer's calls where rnn-train and rnn-train-smpi differ, and
 * nowhere else, so both run the same code paths.  Each is the hook set (train_hooks.h,
 * models/train_hooks.c) or, unset, the native one (models/train_native.c):
 *
 *     double loss = train_compute(r, &Tw, &grad);   // forward + backward, or its charge
 *     uint64_t t = train_now_ns();                   // host, or simulated, nanoseconds
 *
 * Private to models/: a simulator fills train_hooks and never calls these. */
#ifndef RS_MODELS_TRAIN_PLATFORM_H
#define RS_MODELS_TRAIN_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "bigmem.h"   /* train_big_alloc, train_big_free */
#include "train_ctx.h"
#include "train_hooks.h"

/* The defaults, every member set (train_native.c). */
extern const train_hooks train_native_hooks;

/* train_hooks' members, in its order (the hook's comment there says what each does). */
int train_platform_start(void);
uint64_t train_now_ns(void);
/* Seconds on that clock since t0 (a train_now_ns() reading). */
static inline double train_seconds_since(uint64_t t0)
{
    return (double)(train_now_ns() - t0) * 1e-9;
}
int train_default_threads(void);
int train_corpus_load(corpus *c, const char *path, corpus_level level, int cap, int cap_explicit);
void train_corpus_free(corpus *c);
int train_gemm_auto(run_ctx *r, int threads, int reentrant);
int train_bench_warmup(void);
double train_peak_gflops(int threads);
int train_numerics_checked(void);
int train_bucketed_check(void);
double train_compute(run_ctx *r, int *Tw_out, float **grad_out);
void train_score_groups(model *m, const int *data, long n, int G, int g0, int g1, int windows,
                        double *sum, long *tokens);
void train_charge_update(const run_ctx *r);
/* 1 where a rank may run a second thread (bucketed's communication thread,
 * --eval-async): not no_spare_threads. */
int train_spare_threads(void);

#endif
