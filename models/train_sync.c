/* train_sync.c — the gradient exchange over ranks, --sync:
 *   fused       one allreduce of the whole flat gradient after the backward;
 *   bucketed    the backward readies the gradient range by range (the output layer
 *               first; the embedding before layer 0's weights: model_backward_events),
 *               each cut into buckets of --bucket-mib, each summed on the
 *               communication thread (dp_buckets.c) while the backward goes on (by
 *               the rank itself, in the compute hook, where it has no spare thread);
 *   per-tensor  after the backward, one blocking allreduce per tensor per unrolled step.
 * Every mode sums the same values with the same registry algorithm; only how the
 * gradient is cut into calls differs.  Also each worker's squared gradient norm, taken
 * before any exchange, for B_simple (grad_noise.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "optim.h"
#include "timer.h"
#include "train_ctx.h"
#include "train_platform.h"

enum { SYNC_FUSED, SYNC_BUCKETED, SYNC_PER_TENSOR };

int train_sync_setup(run_ctx *r)
{
    dp_ctx *d = &r->dp;
    const param_layout *lay = &r->m.lay;
    d->sync = strcmp(r->o->sync, "bucketed") == 0     ? SYNC_BUCKETED
              : strcmp(r->o->sync, "per-tensor") == 0 ? SYNC_PER_TENSOR
                                                      : SYNC_FUSED;
    /* whole 64-byte lines, so a bucket never splits one between two calls */
    long floats = (long)(r->o->bucket_mib * 1048576.0 / sizeof(float)) / 16 * 16;
    d->bucket_floats = floats < 16 ? 16 : floats;
    if (d->sync == SYNC_PER_TENSOR && d->P > 1) {
        long most = 0;
        for (int i = 0; i < lay->n; i++)
            if (lay->t[i].rows * lay->t[i].cols > most)
                most = lay->t[i].rows * lay->t[i].cols;
        d->zeros = train_big_alloc((size_t)most * sizeof(float));
        RS_CHECK(d->zeros, "cannot allocate the per-tensor exchange's buffer");
    }
    return 0;
}

int train_sync_start(run_ctx *r)
{
    if (r->dp.sync != SYNC_BUCKETED)
        return 0;
    return dp_buckets_create(r->dp.exchange, train_spare_threads(), &r->dp.buckets);
}

void train_sync_teardown(run_ctx *r)
{
    dp_buckets_free(r->dp.buckets);
    train_big_free(r->dp.zeros);
    r->dp.buckets = NULL, r->dp.zeros = NULL;
}

/* Worker k's finished gradient grads[from, to): its squared norm (B_simple needs each
 * worker's own) and, with several workers on the rank, into their sum (grad_tree.h:
 * its fixed order; the last worker's ranges complete the sum range by range). */
static void take_range(run_ctx *r, int k, long from, long to)
{
    dp_ctx *d = &r->dp;
    const float *g = r->m.grads + from;
    if (d->N > 1) {
        double norm = grad_norm(g, to - from);
        d->small_sq += norm * norm;
    }
    if (d->local > 1 && d->test_abs_grads)   /* test hook: sum |g| (train.sh's bound) */
        for (long i = from; i < to; i++)
            r->m.grads[i] = fabsf(r->m.grads[i]);
    if (d->local > 1)
        grad_tree_add(&d->tree, k, r->m.grads, from, to);
}

static void send(run_ctx *r, float *sum, long from, long to)
{
    RS_ASSERT(dp_buckets_start(r->dp.buckets, sum + from, to - from) == 0);
}

/* Event k's range is final: full buckets from its top down.  A rest smaller than a
 * bucket is held if the next range touches it (they go as one), else sent at once, so
 * that it overlaps the backward.  The embedding's range (from 0) is sparse's union
 * packed at its top. */
static void start_buckets(run_ctx *r, int k)
{
    dp_ctx *d = &r->dp;
    float *sum = d->local > 1 ? d->grad_sum : r->m.grads;
    long from = d->events[k].from, to = d->events[k].to;
    if (from == 0 && d->packed_from) {
        train_sparse_pack(r, sum);
        from = d->packed_from;
    }
    if (d->held_to > d->held_from)   /* it touches this range */
        from = from < d->held_from ? from : d->held_from, to = to > d->held_to ? to : d->held_to;
    for (; to - from >= d->bucket_floats; to -= d->bucket_floats)
        send(r, sum, to - d->bucket_floats, to);
    const grad_event *next = k + 1 < d->nevents ? &d->events[k + 1] : NULL;
    if (to > from && !(next && (next->to == from || next->from == to)))
        send(r, sum, from, to), to = from;
    d->held_from = from, d->held_to = to;
}

static void plan_events(run_ctx *r, int Tw)
{
    dp_ctx *d = &r->dp;
    d->nevents = model_backward_events(&r->m.cfg, &r->m.lay, Tw, d->events);
    d->heard = 0, d->held_from = d->held_to = 0;
}

/* model_backward's hook (the rank's last worker, bucketed): grads[from, to) is final. */
static void on_grad_ready(void *ctx, long from, long to)
{
    run_ctx *r = ctx;
    take_range(r, r->dp.local - 1, from, to);
    start_buckets(r, r->dp.heard++);
}

void train_sync_start_charged(run_ctx *r)
{
    if (r->dp.sync != SYNC_BUCKETED)
        return;
    plan_events(r, 1);
    for (int k = 0; k < r->dp.nevents; k++)
        start_buckets(r, k);
}

void train_sync_backward(run_ctx *r, int Tw, int k)
{
    dp_ctx *d = &r->dp;
    model *m = &r->m;
    if (d->sync != SYNC_BUCKETED || k != d->local - 1) {
        model_backward(m, Tw);
        take_range(r, k, 0, m->lay.total);
        return;
    }
    plan_events(r, Tw);
    m->grad_ready = on_grad_ready, m->grad_ready_ctx = r;
    model_backward(m, Tw);
    m->grad_ready = NULL, m->grad_ready_ctx = NULL;
}

void train_sync_wait(run_ctx *r)
{
    if (r->dp.sync == SYNC_BUCKETED)
        RS_ASSERT(dp_buckets_wait(r->dp.buckets, &r->dp.exchange_total_s) == 0);
}

/* The Caffe-style baseline: one allreduce per tensor per unrolled step, Tw rounds.
 * The backward forms each weight gradient as one GEMM over the whole window, so
 * per-step partial gradients never exist: round 1 sends each tensor's gradient and
 * rounds 2..Tw a zero buffer of the same size, the same messages and arithmetic as
 * the baseline with the exact sum. */
static void exchange_per_tensor(run_ctx *r, float *grad)
{
    dp_ctx *d = &r->dp;
    const param_layout *lay = &r->m.lay;
    for (int t = 0; t < d->Tw; t++)
        for (int i = 0; i < lay->n; i++) {
            float *buf = t == 0 ? grad + lay->t[i].offset : d->zeros;
            RS_ASSERT(dp_exchange_sum(d->exchange, buf, lay->t[i].rows * lay->t[i].cols) == 0);
        }
}

void train_sync_exchange(run_ctx *r, float *grad)
{
    dp_ctx *d = &r->dp;
    if (d->sync == SYNC_BUCKETED)
        return;   /* summed already, by the buckets */
    uint64_t t0 = train_now_ns();
    if (d->sync == SYNC_PER_TENSOR)
        exchange_per_tensor(r, grad);
    else {
        train_sparse_pack(r, grad);   /* sparse: [packed_from, total) holds everything */
        RS_ASSERT(dp_exchange_sum(d->exchange, grad + d->packed_from,
                                  r->m.lay.total - d->packed_from) == 0);
    }
    d->exchange_total_s = train_seconds_since(t0);
}
