/* bench_measure.c — one size of `allreduce-bench`: every algorithm checked, warmed up,
 * then timed in interleaved rounds, and its row's statistics over ranks and iterations.
 * The measurement alone, apart from options (bench_options.c) and output
 * (bench_output.c), so that what is timed, and what is not, is read in one place.
 * Not common/bench.h's loop: a collective is timed across ranks (barriers, the slowest
 * rank's time, OSU's methods), not as one process's kernel repeated in place.
 *
 * Rounds: each algorithm's iterations are split into ROUNDS chunks and the chunks of
 * all algorithms alternate (round 1: a b c, round 2: a b c, ...), so a slow spell of a
 * shared machine hits every algorithm alike instead of whichever ran then: the
 * comparison stays side by side.  One scratch buffer serves every plan
 * (ar_plan_reserve_in), so interleaving costs no memory. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "allreduce.h"
#include "ar_hooks.h"
#include "ar_pattern.h"
#include "bench_state.h"
#include "check.h"
#include "stats.h"

#define ROUNDS 5
#define SMALL_BYTES 8192          /* OSU's LARGE_MESSAGE_SIZE: defaults switch here */
#define MIN_ITERS 5               /* caps never go below this */
#define VOLUME_CAP (2.0 * (1L << 30)) /* bytes reduced per row, like IMB's OVERALL_VOL */

/* Time k calls: isolated = an untimed barrier before each; backtoback = one barrier,
 * then each call timed from the end of the previous one. */
static int timed_chunk(ar_plan *pl, const void *src, void *recv, size_t count, int mode, long k,
                       double *t)
{
    if (mode == 0) {
        for (long i = 0; i < k; i++) {
            ar_barrier(MPI_COMM_WORLD);
            double s = MPI_Wtime();
            if (ar_allreduce(pl, src, recv, count) != 0)
                return -1;
            t[i] = MPI_Wtime() - s;
        }
    } else {
        ar_barrier(MPI_COMM_WORLD);
        double prev = MPI_Wtime();
        for (long i = 0; i < k; i++) {
            if (ar_allreduce(pl, src, recv, count) != 0)
                return -1;
            double now = MPI_Wtime();
            t[i] = now - prev;
            prev = now;
        }
    }
    return 0;
}

/* Elements of recv that are wrong (0 with --no-check); one line per rank that found any. */
static long long check_output(ar_plan *pl, ar_dtype t, const char *recv, size_t count,
                              uint64_t seed, long bytes, const char *when)
{
    size_t first, bad = ar_pattern_check(recv, count, t, bench_run.op, seed, bench_run.p, &first);
    if (bad)
        fprintf(stderr, "%s: WRONG: %s %s %ld bytes%s, rank %d: %zu elements differ, first at "
                "[%zu]\n", rs_progname(), ar_plan_name(pl), ar_dtype_name(t), bytes, when,
                bench_run.rank, bad, first);
    return (long long)bad;
}

/* One algorithm's warm-up calls, each timed; their median replaces *est (the checked
 * call's time, which capped their number). */
static int warm_up(ar_plan *pl, const void *src, buffers *b, size_t count, long bytes,
                   double *est)
{
    long warmup = bench_opt.warmup;
    if (warmup < 0) {
        warmup = bytes <= SMALL_BYTES ? 200 : 10;
        double cap = *est > 0 ? 0.25 * bench_opt.max_time / *est : 1e9;
        if (warmup > cap)
            warmup = cap > 1 ? (long)cap : 1;
    }
    if (warmup > b->max_iters)
        warmup = b->max_iters;
    for (long i = 0; i < warmup; i++) {
        double s = MPI_Wtime();
        if (ar_allreduce(pl, src, b->recv, count) != 0)
            return -1;
        b->t_slow[i] = MPI_Wtime() - s;
    }
    if (warmup > 0) {
        rs_stats st;
        rs_stats_compute(b->t_slow, (int)warmup, &st);
        *est = st.median;
    }
    return 0;
}

int bench_measure_size(ar_plan **plans, ar_dtype t, long bytes, int size_index, int mode,
                       buffers *b, row *rows)
{
    const int n = bench_run.nsel;
    size_t es = ar_dtype_size(t), count = (size_t)bytes / es;
    const void *src = bench_opt.inplace ? MPI_IN_PLACE : b->send;
    uint64_t seed = (uint64_t)bench_opt.seed * 1000003u + (uint64_t)size_index;
    long long wrong[MAX_ALGOS] = {0};
    long iters[MAX_ALGOS], done[MAX_ALGOS] = {0};
    double est[MAX_ALGOS] = {0};

    /* 1. every algorithm checked once (its time is a first estimate); --timed-only keeps
     * it only for a first size of at most 64 KiB (a simulator's first small call of some
     * algorithms comes out up to 0.05% off), iterations being given and the last timed
     * output checked instead */
    static int first_done;  /* per rank (SMPI privatizes statics) */
    int precheck = !bench_opt.timed_only || (!first_done && bytes <= 65536);
    first_done = 1;
    if (!bench_opt.no_check && !bench_opt.inplace)
        ar_pattern_fill(b->send, count, t, seed, bench_run.rank);
    for (int a = 0; a < n && precheck; a++) {
        if (!bench_opt.no_check) {
            if (bench_opt.inplace)
                ar_pattern_fill(b->recv, count, t, seed, bench_run.rank);
            else
                memset(b->recv, 0xA5, count * es);
        }
        ar_barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        if (ar_allreduce(plans[a], src, b->recv, count) != 0)
            return -1;
        est[a] = MPI_Wtime() - t0;
        if (!bench_opt.no_check)
            wrong[a] += check_output(plans[a], t, b->recv, count, seed, bytes, "");
    }
    /* the slowest rank's estimate sizes the warm-up and the iterations, unless both are
     * given (a simulator's every agreement is p log p messages of its own time) */
    int need_est = bench_opt.iters < 0 || bench_opt.warmup < 0;
    if (need_est)
        ar_bookkeeping_allreduce(MPI_IN_PLACE, est, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);

    /* 2. warm-up: OSU's count capped by the checked call's time, each call timed; the
     * slowest rank's median warm-up call sizes the iterations (one call alone is a poor
     * estimate where ranks share cores) */
    for (int a = 0; a < n; a++)
        if (warm_up(plans[a], src, b, count, bytes, &est[a]) != 0)
            return -1;
    if (need_est)
        ar_bookkeeping_allreduce(MPI_IN_PLACE, est, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (int a = 0; a < n; a++) {
        iters[a] = bench_opt.iters;
        if (iters[a] < 0) {
            /* OSU's count, capped like IMB by time and by volume, never below MIN_ITERS */
            iters[a] = bytes <= SMALL_BYTES ? 1000 : 100;
            double cap_t = est[a] > 0 ? bench_opt.max_time / est[a] : 1e9;
            double cap_v = bytes > 0 ? VOLUME_CAP / (double)bytes : 1e9;
            double cap = cap_t < cap_v ? cap_t : cap_v;
            if (iters[a] > cap)
                iters[a] = cap > MIN_ITERS ? (long)cap : MIN_ITERS;
        }
        RS_ASSERT(iters[a] <= b->max_iters);
    }

    /* 3. the timed rounds (no allocation, no checks inside a chunk); an algorithm's
     * last chunk's output is checked before the next algorithm overwrites it */
    for (int r = 0; r < ROUNDS; r++)
        for (int a = 0; a < n; a++) {
            long k = iters[a] / ROUNDS + (r < iters[a] % ROUNDS);
            if (k == 0)
                continue;
            if (done[a] == 0 && !precheck && !bench_opt.no_check)  /* not the previous output */
                memset(b->recv, 0xA5, count * ar_dtype_size(t));
            if (timed_chunk(plans[a], src, b->recv, count, mode, k,
                            b->t_iter + (size_t)a * (size_t)b->max_iters + done[a]) != 0)
                return -1;
            done[a] += k;
            if (done[a] == iters[a] && !bench_opt.no_check && !bench_opt.inplace)
                wrong[a] += check_output(plans[a], t, b->recv, count, seed, bytes, " (after timing)");
        }

    /* 4. statistics over ranks and iterations */
    ar_bookkeeping_allreduce(MPI_IN_PLACE, wrong, n, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int a = 0; a < n; a++) {
        const double *ti = b->t_iter + (size_t)a * (size_t)b->max_iters;
        double sum = 0;
        for (long i = 0; i < iters[a]; i++)
            sum += ti[i];
        double mean = sum / (double)iters[a], lo, hi, tot;
        /* the books, not MPI_Reduce: a simulator's books cost no message */
        ar_bookkeeping_allreduce(&mean, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        ar_bookkeeping_allreduce(&mean, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        ar_bookkeeping_allreduce(&mean, &tot, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        ar_bookkeeping_allreduce(ti, b->t_slow, (int)iters[a], MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        row *rw = &rows[a];
        rw->algo = ar_plan_name(plans[a]);
        rw->bytes = bytes;
        rw->dtype = t;
        rw->mode = mode;
        rw->iters = iters[a];
        rw->wrong = wrong[a];
        if (bench_run.rank == 0) {
            rs_stats st;
            rs_stats_compute(b->t_slow, (int)iters[a], &st);
            rw->min_us = lo * 1e6;
            rw->max_us = hi * 1e6;
            rw->avg_us = tot / bench_run.p * 1e6;
            rw->p50_us = st.median * 1e6;
            rw->p99_us = st.p99 * 1e6;
            rw->model_us = ar_plan_model_s(plans[a], &bench_run.model.lo, (double)bytes,
                                           bench_opt.inplace) * 1e6;
            rw->model_hi_us = ar_plan_model_s(plans[a], &bench_run.model.hi, (double)bytes,
                                              bench_opt.inplace) * 1e6;
        }
    }
    return 0;
}
