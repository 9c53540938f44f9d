/* allreduce_auto.c — the fastest allreduce per message size, the MPI library's own
 * included, chosen by measuring them where the call runs (Open MPI's dynamic rules and
 * MPICH's tuning files choose from tables written elsewhere).
 *
 * At the first call of each size class (the power of two of bytes that holds count
 * elements) every candidate runs on a zeroed scratch vector of that count: one untimed
 * call, then AUTO_REPS timed ones after a barrier (one beyond 16 MiB), the fastest kept.
 * The ranks agree on the slowest rank's time per candidate (MPI_MAX), so all pick the
 * same one, and every later call of that class runs it.  Tuning is collective, as the
 * call is (every rank passes the same count), and costs about 4 calls of each
 * candidate once per class: outside any timed region when the caller warms up (the
 * benchmark's checked call does).  The candidates share one scratch buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ar_internal.h"
#include "check.h"

static const ar_algo *const candidates[] = {&allreduce_ring, &allreduce_segring,
                                           &allreduce_rabenseifner, &allreduce_recdbl,
                                           &allreduce_hier, &allreduce_library};
enum { NCAND = (int)(sizeof candidates / sizeof candidates[0]), NCLASS = 64, AUTO_REPS = 3 };

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
    snprintf(pl->describe, sizeof pl->describe, "auto: per size, the fastest measured of ring, "
             "segring, rabenseifner, recdbl, hier, library");
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

/* Collective: every candidate timed on count zeros; the slowest rank's best per
 * candidate decides. */
static int tune(ar_plan *pl, autosel *a, size_t count, int cls)
{
    double t[NCAND], worst[NCAND];
    void *v = pl->scratch;
    int reps = count * pl->esize > (16u << 20) ? 1 : AUTO_REPS;
    ar_big_touch(v, count * pl->esize);
    for (int i = 0; i < NCAND; i++) {
        if (ar_allreduce(a->sub[i], MPI_IN_PLACE, v, count) != 0)
            return -1;
        t[i] = 1e300;
        for (int r = 0; r < reps; r++) {
            AR_MPI(ar_barrier(pl->comm));
            double t0 = MPI_Wtime();
            if (ar_allreduce(a->sub[i], MPI_IN_PLACE, v, count) != 0)
                return -1;
            double dt = MPI_Wtime() - t0;
            t[i] = dt < t[i] ? dt : t[i];
        }
    }
    AR_MPI(ar_bookkeeping_allreduce(t, worst, NCAND, MPI_DOUBLE, MPI_MAX, pl->comm));
    int best = 0;
    for (int i = 1; i < NCAND; i++)
        if (worst[i] < worst[best])
            best = i;
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
    if (a->pick[cls] < 0 && tune(pl, a, count, cls) != 0)
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
    .summary = "per size, the fastest of ring, segring, rabenseifner, recdbl, hier and library, measured at its first call",
    .cost = "min of the candidates'",
    .model_s = auto_model_s,
    .setup = auto_setup,
    .scratch_bytes = auto_scratch_bytes,
    .reserve = auto_reserve,
    .run = auto_run,
    .teardown = auto_teardown,
    .flags = AR_OWN_SENDBUF,
};
