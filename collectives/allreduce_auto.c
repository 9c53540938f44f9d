/* allreduce_auto.c — per message-size band, the allreduce to run, the MPI library's own
 * included, chosen by measuring the candidates where the call runs (Open MPI's dynamic
 * rules and MPICH's tuning files choose from tables written elsewhere).
 *
 * Bands: the power of two of bytes that holds count elements.  At the first call of a
 * band every candidate is timed on a scratch vector of that count, the way the call
 * runs: from the caller's send buffer when it is not in place (a project algorithm
 * then pays its copy into the receive buffer, as in the real call), in place
 * otherwise.  One untimed call each, then rounds (tune_reps) in which the candidates
 * take turns (an untimed call, a barrier, the timed one), so a slow spell of a shared
 * machine hits them alike; each keeps its median, and the ranks agree on the slowest
 * rank's median per candidate (MPI_MAX), so all pick the same.
 *
 * Hysteresis: the library is every band's current choice until a candidate beats it by
 * AUTO_MARGIN.  The gaps between the candidates at mid sizes are of the order of the
 * run-to-run noise (a few percent on 2 shared cores), and a choice made on noise
 * loses to the library as often as it wins; the library is the choice to keep because
 * it is what the caller would run without auto, so auto can lose to it by no more than
 * the noise of one band's measurement.
 *
 * Tuning is collective, as the call is (every rank passes the same count), and costs
 * 7 to 31 calls of each candidate once per band (~1 s at 64 MiB on 2 ranks): outside
 * any timed region when the caller warms up (the benchmark's checked call does).  Later calls of the band run
 * the choice, in place or not.  The candidates share one scratch buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ar_internal.h"
#include "check.h"
#include "stats.h"

static const ar_algo *const candidates[] = {&allreduce_ring, &allreduce_segring,
                                           &allreduce_rabenseifner, &allreduce_recdbl,
                                           &allreduce_hier, &allreduce_library};
enum { NCAND = (int)(sizeof candidates / sizeof candidates[0]), NCLASS = 64, LIBRARY = NCAND - 1,
       AUTO_REPS_MAX = 15 };
/* A candidate replaces the library only when at least this much faster (see above). */
#define AUTO_MARGIN 0.10

typedef struct {
    ar_plan *sub[NCAND];
    signed char pick[NCLASS];   /* per size class: the candidate, -1 until measured */
} autosel;

/* Cost: the fastest candidate's model (the measured choice aims at it). */
static double auto_model_s(const ar_model *m, const ar_params *prm, int p, double n)
{
    ar_params cp = *prm;
    cp.library_alg = 0;
    double t = candidates[0]->model_s(m, &cp, p, n);
    for (int i = 1; i < NCAND; i++) {
        double c = candidates[i]->model_s(m, &cp, p, n);
        t = c < t ? c : t;
    }
    return t;
}

static int auto_setup(ar_plan *pl)
{
    autosel *a = calloc(1, sizeof *a);
    RS_CHECK(a, "out of memory");
    memset(a->pick, -1, sizeof a->pick);
    pl->priv = a;
    ar_params cp = pl->prm;
    cp.library_alg = 0;
    for (int i = 0; i < NCAND; i++)   /* collective, every rank in the same order */
        if (ar_plan_create(candidates[i], &cp, pl->comm, pl->dtype, pl->op, &a->sub[i]) != 0)
            return -1;
    snprintf(pl->describe, sizeof pl->describe, "auto: per size band, library unless one of ring, "
             "segring, rabenseifner, recdbl, hier measures >= %.0f%% faster", AUTO_MARGIN * 100);
    return 0;
}

static size_t round64(size_t b) { return (b + 63) / 64 * 64; }

static size_t auto_scratch_bytes(const ar_plan *pl, size_t count)
{
    const autosel *a = pl->priv;
    size_t most = 0;
    for (int i = 0; i < NCAND; i++) {
        size_t b = ar_plan_scratch_bytes(a->sub[i], count);
        most = b > most ? b : most;
    }
    return round64(count * pl->esize) + round64(most);
}

static int auto_reserve(ar_plan *pl, size_t count)
{
    autosel *a = pl->priv;
    size_t tune = round64(count * pl->esize);   /* the vector timed on comes first */
    for (int i = 0; i < NCAND; i++)
        if (ar_plan_reserve_in(a->sub[i], count, (char *)pl->scratch + tune,
                               pl->scratch_size - tune) != 0)
            return -1;
    return 0;
}

static int size_class(size_t bytes)
{
    int k = 0;
    while (((size_t)1 << k) < bytes && k < NCLASS - 1)
        k++;
    return k;
}

/* Timed rounds per band: every rank computes the same number from count, so the
 * collective calls match.  Up to 1 MiB a call is at most ~0.2 ms here, and 15 rounds
 * give a median that one preempted call does not move; beyond, fewer rounds keep a
 * band's tuning near a second at 64 MiB. */
static int tune_reps(size_t bytes)
{
    if (ar_times_exact())   /* a simulator's clock: one round says it all */
        return 1;
    return bytes <= (1u << 20) ? AUTO_REPS_MAX : bytes <= (16u << 20) ? 5 : 3;
}

/* Collective: every candidate timed on count elements (zeros, or the caller's send
 * buffer, which is only read), in turns; the slowest rank's median per candidate
 * decides, the library kept unless beaten by AUTO_MARGIN. */
static int tune(ar_plan *pl, autosel *a, const void *sendbuf, size_t count, int cls)
{
    double dt[NCAND][AUTO_REPS_MAX], t[NCAND], worst[NCAND];
    void *v = pl->scratch;
    int reps = tune_reps(count * pl->esize);
    ar_big_touch(v, count * pl->esize);
    for (int i = 0; i < NCAND; i++)
        if (ar_allreduce(a->sub[i], sendbuf, v, count) != 0)
            return -1;
    /* Each turn starts with an untimed call: the candidate before it evicted this one's
     * buffers (the library's own malloc'd scratch too), while the caller's calls of a
     * band come back to back.  Without it the library timed 1.2-1.35x its steady state
     * at 1-4 MiB and lost bands it wins. */
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < NCAND; i++) {
            if (ar_allreduce(a->sub[i], sendbuf, v, count) != 0)
                return -1;
            AR_MPI(ar_barrier(pl->comm));
            double t0 = MPI_Wtime();
            if (ar_allreduce(a->sub[i], sendbuf, v, count) != 0)
                return -1;
            dt[i][r] = MPI_Wtime() - t0;
        }
    /* The median, not the fastest: the caller pays a typical call, and an algorithm
     * with more messages has the longer tail on a shared machine (timed in place on
     * the fastest of 3, hier looked 10% ahead of the library at 256 KiB, where it
     * ran 1.2x slower). */
    for (int i = 0; i < NCAND; i++) {
        rs_stats st;
        rs_stats_compute(dt[i], reps, &st);
        t[i] = st.median;
    }
    AR_MPI(ar_bookkeeping_allreduce(t, worst, NCAND, MPI_DOUBLE, MPI_MAX, pl->comm));
    int best = LIBRARY;
    for (int i = 0; i < NCAND; i++)
        if (i != LIBRARY && worst[i] < worst[best])
            best = i;
    if (!(worst[best] < (1 - AUTO_MARGIN) * worst[LIBRARY]))
        best = LIBRARY;
    a->pick[cls] = (signed char)best;
    return 0;
}

/* The caller's buffers go to the choice as given: the library's MPI_Allreduce out of
 * place costs less than a copy and then in place. */
static int auto_run(ar_plan *pl, const void *sendbuf, void *buf, size_t count)
{
    autosel *a = pl->priv;
    int cls = size_class(count * pl->esize);
    if (pl->p == 1 || count == 0)
        a->pick[cls] = 0;   /* nothing to choose between: a copy at most */
    if (a->pick[cls] < 0 && tune(pl, a, sendbuf == buf ? MPI_IN_PLACE : sendbuf, count, cls) != 0)
        return -1;
    return ar_allreduce(a->sub[a->pick[cls]], sendbuf, buf, count);
}

static void auto_teardown(ar_plan *pl)
{
    autosel *a = pl->priv;
    if (!a)
        return;
    for (int i = 0; i < NCAND; i++)
        ar_plan_free(a->sub[i]);
    free(a);
    pl->priv = NULL;
}

const ar_algo allreduce_auto = {
    .name = "auto",
    .summary = "per size band, the library unless ring, segring, rabenseifner, recdbl or hier measures 10% faster at its first call",
    .cost = "min of the candidates'",
    .model_s = auto_model_s,
    .setup = auto_setup,
    .scratch_bytes = auto_scratch_bytes,
    .reserve = auto_reserve,
    .run = auto_run,
    .teardown = auto_teardown,
    .flags = AR_OWN_SENDBUF,
};
