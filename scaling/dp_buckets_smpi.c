/* dp_buckets_smpi.c — dp_comm.h's buckets for rnn-train-smpi, in place of
 * models/dp_buckets.c (scaling/train_smpi.mk): the roles flip.  A simulated rank cannot
 * run a thread that calls MPI, so dp_buckets_start only records the range, and
 * dp_buckets_overlap (dp_buckets_smpi.h) makes the rank itself the communication thread:
 * it sums the buckets in order with the registry's blocking allreduce, while a plain
 * SimGrid actor on the same host — it makes no MPI call, which SMPI allows — executes
 * the backward's flops and posts a semaphore as each bucket becomes ready.  SimGrid's
 * CPU model shares the host between the actor's flops and the rank's charged reductions. */
#include <stdlib.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>

#include "check.h"
#include "dp_buckets_smpi.h"

typedef struct {
    float *buf;
    long count;
} bucket;

struct dp_buckets {
    dp_exchange *x;
    bucket *q;          /* this step's buckets, in the order started */
    long cap, queued, summed;
    int failed;
    double busy_s;      /* simulated seconds in dp_exchange_sum since the last wait */
};

/* The backward's actor: flops executed before each bucket is ready, and its end.  It
 * touches nothing but this (SMPI privatizes the ranks' globals, and it is no rank). */
typedef struct {
    double *ready_flops;   /* per bucket, non-decreasing */
    long n;
    double total_flops;
    sg_sem_t ready, finished;
    double end_s;          /* the simulated clock when the last flop was done */
} backward_charge;

static void run_backward(int argc, char **argv)
{
    (void)argc, (void)argv;
    backward_charge *a = sg_actor_self_get_data();
    double done = 0;
    for (long k = 0; k < a->n; k++) {
        if (a->ready_flops[k] > done) {
            sg_actor_execute(a->ready_flops[k] - done);
            done = a->ready_flops[k];
        }
        sg_sem_release(a->ready);
    }
    if (a->total_flops > done)
        sg_actor_execute(a->total_flops - done);
    a->end_s = simgrid_get_clock();
    /* the rank's join: the actor's handle may be gone once it ends, a semaphore not */
    sg_sem_release(a->finished);
}

int dp_buckets_create(dp_exchange *x, dp_buckets **out)
{
    *out = NULL;
    if (!x)
        return 0;
    dp_buckets *b = calloc(1, sizeof *b);
    RS_CHECK(b, "out of memory");
    b->x = x;
    *out = b;
    return 0;
}

int dp_buckets_start(dp_buckets *b, float *buf, long count)
{
    if (!b)
        return 0;
    if (b->queued == b->cap) {
        long cap = b->cap ? 2 * b->cap : 64;
        bucket *q = realloc(b->q, (size_t)cap * sizeof *q);
        RS_CHECK(q, "out of memory");
        b->q = q, b->cap = cap;
    }
    b->q[b->queued++] = (bucket){buf, count};
    return 0;
}

/* Bucket k summed on this rank; its seconds counted. */
static void sum_bucket(dp_buckets *b, long k)
{
    double t0 = simgrid_get_clock();
    b->failed |= dp_exchange_sum(b->x, b->q[k].buf, b->q[k].count) != 0;
    b->busy_s += simgrid_get_clock() - t0;
}

void dp_buckets_overlap(dp_buckets *b, dp_bucket_ready_fn ready_s, void *ctx, double backward_s,
                        double *exposed_s)
{
    *exposed_s = 0;
    if (!b || b->summed == b->queued)
        return;
    sg_host_t host = sg_host_self();
    double speed = sg_host_get_speed(host);
    long n = b->queued - b->summed;
    backward_charge a = {malloc((size_t)n * sizeof(double)), n, backward_s * speed,
                         sg_sem_init(0), sg_sem_init(0), 0};
    RS_ASSERT(a.ready_flops);
    for (long k = 0; k < n; k++)
        a.ready_flops[k] = ready_s(ctx, b->q[b->summed + k].buf) * speed;
    sg_actor_t actor = sg_actor_init("backward", host);
    sg_actor_set_data(actor, &a);
    sg_actor_start(actor, run_backward, 0, NULL);
    for (; b->summed < b->queued; b->summed++) {
        sg_sem_acquire(a.ready);
        sum_bucket(b, b->summed);
    }
    sg_sem_acquire(a.finished);
    double end = simgrid_get_clock();
    *exposed_s = end > a.end_s ? end - a.end_s : 0;
    sg_sem_destroy(a.ready);
    sg_sem_destroy(a.finished);
    free(a.ready_flops);
}

int dp_buckets_wait(dp_buckets *b, double *busy_s)
{
    *busy_s = 0;
    if (!b)
        return 0;
    /* buckets started where nothing overlapped them: summed now, after the backward */
    for (; b->summed < b->queued; b->summed++)
        sum_bucket(b, b->summed);
    int failed = b->failed;
    *busy_s = b->busy_s;
    b->queued = b->summed = 0;
    b->failed = 0;
    b->busy_s = 0;
    RS_CHECK(!failed, "a bucket's allreduce failed");
    return 0;
}

void dp_buckets_free(dp_buckets *b)
{
    if (!b)
        return;
    free(b->q);
    free(b);
}
