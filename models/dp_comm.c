/* dp_comm.c — MPI for rnn-train (dp_comm.h): start-up only under a launcher, the
 * agreement on errors, small reductions, and the gradient exchange through the
 * collectives registry.  Compiled with $(MPICC) (models/models.mk). */
#include "dp_comm.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "allreduce.h"
#include "check.h"
#include "train_platform.h"

static int started, rank, size = 1, thread_level;

/* mpirun (Open MPI, PMIx) sets these, smpirun SMPI_GLOBAL_SIZE; a singleton MPI_Init
 * would cost time and can print warnings, so a plain run stays without MPI. */
static int launched(void)
{
    return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("SMPI_GLOBAL_SIZE");
}

int dp_comm_start(int *argc, char ***argv)
{
    if (!launched())
        return 0;
    for (int i = 1; i < *argc; i++)   /* library:K needs its setting before MPI_Init */
        if (strstr((*argv)[i], "library:"))
            ar_library_prepare_env();
    /* --sync bucketed's communication thread calls MPI while this one does not */
    RS_CHECK(MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &thread_level) == MPI_SUCCESS,
             "MPI_Init_thread failed");
    started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return train_platform_start();
}

void dp_comm_finish(void)
{
    if (started)
        MPI_Finalize();
    started = 0;
}

int dp_comm_rank(void) { return rank; }
int dp_comm_size(void) { return size; }
int dp_comm_active(void) { return started; }
int dp_comm_threads_ok(void) { return !started || thread_level >= MPI_THREAD_SERIALIZED; }

int dp_comm_agree(int rc)
{
    if (!started)
        return rc ? -1 : 0;
    return ar_agree(MPI_COMM_WORLD, rc);
}

void dp_comm_sum_doubles(double *v, int n)
{
    if (started)
        MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

int dp_comm_same_u64(uint64_t v)
{
    if (!started)
        return 1;
    unsigned long long mine[2] = {v, ~v}, agg[2];
    MPI_Allreduce(mine, agg, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return agg[0] == v && agg[1] == ~v;   /* max == min == v */
}

void dp_comm_gather_floats(const float *mine, long n, float *all)
{
    if (!started) {
        memcpy(all, mine, (size_t)n * sizeof(float));
        return;
    }
    MPI_Gather(mine, (int)n, MPI_FLOAT, all, (int)n, MPI_FLOAT, 0, MPI_COMM_WORLD);
}

/* ---- the gradient exchange ---- */
struct dp_exchange {
    ar_plan *plan;
};

static int exchange_params(const dp_exchange_opts *xo, const ar_algo **a, ar_params *prm)
{
    *prm = ar_params_default();
    if (ar_algo_parse(xo->algo, a, prm) != 0)
        return -1;
    if (xo->group_size > 0)
        prm->group_size = xo->group_size;
    if (xo->group_max > 0)
        prm->group_max = xo->group_max;
    if (xo->inner) {
        const ar_algo *in = ar_algo_find(xo->inner);
        RS_CHECK(in && strcmp(in->name, "hier") != 0 && strcmp(in->name, "torus2d") != 0,
                 "--inner: '%s' is not an algorithm hier can use among groups (expected ring, "
                 "segring, recdbl, rabenseifner, binomial or library)", xo->inner);
        prm->inner = xo->inner;
    }
    return 0;
}

int dp_exchange_check(const dp_exchange_opts *xo, int P)
{
    const ar_algo *a;
    ar_params prm;
    if (exchange_params(xo, &a, &prm) != 0)
        return -1;
    RS_CHECK(xo->group_size <= 0 || P % xo->group_size == 0, "--group-size %d does not divide "
             "the %d ranks (hier and torus2d need equal groups; use a divisor of %d)",
             xo->group_size, P, P);
    return 0;
}

int dp_exchange_create(const dp_exchange_opts *xo, long max_count, dp_exchange **out)
{
    *out = NULL;
    if (!started)
        return 0;
    const ar_algo *a;
    ar_params prm;
    if (exchange_params(xo, &a, &prm) != 0)
        return -1;
    dp_exchange *x = calloc(1, sizeof *x);
    RS_CHECK(x, "out of memory");
    if (ar_plan_create(a, &prm, MPI_COMM_WORLD, AR_FLOAT, AR_SUM, &x->plan) != 0 ||
        ar_plan_reserve(x->plan, (size_t)max_count) != 0) {
        dp_exchange_free(x);
        return -1;
    }
    *out = x;
    return 0;
}

int dp_exchange_sum(dp_exchange *x, float *buf, long count)
{
    if (!x)
        return 0;
    return ar_allreduce(x->plan, MPI_IN_PLACE, buf, (size_t)count);
}

const char *dp_exchange_name(const dp_exchange *x) { return x ? ar_plan_name(x->plan) : "none"; }

void dp_exchange_free(dp_exchange *x)
{
    if (!x)
        return;
    if (x->plan)
        ar_plan_free(x->plan);
    free(x);
}
