/* bench.c — warm-up, adaptive repetitions and sampling; threads and pinning.
 *
 * The timed region of a multi-threaded sample is barrier-to-barrier on the master
 * thread, so a sample is the time the slowest thread needed (what a parallel
 * program waits for). */
#define _GNU_SOURCE
#include "bench.h"

#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"
#include "timer.h"

rs_bench_cfg rs_bench_defaults(int quick)
{
    rs_bench_cfg c = {.warmup_s = 0.02, .min_sample_s = 1e-4, .min_samples = 11,
                      .max_samples = 1000, .min_time_s = 0.1, .max_time_s = 5};
    if (quick) {
        c.warmup_s = 0.005;
        c.min_samples = 5;
        c.min_time_s = 0.02;
        c.max_time_s = 1;
    }
    return c;
}

int rs_ncpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* The CPUs this process was started on (taskset, Slurm, mpirun binding), captured
 * before anything pinned a thread: thread i is pinned to the i-th of them, so two
 * studies started under different `taskset`s do not collide on CPU 0. */
static cpu_set_t start_mask;
static int start_count;

__attribute__((constructor)) static void capture_start_mask(void)
{
    if (sched_getaffinity(0, sizeof start_mask, &start_mask) == 0)
        start_count = CPU_COUNT(&start_mask);
}

int rs_pin_thread(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    if (start_count > 0) {
        int want = cpu % start_count, seen = 0;
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &start_mask) && seen++ == want) {
                CPU_SET(c, &set);
                break;
            }
    } else {
        CPU_SET(cpu % rs_ncpus(), &set);
    }
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -1;
}

int rs_unpin_thread(void)
{
    if (start_count <= 0)
        return -1;
    return sched_setaffinity(0, sizeof start_mask, &start_mask) == 0 ? 0 : -1;
}

static char team_pins[160] = "none (one thread)";

int rs_pin_team(int threads)
{
    static const char *vars[] = {"OMP_PROC_BIND", "OMP_PLACES", "GOMP_CPU_AFFINITY"};
    if (threads <= 1)
        return 0;
    for (int i = 0; i < 3; i++)
        if (getenv(vars[i])) {
            snprintf(team_pins, sizeof team_pins, "none here (%s is set)", vars[i]);
            return 0;
        }
    if (start_count < threads) {
        snprintf(team_pins, sizeof team_pins, "none (%d threads, %d CPUs)", threads, start_count);
        return 0;
    }
    int team = 0, failed = 0;
#pragma omp parallel num_threads(threads)
    if (omp_get_thread_num() == 0)
        team = omp_get_num_threads();
    if (team != threads) {   /* OMP_THREAD_LIMIT, or no OpenMP (the SMPI builds) */
        snprintf(team_pins, sizeof team_pins, "none (a team of %d)", team);
        return 0;
    }
#pragma omp parallel num_threads(threads) reduction(+ : failed)
    failed += rs_pin_thread(omp_get_thread_num()) != 0;
    if (failed) {
#pragma omp parallel num_threads(threads)
        rs_unpin_thread();
        snprintf(team_pins, sizeof team_pins, "none (refused)");
        return 0;
    }
    int used = snprintf(team_pins, sizeof team_pins, "cpus");
    for (int c = 0, n = 0; c < CPU_SETSIZE && n < threads && used < (int)sizeof team_pins; c++)
        if (CPU_ISSET(c, &start_mask))
            used += snprintf(team_pins + used, sizeof team_pins - (size_t)used, "%s%d",
                             n++ ? "," : " ", c);
    return threads;
}

const char *rs_pin_team_describe(void) { return team_pins; }

void rs_parallel(int nthreads, void (*fn)(void *ctx, int tid), void *ctx)
{
#pragma omp parallel num_threads(nthreads)
    {
        int tid = omp_get_thread_num();
        rs_pin_thread(tid);
        fn(ctx, tid);
    }
}

static void (*count_start)(void);
static void (*count_stop)(rs_counts *out);

void rs_bench_count_with(void (*start)(void), void (*stop)(rs_counts *out))
{
    count_start = start;
    count_stop = stop;
}

/* sum += c, field by field; a field either side could not count (-1) stays -1. */
static void counts_add(rs_counts *sum, const rs_counts *c)
{
    sum->cycles = sum->cycles < 0 || c->cycles < 0 ? -1 : sum->cycles + c->cycles;
    sum->instructions = sum->instructions < 0 || c->instructions < 0 ? -1
                                                                     : sum->instructions + c->instructions;
    sum->fp_ops = sum->fp_ops < 0 || c->fp_ops < 0 ? -1 : sum->fp_ops + c->fp_ops;
}

/* One sample: all threads run `reps` repetitions between two barriers.  With `counts`
 * (and counting installed), every thread's counts of it are added there. */
static double run_sample(int nthreads, rs_kernel_fn fn, void *ctx, long reps, rs_counts *counts)
{
    uint64_t t0 = 0, t1 = 0;
    int count = counts && count_start && count_stop;
    if (nthreads == 1) {
        rs_counts c;
        if (count)
            count_start();
        t0 = rs_now_ns();
        fn(ctx, 0, reps);
        t1 = rs_now_ns();
        if (count) {
            count_stop(&c);
            counts_add(counts, &c);
        }
        return (double)(t1 - t0);
    }
#pragma omp parallel num_threads(nthreads)
    {
        int tid = omp_get_thread_num();
        rs_pin_thread(tid);
        if (count)
            count_start();
#pragma omp barrier
#pragma omp master
        t0 = rs_now_ns();
        fn(ctx, tid, reps);
#pragma omp barrier
#pragma omp master
        t1 = rs_now_ns();
        if (count) {
            rs_counts c;
            count_stop(&c);
#pragma omp critical(rs_bench_counts)
            counts_add(counts, &c);
        }
    }
    return (double)(t1 - t0);
}

/* Totals over n samples of reps repetitions to per repetition; NAN where not counted. */
static double per_rep(long long total, int n, long reps)
{
    return total >= 0 && count_start ? (double)total / ((double)n * (double)reps) : NAN;
}

/* Warm-up (caches, page faults, frequency) while finding reps per sample: > 0, or -1
 * if interrupted. */
static long calibrate(const rs_bench_cfg *cfg, int nthreads, rs_kernel_fn fn, void *ctx)
{
    double floor_ns = fmax(20 * rs_timer_granularity_ns(), cfg->min_sample_s * 1e9);
    long reps = 1;
    double spent = 0, t;
    for (;;) {
        t = run_sample(nthreads, fn, ctx, reps, NULL);
        spent += t;
        if (t >= floor_ns && spent >= cfg->warmup_s * 1e9)
            return reps;
        if (t < floor_ns)
            reps = t > 0 ? (long)ceil(reps * fmin(floor_ns * 1.2 / t, 100.0)) : reps * 10;
        if (rs_interrupted()) {
            rs_seterr("interrupted");
            return -1;
        }
    }
}

int rs_bench(const rs_bench_cfg *cfg, int nthreads, rs_kernel_fn fn, void *ctx,
             rs_bench_result *out)
{
    void *ctxs[1] = {ctx};
    return rs_bench_rounds(cfg, nthreads, 1, fn, ctxs, out);
}

int rs_bench_rounds(const rs_bench_cfg *cfg, int nthreads, int nk, rs_kernel_fn fn,
                    void *const ctx[], rs_bench_result out[])
{
    RS_CHECK(nthreads >= 1, "threads must be at least 1 (got %d)", nthreads);
    RS_CHECK(nk >= 1, "no kernel to time");
    if (nthreads == 1)
        rs_pin_thread(0);
    long *reps = malloc(sizeof *reps * (size_t)nk);
    int cap = cfg->max_samples > 0 ? cfg->max_samples : 1000;
    double *s = malloc(sizeof *s * (size_t)cap * (size_t)nk);
    rs_counts *counts = calloc((size_t)nk, sizeof *counts);   /* totals over the samples */
    if (!reps || !s || !counts) {
        free(reps);
        free(s);
        free(counts);
        RS_CHECK(0, "out of memory for %d x %d samples", nk, cap);
    }
    int rc = 0, n = 0;
    for (int k = 0; k < nk && rc == 0; k++)
        rc = (reps[k] = calibrate(cfg, nthreads, fn, ctx[k])) > 0 ? 0 : -1;
    uint64_t start = rs_now_ns();
    while (rc == 0) {   /* one sample of each kernel per round */
        for (int k = 0; k < nk; k++)
            s[(size_t)k * cap + n] = run_sample(nthreads, fn, ctx[k], reps[k], &counts[k]) / (double)reps[k];
        n++;
        double el = (double)(rs_now_ns() - start) * 1e-9;
        if (n >= cap || el >= nk * cfg->max_time_s)
            break;
        if (n >= cfg->min_samples && el >= nk * cfg->min_time_s)
            break;
        if (rs_interrupted()) {
            rs_seterr("interrupted");
            rc = -1;
        }
    }
    for (int k = 0; k < nk && rc == 0; k++) {
        rs_stats_compute(s + (size_t)k * cap, n, &out[k].ns);
        out[k].reps = reps[k];
        out[k].threads = nthreads;
        out[k].cycles = per_rep(counts[k].cycles, n, reps[k]);
        out[k].instructions = per_rep(counts[k].instructions, n, reps[k]);
        out[k].fp_ops = per_rep(counts[k].fp_ops, n, reps[k]);
    }
    free(reps);
    free(s);
    free(counts);
    return rc;
}
