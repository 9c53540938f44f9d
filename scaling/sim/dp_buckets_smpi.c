/* dp_buckets_smpi.c — bucketed's overlap for rnn-train-smpi (dp_buckets_smpi.h): the
 * roles flip.  A simulated rank cannot run a thread that calls MPI, so models/
 * dp_buckets.c only queues the buckets there, and the rank itself is the communication
 * thread: it sums them in order (run_ctx_sum_buckets, the registry's blocking
 * allreduce), paced by a plain SimGrid actor on the same host — it makes no MPI call,
 * which SMPI allows — that executes the backward's flops and posts a semaphore as each
 * bucket becomes ready.  SimGrid's CPU model shares the host between the actor's flops
 * and the rank's charged reductions. */
#include <stdlib.h>

#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>

#include "check.h"
#include "dp_buckets_smpi.h"

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

/* The pace of the rank's sums: bucket k once the actor has readied it; the simulated
 * clock for their seconds. */
static void wait_ready(void *ctx, long k)
{
    backward_charge *a = ctx;
    (void)k;   /* the actor posts once per bucket, in order */
    sg_sem_acquire(a->ready);
}

static double sim_clock_s(void *ctx)
{
    (void)ctx;
    return simgrid_get_clock();
}

double dp_buckets_overlap(run_ctx *r, dp_bucket_ready_fn ready_s, void *ctx, double backward_s)
{
    long n = run_ctx_buckets_pending(r);
    if (n <= 0)
        return 0;
    sg_host_t host = sg_host_self();
    double speed = sg_host_get_speed(host);
    backward_charge a = {malloc((size_t)n * sizeof(double)), n, backward_s * speed,
                         sg_sem_init(0), sg_sem_init(0), 0};
    RS_ASSERT(a.ready_flops);
    for (long k = 0; k < n; k++)
        a.ready_flops[k] = ready_s(ctx, run_ctx_bucket_offset(r, k)) * speed;
    sg_actor_t actor = sg_actor_init("backward", host);
    sg_actor_set_data(actor, &a);
    sg_actor_start(actor, run_backward, 0, NULL);
    run_ctx_sum_buckets(r, &(train_bucket_pace){wait_ready, sim_clock_s, &a});
    sg_sem_acquire(a.finished);
    double end = simgrid_get_clock();
    sg_sem_destroy(a.ready);
    sg_sem_destroy(a.finished);
    free(a.ready_flops);
    return end > a.end_s ? end - a.end_s : 0;
}
