/* bench_fit.c — the alpha-beta-gamma parameters `allreduce-bench` predicts with, as a
 * range (bench_fit.h).  Point-to-point cost on a real machine is not one line: it jumps
 * where the MPI switches protocols (eager, rendezvous, single-copy) and, with ranks
 * sharing cores, where a message needs the receiver scheduled.  So instead of one
 * least-squares line, two envelopes of measured times t(m), m = 8 B .. 64 MiB (every
 * power of two; 4 MiB with --quick):
 *
 * lo (model_us), the best case — one pair of ranks (rank 0 and p-1, the pair most
 *   likely on different nodes under block placement) ping-ponging on one buffer while
 *   the others wait, the fastest round trip of 11 batches:
 *     alpha = min over m <= 4 KiB of t(m) (or of the fastest ring step, below),
 *     beta = min over m >= 64 KiB of t(m) / m (or of the fastest ring step's);
 *   gamma and the copy: ar_reduce_local and memcpy in cache, the fastest per byte of 64
 *   timings each at 64 KiB, 256 KiB and 1 MiB;
 *   reductions overlap transfers (m->overlap = 1).
 * hi (model_hi_us), a line above every measurement of the worst case an allreduce step
 *   meets — every rank MPI_Sendrecv's to its right and from its left at once, from
 *   separate buffers (two of 64 MiB per rank at the largest: far beyond the LLC, as the
 *   send, receive and scratch buffers of a large allreduce are),
 *   slowest rank, slowest of 11 batches (a median left 64 MiB allreduces at np = 4
 *   on 2 shared cores 5-10% above the line):
 *     beta = max over m >= 1 MiB of t(m) / m,  alpha = max over m of (t(m) - m beta);
 *   gamma and the copy: every rank reducing and copying 64 MiB at once, slowest of 5
 *   (memory bandwidth here swings 2x from minute to minute; a median of 3 left 32-64 MiB
 *   allreduces 5-15% above the line), slowest rank; no overlap (m->overlap = 0).  Never below lo.
 *   scratch (what `library` pays for the buffer Open MPI mallocs per call): every rank
 *   mapping, first-touching and unmapping 64 MiB at once, median of 3, slowest rank
 *   (lo: 0, the allocator reusing memory).
 *   Where the algorithm is the library's own choice, hi takes the slowest candidate and
 *   lo the fastest (m->worst).
 * One message = half a round trip of the ping-pong, or one step of the ring.  Times are
 * MPI_Wtime: under SMPI that is simulated time, as it must be (the SMPI build measures
 * only on a platform that does not state its parameters: scaling/sim/smpi_fit.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ar_hooks.h"
#include "bench_fit.h"
#include "bench_platform.h"
#include "check.h"
#include "stats.h"

/* Batches per measurement: noise on a shared machine comes in spells, and 11 batches
 * spread over the fit are more likely than 5 to see both a quiet moment (lo) and a
 * loud one (hi; with 5, 32 MiB allreduces at np = 2 sometimes ended 1-5% above it). */
#define BATCHES 11

/* A barrier that sleeps while it waits: the ranks outside a ping-pong then leave the
 * pair the CPUs.  np = 4 on 2 shared cores, best-case latency: polling in MPI_Barrier
 * 1.4-2.3 us in 8 of 8 fits, sleeping 0.40-0.59 us in 11 of 13 (0.99 and 2.1 in the
 * others).  The best-case bandwidth varies from fit to fit (5.3-11.6 GB/s) either way. */
static void sleepy_barrier(MPI_Comm comm)
{
    MPI_Request rq;
    int done = 0;
    MPI_Ibarrier(comm, &rq);
    MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    while (!done) {
        struct timespec ts = {0, 20000};
        nanosleep(&ts, NULL);
        MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
    }
}

/* Half round-trip time of `bytes` between me and peer (who also calls this): the
 * fastest single round trip of all batches, as the lower end compares with medians of
 * single calls (a batch's mean carries its spikes; at np = 2 it left 4 B allreduces
 * 25% below the fitted latency).  Ranks with peer < 0 only join the (sleeping) barriers. */
static double pingpong_s(MPI_Comm comm, int me, int peer, char *sbuf, char *rbuf, int bytes,
                         int reps)
{
    double best = 1e30;
    for (int b = 0; b < BATCHES; b++) {
        sleepy_barrier(comm);
        if (peer < 0)
            continue;
        for (int r = 0; r < reps; r++) {
            double t0 = MPI_Wtime();
            if (me < peer) {
                MPI_Send(sbuf, bytes, MPI_BYTE, peer, 7, comm);
                MPI_Recv(rbuf, bytes, MPI_BYTE, peer, 7, comm, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(rbuf, bytes, MPI_BYTE, peer, 7, comm, MPI_STATUS_IGNORE);
                MPI_Send(sbuf, bytes, MPI_BYTE, peer, 7, comm);
            }
            double t = (MPI_Wtime() - t0) / 2.0;
            best = t < best ? t : best;
        }
    }
    return best;
}

/* Time of one ring step: every rank sends `bytes` right and receives from the left at
 * once (MPI_Sendrecv), as each step of a ring, Rabenseifner or recursive doubling does.
 * Timed as the benchmark's isolated mode times a call: a barrier before each step, the
 * slowest rank's time per step, the median over a batch's steps (back-to-back batch
 * means ran a 4 B recursive doubling at np = 2 25% above the fitted worst latency: a
 * step right after a barrier pays the wake-up a stream of steps amortizes).  Returns
 * the slowest of the batches (the worst contended step) and stores the fastest single
 * step in *fastest (what the best case must not exceed: the steps inside an allreduce
 * follow each other without a barrier).  At most AR_FIT_MAX_REPS steps a batch. */
#define AR_FIT_MAX_REPS 100
static double ringstep_s(MPI_Comm comm, int me, int p, char *sbuf, char *rbuf, int bytes, int reps,
                         double *fastest)
{
    double t[BATCHES], tr[AR_FIT_MAX_REPS], best = 1e30;
    rs_stats st;
    reps = reps < AR_FIT_MAX_REPS ? reps : AR_FIT_MAX_REPS;
    for (int b = 0; b < BATCHES; b++) {
        for (int r = 0; r < reps; r++) {
            MPI_Barrier(comm);
            double t0 = MPI_Wtime();
            MPI_Sendrecv(sbuf, bytes, MPI_BYTE, (me + 1) % p, 8, rbuf, bytes, MPI_BYTE,
                         (me + p - 1) % p, 8, comm, MPI_STATUS_IGNORE);
            tr[r] = MPI_Wtime() - t0;
        }
        ar_bookkeeping_allreduce(MPI_IN_PLACE, tr, reps, MPI_DOUBLE, MPI_MAX, comm);
        rs_stats_compute(tr, reps, &st);
        t[b] = st.median;
        best = st.min < best ? st.min : best;
    }
    rs_stats_compute(t, BATCHES, &st);
    *fastest = best;
    return st.max;
}

/* Seconds per byte to reduce (copy = 0) or memcpy (copy = 1) `bytes`: the fastest
 * (best = 1) or the slowest (best = 0) of reps (at most 64) timings. */
static double local_s(ar_dtype t, ar_op op, size_t bytes, int reps, int copy, int best)
{
    size_t es = ar_dtype_size(t), n = bytes / es;
    char *a = ar_big_calloc(n, es), *b = ar_big_calloc(n, es);
    double ts[64] = {0};
    reps = reps > 64 ? 64 : reps;
    if (a && b) {   /* pages touched first: their faults are the scratch term's, not these */
        memset(a, 1, n * es);
        memset(b, 2, n * es);
        for (int r = 0; r < reps; r++) {
            double t0 = MPI_Wtime();
            if (copy)
                memcpy(a, b, n * es);
            else
                ar_reduce_local(a, b, n, t, op);
            ts[r] = MPI_Wtime() - t0;
        }
    }
    ar_big_free(a);
    ar_big_free(b);
    rs_stats st;
    rs_stats_compute(ts, reps, &st);
    return (best ? st.min : st.max) / (double)(n * es);
}

/* Seconds per byte of a scratch buffer of `bytes` taken afresh: mmap, a write to every
 * page (the first touch: a page fault and the page zeroed), munmap — what a malloc
 * beyond glibc's mmap threshold costs inside an MPI call that frees it again.  Median
 * of 3. */
static double fresh_scratch_s(size_t bytes)
{
    double ts[3];
    long page = sysconf(_SC_PAGESIZE);
    for (int r = 0; r < 3; r++) {
        double t0 = MPI_Wtime();
        char *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return 0;
        for (size_t i = 0; i < bytes; i += (size_t)page)
            ((volatile char *)p)[i] = 1;
        munmap(p, bytes);
        ts[r] = MPI_Wtime() - t0;
    }
    rs_stats st;
    rs_stats_compute(ts, 3, &st);
    return st.median / (double)bytes;
}

void ar_fit_model(MPI_Comm comm, ar_dtype t, ar_op op, int quick, int net, ar_model_range *m,
                  char *how, size_t howlen)
{
    if (ar_fit_from_platform(comm, m, how, howlen))
        return;
    int me, p;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &p);
    const int big = quick ? 4 << 20 : 64 << 20;  /* two such buffers per rank: past the LLC */
    char *sbuf = NULL, *rbuf = NULL;
    double lo[4] = {0, 0, 0, 0}, hi[4] = {0, 0, 0, 0};  /* alpha, beta, gamma, copy */

    if (p > 1 && net) {
        sbuf = ar_big_malloc((size_t)big), rbuf = ar_big_malloc((size_t)big);
        RS_ASSERT(sbuf && rbuf);   /* 128 MiB a rank at most */
        memset(sbuf, 1, (size_t)big);
        memset(rbuf, 2, (size_t)big);
        enum { MAXN = 24 };
        double sz[MAXN], tpp[MAXN], trs[MAXN], trs_min[MAXN];
        int n = 0;
        int peer = me == 0 ? p - 1 : me == p - 1 ? 0 : -1;
        /* every power of two from 8 B to `big`: a protocol switch (Open MPI's shared-memory
         * eager limit is 4 KiB: a 4 KiB message already goes by rendezvous) or a cache's
         * sweet spot (at np = 2 here 1 MiB messages moved faster per byte than 512 KiB or
         * 2 MiB ones) is then in the fit, not only between its points */
        for (long next = 8; n < MAXN; next *= 2) {
            int bytes = next < big ? (int)next : big;
            int reps = bytes <= 4096 ? 100 : bytes <= (256 << 10) ? 20 : bytes <= (4 << 20) ? 4 : 2;
            sz[n] = bytes;
            tpp[n] = pingpong_s(comm, me, peer, sbuf, sbuf, bytes, reps);
            trs[n] = ringstep_s(comm, me, p, sbuf, rbuf, bytes, reps, &trs_min[n]);
            n++;
            if (bytes == big)
                break;
        }
        /* lo: the best latency (ping-pong or ring step) and the best bandwidth seen
         * (rank 0's ping-pong) */
        lo[0] = tpp[0];
        lo[1] = 1e30;
        for (int i = 0; i < n; i++) {
            if (sz[i] <= 4096 && tpp[i] < lo[0])
                lo[0] = tpp[i];
            if (sz[i] <= 4096 && trs_min[i] < lo[0])
                lo[0] = trs_min[i];
            if (sz[i] >= (64 << 10) && tpp[i] / sz[i] < lo[1])
                lo[1] = tpp[i] / sz[i];
            if (sz[i] >= (64 << 10) && trs_min[i] / sz[i] < lo[1])
                lo[1] = trs_min[i] / sz[i];
        }
        MPI_Bcast(lo, 2, MPI_DOUBLE, 0, comm);
        /* hi: above every ring-step point (already the slowest rank's) */
        for (int i = 0; i < n; i++)
            if (sz[i] >= (1 << 20) && trs[i] / sz[i] > hi[1])
                hi[1] = trs[i] / sz[i];
        for (int i = 0; i < n; i++)
            if (trs[i] - sz[i] * hi[1] > hi[0])
                hi[0] = trs[i] - sz[i] * hi[1];
    }
    if (me == 0) {
        /* in cache at its best: the fastest per byte over 64 KiB .. 1 MiB (the blocks of
         * a 1-4 MiB allreduce), many short timings (noise here comes in spells) */
        lo[2] = lo[3] = 1e30;
        for (size_t b = 64 << 10; b <= (1 << 20); b *= 4) {
            double r = local_s(t, op, b, 64, 0, 1), c = local_s(t, op, b, 64, 1, 1);
            lo[2] = r < lo[2] ? r : lo[2];
            lo[3] = c < lo[3] ? c : lo[3];
        }
    }
    MPI_Barrier(comm);
    hi[2] = local_s(t, op, 64 << 20, 5, 0, 0);  /* every rank at once */
    MPI_Barrier(comm);
    hi[3] = local_s(t, op, 64 << 20, 5, 1, 0);
    MPI_Barrier(comm);
    double scratch = fresh_scratch_s((size_t)big);
    MPI_Bcast(lo, 4, MPI_DOUBLE, 0, comm);
    ar_bookkeeping_allreduce(MPI_IN_PLACE, hi, 4, MPI_DOUBLE, MPI_MAX, comm);
    ar_bookkeeping_allreduce(MPI_IN_PLACE, &scratch, 1, MPI_DOUBLE, MPI_MAX, comm);
    for (int i = 0; i < 4; i++)
        hi[i] = hi[i] > lo[i] ? hi[i] : lo[i];
    /* the best case hides reductions behind transfers and finds its scratch reused (no
     * page faults per call below 32 MiB, counted); the worst does neither */
    m->lo = (ar_model){.alpha_s = lo[0], .beta_s_per_byte = lo[1], .gamma_s_per_byte = lo[2],
                       .copy_s_per_byte = lo[3], .overlap = 1, .scratch_s_per_byte = 0, .worst = 0};
    m->hi = (ar_model){.alpha_s = hi[0], .beta_s_per_byte = hi[1], .gamma_s_per_byte = hi[2],
                       .copy_s_per_byte = hi[3], .overlap = 0, .scratch_s_per_byte = scratch,
                       .worst = 1};
    if (p > 1 && !net)
        snprintf(how, howlen, "network: the command line's; %s %s reduce and copy of 64 KiB-1 MiB (lo), "
                 "64 MiB (hi)", ar_dtype_name(t), ar_op_name(op));
    else if (p > 1)
        snprintf(how, howlen, "lo: best of a ping-pong rank 0 <-> %d, %s %s reduce and copy of 64 KiB-1 MiB; "
                 "hi: above ring steps (all ranks at once), all ranks reducing, copying and "
                 "taking fresh scratch of %d MiB; 8 B..%d MiB", p - 1, ar_dtype_name(t),
                 ar_op_name(op), big >> 20, big >> 20);
    else
        snprintf(how, howlen, "p = 1: no messages; %s %s reduce and copy of 64 KiB-1 MiB (lo), 64 MiB (hi)",
                 ar_dtype_name(t), ar_op_name(op));
    ar_big_free(sbuf);
    ar_big_free(rbuf);
}
