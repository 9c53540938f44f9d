/* dp_buckets.c — bucketed gradient exchange (dp_comm.h): ranges of the gradient are
 * queued by the trainer as the backward pass finishes them and summed over ranks, in
 * the order queued, by one communication thread (pthread) running dp_exchange_sum.
 * The trainer makes no MPI call between the first dp_buckets_start and
 * dp_buckets_wait, so MPI_THREAD_SERIALIZED is enough.  No MPI here: the SMPI build
 * puts scaling/dp_buckets_smpi.c (the same four calls, no thread) in its place. */
#include <pthread.h>
#include <stdlib.h>

#include "bench.h"
#include "check.h"
#include "dp_comm.h"
#include "timer.h"

typedef struct {
    float *buf;
    long count;
} bucket;

struct dp_buckets {
    dp_exchange *x;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t queued_more, all_done;
    bucket *q;                /* this step's buckets, in the order started */
    long cap, queued, done;
    int quit, failed;
    double busy_s;            /* in dp_exchange_sum since the last wait */
};

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

int dp_buckets_create(dp_exchange *x, dp_buckets **out)
{
    *out = NULL;
    if (!x)
        return 0;
    RS_CHECK(dp_comm_threads_ok(), "--sync bucketed needs MPI_THREAD_SERIALIZED for its "
             "communication thread and this MPI gives less: use --sync fused");
    dp_buckets *b = calloc(1, sizeof *b);
    RS_CHECK(b, "out of memory");
    b->x = x;
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->queued_more, NULL);
    pthread_cond_init(&b->all_done, NULL);
    if (pthread_create(&b->thread, NULL, comm_thread, b) != 0) {
        free(b);
        RS_CHECK(0, "cannot start the communication thread of --sync bucketed");
    }
    *out = b;
    return 0;
}

int dp_buckets_start(dp_buckets *b, float *buf, long count)
{
    if (!b)
        return 0;
    pthread_mutex_lock(&b->mu);
    if (b->queued == b->cap) {
        long cap = b->cap ? 2 * b->cap : 64;
        bucket *q = realloc(b->q, (size_t)cap * sizeof *q);
        if (!q) {
            pthread_mutex_unlock(&b->mu);
            RS_CHECK(0, "out of memory");
        }
        b->q = q, b->cap = cap;
    }
    b->q[b->queued++] = (bucket){buf, count};
    pthread_cond_signal(&b->queued_more);
    pthread_mutex_unlock(&b->mu);
    return 0;
}

int dp_buckets_wait(dp_buckets *b, double *busy_s)
{
    *busy_s = 0;
    if (!b)
        return 0;
    pthread_mutex_lock(&b->mu);
    while (b->done < b->queued)
        pthread_cond_wait(&b->all_done, &b->mu);
    int rc = b->failed ? -1 : 0;
    *busy_s = b->busy_s;
    b->queued = b->done = 0;
    b->failed = 0;
    b->busy_s = 0;
    pthread_mutex_unlock(&b->mu);
    RS_CHECK(rc == 0, "a bucket's allreduce failed");
    return 0;
}

void dp_buckets_free(dp_buckets *b)
{
    if (!b)
        return;
    pthread_mutex_lock(&b->mu);
    b->quit = 1;
    pthread_cond_signal(&b->queued_more);
    pthread_mutex_unlock(&b->mu);
    pthread_join(b->thread, NULL);
    pthread_mutex_destroy(&b->mu);
    pthread_cond_destroy(&b->queued_more);
    pthread_cond_destroy(&b->all_done);
    free(b->q);
    free(b);
}
