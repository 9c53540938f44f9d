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

/* grads[from, to) is final (model_backward_events' order): full buckets from its top
 * down.  A rest smaller than a bucket is held and joins the next range if the two
 * touch, else it is sent as it is (so it overlaps the backward), as is all at the last
 * range.  The embedding's range (from 0) is sparse's union packed at its top. */
static void start_buckets(run_ctx *r, long from, long to, int last)
{
    dp_ctx *d = &r->dp;
    float *sum = d->local > 1 ? d->grad_sum : r->m.grads;
    if (from == 0 && d->packed_from) {
        train_sparse_pack(r, sum);
        from = d->packed_from;
    }
    if (d->held_to > d->held_from) {
        if (to == d->held_from)
            to = d->held_to;
        else if (from == d->held_to)
            from = d->held_from;
        else
            send(r, sum, d->held_from, d->held_to);
    }
    for (; to - from >= d->bucket_floats; to -= d->bucket_floats)
        send(r, sum, to - d->bucket_floats, to);
    d->held_from = from, d->held_to = to;
    if (last && to > from)
        send(r, sum, from, to), d->held_to = from;
}

/* model_backward's hook (the rank's last worker, bucketed): grads[from, to) is final. */
static void on_grad_ready(void *ctx, long from, long to)
{
    run_ctx *r = ctx;
    take_range(r, r->dp.local - 1, from, to);
    start_buckets(r, from, to, ++r->dp.ready_events == r->dp.nevents);
}

void train_sync_start_charged(run_ctx *r)
{
    if (r->dp.sync != SYNC_BUCKETED)
        return;
    grad_event ev[MODEL_MAX_EVENTS];
    int n = model_backward_events(&r->m.cfg, &r->m.lay, 1, ev);
    r->dp.held_from = r->dp.held_to = 0;
    for (int k = 0; k < n; k++)
        start_buckets(r, ev[k].from, ev[k].to, k == n - 1);
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
    grad_event ev[MODEL_MAX_EVENTS];
    d->nevents = model_backward_events(&m->cfg, &m->lay, Tw, ev);
    d->ready_events = 0, d->held_from = d->held_to = 0;
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
