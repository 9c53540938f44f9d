/* dp_comm.c — MPI for rnn-train (dp_comm.h): start-up only under a launcher, the
 * training communicator (all ranks, or those left after --eval-ranks), the agreement on
 * errors, small reductions, the gradient exchange through the collectives registry,
 * and the link to the evaluation ranks.  Compiled with $(MPICC) (models/models.mk). */
#include "dp_comm.h"

#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "allreduce.h"
#include "check.h"
#include "optim.h"
#include "timer.h"
#include "train_platform.h"

static int started, rank, size = 1, thread_level;
static int world_size = 1, eval_ranks;   /* --eval-ranks K: world ranks P-K..P-1 */
static int eval_index = -1;              /* this rank's place among them; -1: a trainer */
/* every training call's communicator; link: training rank 0 (its rank 0) and the eval
 * ranks (1..K) */
static MPI_Comm train_comm = MPI_COMM_NULL, link_comm = MPI_COMM_NULL;

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
    train_comm = MPI_COMM_WORLD;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    world_size = size;
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
int dp_comm_world_size(void) { return world_size; }
int dp_comm_active(void) { return started; }
int dp_comm_threads_ok(void) { return !started || thread_level >= MPI_THREAD_SERIALIZED; }

int dp_comm_split_eval(int K)
{
    if (!started || K <= 0)
        return 0;
    int world_rank = rank, is_eval = world_rank >= world_size - K;
    RS_CHECK(MPI_Comm_split(MPI_COMM_WORLD, is_eval, world_rank, &train_comm) == MPI_SUCCESS &&
             MPI_Comm_split(MPI_COMM_WORLD, is_eval || world_rank == 0 ? 0 : MPI_UNDEFINED,
                            world_rank, &link_comm) == MPI_SUCCESS,
             "--eval-ranks %d: cannot split the %d ranks", K, world_size);
    eval_ranks = K;
    size = world_size - K;
    if (is_eval) {   /* it mirrors training rank 0's set-up (dp_comm.h) */
        eval_index = world_rank - size;
        rank = 0;
    }
    return 0;
}

int dp_comm_eval_ranks(void) { return eval_ranks; }
int dp_comm_eval_index(void) { return eval_index; }

/* ---- the watchdog (--exchange-timeout) ----
 * Over TCP a rank whose peer's link is cut waits in its allreduce for ever (Open MPI
 * noticed nothing in 5 minutes), and so does mpirun.  A thread of this rank's own
 * wakes every second and, when one collective (an exchange, an agreement, a gather) has
 * lasted past the timeout, says so in one line and ends the process: mpirun then ends
 * the job on the hosts it still reaches.  A wait includes what a peer does before it
 * joins (rank 0's evaluation or checkpoint write), so the timeout must exceed those.
 * One slot for the process: a collective begun while another waits (the bucketed
 * communication thread's) is timed from the first's start.  Not under SMPI (a thread
 * that sleeps would cost simulated time). */
static double watch_timeout_s;
static _Atomic uint64_t watch_since;   /* rs_now_ns() when a collective began; 0: none */

#ifndef SMPI_H
static void *watch(void *arg)
{
    (void)arg;
    for (;;) {
        sleep(1);
        uint64_t since = watch_since;
        double waited = since ? 1e-9 * (double)(rs_now_ns() - since) : 0;
        if (waited > watch_timeout_s) {
            char line[256];
            int n = snprintf(line, sizeof line, "rnn-train: rank %d: a collective has waited %.0f s "
                             "(--exchange-timeout): a peer, or the network to it, is gone; ending. The last "
                             "checkpoint resumes (--resume), on the hosts that remain\n", rank, waited);
            ssize_t w = write(2, line, (size_t)n);
            (void)w;   /* ending either way */
            _exit(1);
        }
    }
    return NULL;
}
#endif

static void watch_start(double timeout_s)
{
#ifndef SMPI_H
    static int running;
    pthread_t t;
    watch_timeout_s = timeout_s;
    if (running || timeout_s <= 0 || !started || size < 2)
        return;
    /* every signal stays with the trainer's threads: the thread starts with all blocked */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    running = pthread_create(&t, &at, watch, NULL) == 0;
    pthread_attr_destroy(&at);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!running && rank == 0)
        fprintf(stderr, "rnn-train: --exchange-timeout: no thread to watch with; a lost peer is waited for\n");
#else
    (void)timeout_s;
#endif
}

#define WATCHED(call)                                  \
    do {                                               \
        int outer_ = watch_since != 0;                 \
        if (!outer_ && watch_timeout_s > 0)            \
            watch_since = rs_now_ns();                 \
        call;                                          \
        if (!outer_)                                   \
            watch_since = 0;                           \
    } while (0)

int dp_comm_agree(int rc)
{
    if (!started)
        return rc ? -1 : 0;
    int r;
    WATCHED(r = ar_agree(train_comm, rc));
    return r;
}

int dp_comm_agree_all(int rc)
{
    if (!started)
        return rc ? -1 : 0;
    int r;
    WATCHED(r = ar_agree(MPI_COMM_WORLD, rc));
    return r;
}

void dp_comm_sum_doubles(double *v, int n)
{
    if (started)
        WATCHED(MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_SUM, train_comm));
}

void dp_comm_or_u64(uint64_t *v, long n)
{
    if (started)
        WATCHED(MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_UNSIGNED_LONG_LONG, MPI_BOR, train_comm));
}

int dp_comm_same_u64(uint64_t v)
{
    if (!started)
        return 1;
    unsigned long long mine[2] = {v, ~v}, agg[2];
    WATCHED(MPI_Allreduce(mine, agg, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, train_comm));
    return agg[0] == v && agg[1] == ~v;   /* max == min == v */
}

void dp_comm_gather_floats(const float *mine, long n, float *all)
{
    if (!started) {
        memcpy(all, mine, (size_t)n * sizeof(float));
        return;
    }
    WATCHED(MPI_Gather(mine, (int)n, MPI_FLOAT, all, (int)n, MPI_FLOAT, 0, train_comm));
}

/* ---- the link to the evaluation ranks (--eval-ranks) ---- */

/* Collectives on the link in this order, each nonblocking (they do not match blocking
 * ones): the header (floats to come; 0: stop), the parameters, the result's sum.  Apart
 * from them, a point-to-point note from training rank 0 abandons the evaluation in
 * flight: an eval rank keeps a receive for it posted from its first evaluation on (after
 * the note only the stop header can follow). */
enum { LINK_TAG_ABANDON = 25 };
static long link_header;
static double link_zeros[DP_EVAL_RESULT], link_sum[DP_EVAL_RESULT];
static MPI_Request link_req[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
static MPI_Request abandon_req = MPI_REQUEST_NULL;
static int abandon_note, abandon_seen;

int dp_eval_post(const float *params, long n)
{
    RS_CHECK(n <= 2147483647L, "--eval-ranks: %ld parameters do not fit one message", n);
    link_header = n;
    MPI_Ibcast(&link_header, 1, MPI_LONG, 0, link_comm, &link_req[0]);
    if (n == 0) {   /* stop: nothing comes back */
        MPI_Wait(&link_req[0], MPI_STATUS_IGNORE);
        return 0;
    }
    MPI_Ibcast((void *)params, (int)n, MPI_FLOAT, 0, link_comm, &link_req[1]);
    MPI_Ireduce(link_zeros, link_sum, DP_EVAL_RESULT, MPI_DOUBLE, MPI_SUM, 0, link_comm,
                &link_req[2]);
    return 0;
}

void dp_eval_progress(void)
{
    int done;
    MPI_Testall(3, link_req, &done, MPI_STATUSES_IGNORE);
}

void dp_eval_wait(double result[DP_EVAL_RESULT])
{
    MPI_Waitall(3, link_req, MPI_STATUSES_IGNORE);
    memcpy(result, link_sum, sizeof link_sum);
}

void dp_eval_abandon(void)
{
    int K;
    MPI_Comm_size(link_comm, &K);
    for (int e = 1; e < K; e++)   /* small: sent eagerly, whatever the eval rank does */
        MPI_Send(&abandon_note, 1, MPI_INT, e, LINK_TAG_ABANDON, link_comm);
    MPI_Waitall(3, link_req, MPI_STATUSES_IGNORE);
}

int dp_eval_wait_unless(double result[DP_EVAL_RESULT], int (*stop)(void))
{
#ifdef SMPI_H   /* simulated: no signal reaches a rank, and a sleep would cost simulated time */
    stop = NULL;
#endif
    if (!stop) {
        dp_eval_wait(result);
        return 0;
    }
    for (;;) {
        int done;
        MPI_Testall(3, link_req, &done, MPI_STATUSES_IGNORE);
        if (done) {
            memcpy(result, link_sum, sizeof link_sum);
            return 0;
        }
        if (stop()) {
            dp_eval_abandon();
            return 1;
        }
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
}

int dp_eval_abandoned(void)
{
    if (!abandon_seen && abandon_req != MPI_REQUEST_NULL)
        MPI_Test(&abandon_req, &abandon_seen, MPI_STATUS_IGNORE);
    return abandon_seen;
}

int dp_eval_receive(float *params, long n)
{
    MPI_Request q;
    MPI_Ibcast(&link_header, 1, MPI_LONG, 0, link_comm, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    if (link_header == 0) {
        if (abandon_req != MPI_REQUEST_NULL) {   /* never sent: withdrawn */
            MPI_Cancel(&abandon_req);
            MPI_Wait(&abandon_req, MPI_STATUS_IGNORE);
        }
        return 0;
    }
#ifndef SMPI_H   /* simulated: never abandoned (dp_eval_wait_unless), and a test costs time */
    if (abandon_req == MPI_REQUEST_NULL && !abandon_seen)
        MPI_Irecv(&abandon_note, 1, MPI_INT, 0, LINK_TAG_ABANDON, link_comm, &abandon_req);
#endif
    RS_ASSERT(link_header == n);   /* every rank built the same model */
    MPI_Ibcast(params, (int)n, MPI_FLOAT, 0, link_comm, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    return 1;
}

void dp_eval_reply(const double part[DP_EVAL_RESULT])
{
    MPI_Request q;
    MPI_Ireduce(part, NULL, DP_EVAL_RESULT, MPI_DOUBLE, MPI_SUM, 0, link_comm, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
}

/* ---- the gradient exchange ---- */
struct dp_exchange {
    ar_plan *plan;
    ar_plan *parts;   /* --shard-update: the norm's chunk sums (doubles), the same algorithm */
};

static int exchange_params(const dp_exchange_opts *xo, const ar_algo **a, ar_params *prm)
{
    *prm = ar_params_default();
    if (ar_algo_parse(xo->algo, a, prm) != 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", rs_lasterr());
        RS_CHECK(0, "--allreduce: %s", why);
    }
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

int dp_exchange_create(const dp_exchange_opts *xo, long max_count, long max_parts,
                       dp_exchange **out)
{
    *out = NULL;
    if (!started)
        return 0;
    const ar_algo *a;
    ar_params prm;
    if (exchange_params(xo, &a, &prm) != 0)
        return -1;
    /* sharded: blocks on the norm's chunks (dp_comm.h).  Test hook: the replicated run
     * with the same cut, RNN_TRAIN_TEST_GRANULE=1024, sums in the same order (train.sh). */
    const char *hook = getenv("RNN_TRAIN_TEST_GRANULE");
    prm.granule = max_parts > 0 ? GRAD_NORM_CHUNK : hook ? (size_t)atol(hook) : 0;
    dp_exchange *x = calloc(1, sizeof *x);
    RS_CHECK(x, "out of memory");
    if (ar_plan_create(a, &prm, train_comm, AR_FLOAT, AR_SUM, &x->plan) != 0 ||
        ar_plan_reserve(x->plan, (size_t)max_count) != 0 ||
        (max_parts > 0 && (ar_plan_create(a, &prm, train_comm, AR_DOUBLE, AR_SUM, &x->parts) != 0 ||
                           ar_plan_reserve(x->parts, (size_t)max_parts) != 0))) {
        char why[512];
        snprintf(why, sizeof why, "%s", rs_lasterr());
        dp_exchange_free(x);
        RS_CHECK(0, "--allreduce: %s", why);
    }
    *out = x;
    watch_start(xo->timeout_s);
    return 0;
}

int dp_exchange_sum(dp_exchange *x, float *buf, long count)
{
    if (!x)
        return 0;
    int r;
    WATCHED(r = ar_allreduce(x->plan, MPI_IN_PLACE, buf, (size_t)count));
    return r;
}

typedef struct {
    dp_mid_fn mid;
    void *ctx;
} mid_call;

static void *call_mid(void *arg, void *buf, size_t off, size_t len)
{
    const mid_call *c = arg;
    return c->mid(c->ctx, buf, (long)off, (long)len);
}

int dp_exchange_sum_mid(dp_exchange *x, float *buf, long count, dp_mid_fn mid, void *ctx)
{
    if (!x) {
        mid(ctx, buf, 0, count);
        return 0;
    }
    mid_call c = {mid, ctx};
    int r;
    WATCHED(r = ar_allreduce_mid(x->plan, buf, (size_t)count, call_mid, &c));
    return r;
}

int dp_exchange_sum_parts(dp_exchange *x, double *parts, long n)
{
    if (!x)
        return 0;
    RS_ASSERT(x->parts);
    int r;
    WATCHED(r = ar_allreduce(x->parts, MPI_IN_PLACE, parts, (size_t)n));
    return r;
}

int dp_exchange_check_mid(const dp_exchange_opts *xo)
{
    const ar_algo *a;
    ar_params prm;
    if (exchange_params(xo, &a, &prm) != 0)
        return -1;
    RS_CHECK(ar_algo_has_mid(a, &prm), "--shard-update: --allreduce %s%s%s has no reduce-scatter "
             "and allgather to update between (use ring, segring, rabenseifner, ordered, or hier "
             "or torus2d with one of them inside)", xo->algo, xo->inner ? " --inner " : "",
             xo->inner ? xo->inner : "");
    return 0;
}

void dp_comm_gather_blocks(float *a, long off, long len)
{
    if (!started)
        return;
    int o = (int)off, n = (int)len;
    int *disp = rank == 0 ? malloc(sizeof(int) * 2 * (size_t)size) : NULL;
    int *cnt = disp ? disp + size : NULL;
    RS_ASSERT(rank != 0 || disp);
    WATCHED(MPI_Gather(&o, 1, MPI_INT, disp, 1, MPI_INT, 0, train_comm));
    WATCHED(MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, 0, train_comm));
    if (rank == 0)   /* its own block is in place already */
        WATCHED(MPI_Gatherv(MPI_IN_PLACE, 0, MPI_FLOAT, a, cnt, disp, MPI_FLOAT, 0, train_comm));
    else
        WATCHED(MPI_Gatherv(a + off, n, MPI_FLOAT, NULL, NULL, NULL, MPI_FLOAT, 0, train_comm));
    free(disp);
}

const char *dp_exchange_name(const dp_exchange *x) { return x ? ar_plan_name(x->plan) : "none"; }

void dp_exchange_free(dp_exchange *x)
{
    if (!x)
        return;
    if (x->plan)
        ar_plan_free(x->plan);
    if (x->parts)
        ar_plan_free(x->parts);
    free(x);
}
