/* dp_buckets.c — bucketed gradient exchange (dp_comm.h): ranges of the gradient are
 * queued by the trainer as the backward pass finishes them and summed over ranks, in
 * the order queued, by one communication thread (pthread) running dp_exchange_sum.
 * The trainer makes no MPI call between the first dp_buckets_start and
 * dp_buckets_wait, so MPI_THREAD_SERIALIZED is enough.  Where a rank cannot run a
 * thread (train_hooks.h's no_spare_threads: SMPI's simulated ranks) the queue alone is
 * kept and the rank sums it (dp_buckets_sum_pending), paced by its simulator: the roles
 * flip, the rank being the communication thread while the backward's charge goes on
 * (scaling/sim/dp_buckets_smpi.c).  No MPI here. */
#include <pthread.h>
#include <stdlib.h>

#include "bench.h"
#include "check.h"
#include "dp_comm.h"
#include "timer.h"
#include "train_platform.h"

typedef struct {
    float *buf;
    long count;
} bucket;

struct dp_buckets {
    dp_exchange *x;
    int threaded;             /* else the rank sums the queue itself: no thread, no lock */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t queued_more, all_done;
    bucket *q;                /* this step's buckets, in the order started */
    long cap, queued, done;
    int quit, failed;
    double busy_s;            /* in dp_exchange_sum since the last wait */
};

static void lock(dp_buckets *b)
{
    if (b->threaded)
        pthread_mutex_lock(&b->mu);
}

static void unlock(dp_buckets *b)
{
    if (b->threaded)
        pthread_mutex_unlock(&b->mu);
}

static void *comm_thread(void *arg)
{
    dp_buckets *b = arg;
    rs_unpin_thread();   /* beside the team, not on a pinned thread's CPU */
    pthread_mutex_lock(&b->mu);
    for (;;) {
        while (b->done == b->queued && !b->quit)
            pthread_cond_wait(&b->queued_more, &b->mu);
        if (b->done == b->queued)
            break;   /* quit, nothing left */
        bucket k = b->q[b->done];
        pthread_mutex_unlock(&b->mu);
        uint64_t t0 = rs_now_ns();
        int rc = dp_exchange_sum(b->x, k.buf, k.count);
        double s = (double)(rs_now_ns() - t0) * 1e-9;
        pthread_mutex_lock(&b->mu);
        b->busy_s += s;
        b->failed |= rc != 0;
        if (++b->done == b->queued)
            pthread_cond_signal(&b->all_done);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

int dp_buckets_create(dp_exchange *x, int threaded, dp_buckets **out)
{
    *out = NULL;
    if (!x)
        return 0;
    RS_CHECK(!threaded || dp_comm_threads_ok(), "--sync bucketed needs MPI_THREAD_SERIALIZED "
             "for its communication thread and this MPI gives less: use --sync fused");
    dp_buckets *b = calloc(1, sizeof *b);
    RS_CHECK(b, "out of memory");
    b->x = x;
    b->threaded = threaded;
    if (threaded) {
        pthread_mutex_init(&b->mu, NULL);
        pthread_cond_init(&b->queued_more, NULL);
        pthread_cond_init(&b->all_done, NULL);
        if (pthread_create(&b->thread, NULL, comm_thread, b) != 0) {
            free(b);
            RS_CHECK(0, "cannot start the communication thread of --sync bucketed");
        }
    }
    *out = b;
    return 0;
}

int dp_buckets_start(dp_buckets *b, float *buf, long count)
{
    if (!b)
        return 0;
    lock(b);
    if (b->queued == b->cap) {
        long cap = b->cap ? 2 * b->cap : 64;
        bucket *q = realloc(b->q, (size_t)cap * sizeof *q);
        if (!q) {
            unlock(b);
            RS_CHECK(0, "out of memory");
        }
        b->q = q, b->cap = cap;
    }
    b->q[b->queued++] = (bucket){buf, count};
    if (b->threaded)
        pthread_cond_signal(&b->queued_more);
    unlock(b);
    return 0;
}

long dp_buckets_pending(const dp_buckets *b)
{
    return b && !b->threaded ? b->queued - b->done : 0;
}

const float *dp_buckets_pending_buf(const dp_buckets *b, long k)
{
    return b->q[b->done + k].buf;
}

void dp_buckets_sum_pending(dp_buckets *b, void (*ready)(void *ctx, long k),
                            double (*clock_s)(void *ctx), void *ctx)
{
    if (!b || b->threaded)
        return;
    for (long k = 0; b->done < b->queued; b->done++, k++) {
        if (ready)
            ready(ctx, k);
        double t0 = clock_s(ctx);
        b->failed |= dp_exchange_sum(b->x, b->q[b->done].buf, b->q[b->done].count) != 0;
        b->busy_s += clock_s(ctx) - t0;
    }
}

static double trainer_clock_s(void *ctx)
{
    (void)ctx;
    return (double)train_now_ns() * 1e-9;
}

int dp_buckets_wait(dp_buckets *b, double *busy_s)
{
    *busy_s = 0;
    if (!b)
        return 0;
    /* unthreaded, those no compute hook summed: now, after the backward */
    dp_buckets_sum_pending(b, NULL, trainer_clock_s, NULL);
    lock(b);
    while (b->done < b->queued)
        pthread_cond_wait(&b->all_done, &b->mu);
    int rc = b->failed ? -1 : 0;
    *busy_s = b->busy_s;
    b->queued = b->done = 0;
    b->failed = 0;
    b->busy_s = 0;
    unlock(b);
    RS_CHECK(rc == 0, "a bucket's allreduce failed");
    return 0;
}

void dp_buckets_free(dp_buckets *b)
{
    if (!b)
        return;
    if (b->threaded) {
        pthread_mutex_lock(&b->mu);
        b->quit = 1;
        pthread_cond_signal(&b->queued_more);
        pthread_mutex_unlock(&b->mu);
        pthread_join(b->thread, NULL);
        pthread_mutex_destroy(&b->mu);
        pthread_cond_destroy(&b->queued_more);
        pthread_cond_destroy(&b->all_done);
    }
    free(b->q);
    free(b);
}
