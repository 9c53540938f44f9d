/* train_sync.c — the gradient exchange over ranks, --sync:
 *   fused       one allreduce of the whole flat gradient after the backward;
 *   bucketed    the backward readies the gradient from the end of the layout (output
 *               layer first, embedding last: model.h), so the finished part is always a
 *               suffix; it is cut into buckets of --bucket-mib, each summed on the
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

/* grads[from, ..) is final: hand it to the buckets, full ones from the top down; at the
 * embedding (from 0) the rest, smaller (sparse: the union's rows packed first, the rest
 * from packed_from). */
static void start_buckets(run_ctx *r, long from)
{
    dp_ctx *d = &r->dp;
    float *sum = d->local > 1 ? d->grad_sum : r->m.grads;
    int last = from == 0;
    if (last && d->packed_from) {
        train_sparse_pack(r, sum);
        from = d->packed_from;
    }
    while (d->sent_from - from >= d->bucket_floats || (last && d->sent_from > from)) {
        long n = d->sent_from - from < d->bucket_floats ? d->sent_from - from : d->bucket_floats;
        d->sent_from -= n;
        RS_ASSERT(dp_buckets_start(d->buckets, sum + d->sent_from, n) == 0);
    }
}

/* model_backward's hook (the rank's last worker, bucketed): grads[from, ..) is final. */
static void on_grad_ready(void *ctx, long from)
{
    run_ctx *r = ctx;
    dp_ctx *d = &r->dp;
    take_range(r, d->local - 1, from, d->ready_from);
    d->ready_from = from;
    start_buckets(r, from);
}

void train_sync_start_charged(run_ctx *r)
{
    if (r->dp.sync != SYNC_BUCKETED)
        return;
    r->dp.sent_from = r->m.lay.total;
    start_buckets(r, 0);
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
    d->ready_from = d->sent_from = m->lay.total;
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
