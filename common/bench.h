/* bench.h — the one place where timing discipline lives.
 *
 * A kernel is a function that performs `reps` repetitions of its work on the
 * working set of thread `tid`.  rs_bench() warms it up, picks reps so that each
 * sample spans at least 20 timer ticks and cfg->min_sample_s, then takes samples
 * until both cfg->min_samples and cfg->min_time_s are reached (or max_time_s).
 * With nthreads > 1 every thread runs the kernel at once on its own data, inside
 * one OpenMP team pinned one thread per CPU; a sample is the wall time from a
 * barrier before to a barrier after.  Results are per repetition.  Once counting is
 * installed (rs_bench_count_with), every thread counts the timed samples too, outside
 * the timed window; multi-threaded counts include the wait at the closing barrier.
 *
 * Why a harness of its own (one of four; each times what the others cannot): this
 * one times a side-effect-free kernel repeated in place (exp, softmax, GEMM);
 * kernel_study.h drives it over a study's inputs; allreduce-bench times a collective
 * across ranks (the slowest rank's time, barriers, OSU's methods: collectives/); and
 * rnn-train --bench times whole training steps, which change the model and cannot be
 * repeated in place (models/train_bench.c). */
#ifndef RS_BENCH_H
#define RS_BENCH_H

#include "counters.h"
#include "stats.h"

typedef void (*rs_kernel_fn)(void *ctx, int tid, long reps);

typedef struct {
    double warmup_s;     /* run untimed at least this long first (default 0.02) */
    double min_sample_s; /* each sample spans at least this long (default 1e-4) */
    int min_samples;     /* at least this many samples (default 11) */
    int max_samples;     /* at most (default 1000) */
    double min_time_s;   /* keep sampling until this much time was spent (default 0.1) */
    double max_time_s;   /* stop after this long even below min_samples (default 5) */
} rs_bench_cfg;

/* Defaults above; quick != 0 shortens everything ~5x for smoke runs. */
rs_bench_cfg rs_bench_defaults(int quick);

typedef struct {
    rs_stats ns;      /* nanoseconds per repetition over the samples */
    long reps;        /* repetitions per sample */
    int threads;
    /* PAPI counts per repetition over the timed samples, summed over the threads (a
     * repetition: one call of the kernel on each thread); NAN where not counted. */
    double cycles, instructions, fp_ops;
} rs_bench_result;

/* Count every timed sample with start/stop on each thread from now on (counters.h's
 * rs_counters_start/stop once rs_counters_init() returned 1).  A hook, not a call, so
 * programs that time nothing need not link the counter libraries. */
void rs_bench_count_with(void (*start)(void), void (*stop)(rs_counts *out));

/* Time fn(ctx, tid, reps) on nthreads threads. Returns 0, or -1 (rs_lasterr). */
int rs_bench(const rs_bench_cfg *cfg, int nthreads, rs_kernel_fn fn, void *ctx,
             rs_bench_result *out);

/* Time nk kernels side by side, fn(ctx[k], ...) into out[k]: each is warmed up and
 * given its reps as above, then samples are taken in rounds of one sample per kernel
 * (sampling times scale with nk).  A noisy spell of a shared machine then falls on all
 * of them alike, so ratios between them hold where separate timings would not. */
int rs_bench_rounds(const rs_bench_cfg *cfg, int nthreads, int nk, rs_kernel_fn fn,
                    void *const ctx[], rs_bench_result out[]);

/* Threads: the number of online CPUs, and pinning of the calling thread. */
int rs_ncpus(void);
/* Pin the calling thread to the cpu-th CPU of those the process started with
 * (modulo their count). 0 ok; -1 where the OS refuses (not fatal). */
int rs_pin_thread(int cpu);
/* Give the calling thread back every CPU the process started with (a child it starts
 * inherits its mask). 0 ok, -1 where unknown or refused. */
int rs_unpin_thread(void);

/* A long-running program's OpenMP team of `threads`, thread i pinned to the i-th
 * starting CPU, as OMP_PROC_BIND=close would (libgomp reads that before main).  Why:
 * T threads on T CPUs beside one busy process may be left sharing one CPU (3 tasks
 * on 2 CPUs are "balanced" either way), and a library barrier that spins without
 * yielding (BLIS's) then costs a time slice each: 2-thread trainer steps of 600 ms
 * against a median of 50 were measured, and one of 147 s.  Nothing is pinned with
 * fewer starting CPUs than threads (mpirun --bind-to core), or when the user set
 * OMP_PROC_BIND, OMP_PLACES or GOMP_CPU_AFFINITY (theirs rules).  Returns the count
 * pinned (0: none); rs_pin_team_describe says which CPUs, or why none, for a header.
 * A thread a pinned one starts inherits its CPU: it calls rs_unpin_thread.  So does a
 * library's pool started after the pinning: OpenBLAS's workers share thread 0's CPU. */
int rs_pin_team(int threads);
const char *rs_pin_team_describe(void);

/* Run fn(ctx, tid) once on each of nthreads pinned threads (e.g. first-touch init). */
void rs_parallel(int nthreads, void (*fn)(void *ctx, int tid), void *ctx);

#endif
