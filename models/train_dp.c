/* train_dp.c — N synchronous workers over P ranks (--workers): the workers' streams
 * and carried state, one step's forward and backward of this rank's workers, the
 * exchange over ranks (its --sync modes: train_sync.c), and the checkpoint's global view.
 *
 * The global batch N*b is laid over the train split as a one-process run with
 * --batch N*b lays its streams; worker w owns streams [w*b, (w+1)*b) and its own
 * carried state.  Rank r runs workers [r*N/P, (r+1)*N/P) one after another on the one
 * model (each worker's state swapped in), sums their gradients, and the allreduce
 * (dp_comm.h) sums that over ranks; train_step.c divides by N.  With N = P = 1 nothing
 * here adds work: the model's own gradient and state are used.
 *
 * The sum's order: a rank adds its workers' gradients by the binary-counter tree over
 * worker indices (grad_tree.h: complete subtrees of 2^j workers, the rest added newest
 * first), and --allreduce ordered adds the ranks' partial sums by the same tree over
 * rank indices.  When N/P is a power of two the ranks' partials are exactly the
 * complete subtrees of 2^j workers aligned at multiples of 2^j, so the whole sum is the
 * one tree over N workers whatever P: emulated workers (P = 1) and real ones give the
 * same gradient bits, hence the same parameters at every step (each worker's forward
 * and backward already are the same bits on any rank). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "train_ctx.h"
#include "train_platform.h"

int train_dp_check(const train_opts *o)
{
    int P = dp_comm_size();
    int K = dp_comm_eval_ranks();
    RS_CHECK(o->workers % P == 0, "--workers %d is not a multiple of the %d %sranks (each rank "
             "runs the same number of workers: use a multiple of %d)%s", o->workers, P,
             K ? "training " : "", P, K ? "; --eval-ranks sets ranks aside" : "");
    RS_CHECK(strcmp(o->sync, "fused") == 0 || strcmp(o->sync, "bucketed") == 0 ||
             strcmp(o->sync, "per-tensor") == 0,
             "--sync: unknown mode '%s' (expected fused, bucketed or per-tensor)", o->sync);
    RS_CHECK(o->bucket_mib > 0, "--bucket-mib %g: expected a bucket size > 0 MiB (e.g. 25, or "
             "0.5)", o->bucket_mib);
    RS_CHECK(train_spare_threads() || !o->eval_async, "--eval-async needs a second thread "
             "per rank, which simulated ranks cannot run: evaluate without --eval-async");
    RS_CHECK(strcmp(o->embed_exchange, "dense") == 0 || strcmp(o->embed_exchange, "sparse") == 0,
             "--embed-exchange: unknown mode '%s' (expected dense or sparse)", o->embed_exchange);
    RS_CHECK(strcmp(o->embed_exchange, "sparse") != 0 || strcmp(o->sync, "per-tensor") != 0,
             "--embed-exchange sparse packs the embedding next to the rest of the gradient: use "
             "--sync fused or bucketed");
    if (strcmp(o->sync, "bucketed") == 0 && train_bucketed_check() != 0)
        return -1;
    if (train_shard_check(o) != 0)
        return -1;
    return dp_exchange_check(&o->exchange, P);
}

/* Floats of one worker's carried state (L, b, H), per array. */
static long state_floats(const model *m)
{
    return (long)m->cfg.layers * m->cfg.batch * m->cfg.hidden;
}

int train_dp_setup(run_ctx *r)
{
    dp_ctx *d = &r->dp;
    model *m = &r->m;
    d->P = dp_comm_size();
    d->rank = dp_comm_rank();
    d->N = r->o->workers;
    d->local = d->N / d->P;
    d->shard = r->o->shard_update && d->P > 1;
    /* Test hook: RNN_TRAIN_TEST_ABS_GRADS=1 sums each worker's |gradient| (local > 1), so
     * one SGD step shows sum_i |g_i|, the scale of the sum's rounding (test/mpi/train.sh). */
    d->test_abs_grads = getenv("RNN_TRAIN_TEST_ABS_GRADS") != NULL;
    d->own_h = m->state_h, d->own_c = m->state_c;
    d->state_h = m->state_h, d->state_c = m->state_c;
    if (d->local > 1) {
        size_t sb = (size_t)d->local * state_floats(m) * sizeof(float);
        d->state_h = train_big_alloc(sb);
        d->state_c = train_big_alloc(sb);
        RS_CHECK(d->state_h && d->state_c, "cannot allocate the state of %d workers", d->local);
        m->state_h = d->state_h, m->state_c = d->state_c;
        if (grad_tree_create(&d->tree, d->local, m->lay.total) != 0)
            return -1;
        d->grad_sum = grad_tree_sum(&d->tree);
    }
    if (train_sparse_setup(r) != 0)
        return -1;
    return train_sync_setup(r);
}

int train_dp_start(run_ctx *r)
{
    long parts = r->dp.shard ? (r->m.lay.total + GRAD_NORM_CHUNK - 1) / GRAD_NORM_CHUNK : 0;
    int rc = dp_exchange_create(&r->o->exchange, r->m.lay.total, parts, &r->dp.exchange);
    if (rc == 0)
        rc = train_sync_start(r);
    return dp_comm_agree(rc);
}

void train_dp_teardown(run_ctx *r)
{
    dp_ctx *d = &r->dp;
    if (d->local > 1) {
        train_big_free(d->state_h);
        train_big_free(d->state_c);
        grad_tree_free(&d->tree);
    }
    if (d->own_h)
        r->m.state_h = d->own_h, r->m.state_c = d->own_c;
    train_sync_teardown(r);
    train_sparse_teardown(r);
    dp_exchange_free(d->exchange);
    memset(d, 0, sizeof *d);
}

void train_dp_reset_state(run_ctx *r)
{
    size_t n = (size_t)r->dp.local * state_floats(&r->m) * sizeof(float);
    memset(r->dp.state_h, 0, n);
    memset(r->dp.state_c, 0, n);
}

stream_set train_dp_worker_streams(const stream_set *global, int w, int b)
{
    return (stream_set){global->data + (long)w * b * global->len, global->len, b};
}

double train_dp_compute(run_ctx *r, int *Tw_out, float **grad_out)
{
    dp_ctx *d = &r->dp;
    model *m = &r->m;
    const model_cfg *c = &m->cfg;
    long S = state_floats(m);
    double loss_sum = 0;
    int Tw = 0;
    d->small_sq = 0;
    for (int k = 0; k < d->local; k++) {
        stream_set ws = train_dp_worker_streams(&r->train, d->rank * d->local + k, c->batch);
        m->state_h = d->state_h + k * S, m->state_c = d->state_c + k * S;
        Tw = streams_window(&ws, r->st.pos, c->bptt, m->act.inputs, m->act.targets);
        RS_ASSERT(Tw > 0);
        train_sparse_mark(r, m->act.inputs, (long)Tw * c->batch);
        if (k == d->local - 1)   /* every window known: before the buckets may start */
            train_sparse_union(r);
        double loss = model_forward(m, Tw, 1) / ((double)Tw * c->batch);
        loss_sum += loss;
        if (!isfinite(loss) && d->P == 1) {   /* alone: stop before touching anything */
            loss_sum = loss;
            break;
        }
        train_sync_backward(r, Tw, k);
        model_carry(m, Tw);
    }
    m->state_h = d->state_h, m->state_c = d->state_c;
    *Tw_out = d->Tw = Tw;
    *grad_out = d->local > 1 ? d->grad_sum : m->grads;
    return loss_sum;
}

void train_dp_sparse_windows(run_ctx *r)
{
    dp_ctx *d = &r->dp;
    const model_cfg *c = &r->m.cfg;
    if (!d->row_bits)
        return;
    for (int k = 0; k < d->local; k++) {
        stream_set ws = train_dp_worker_streams(&r->train, d->rank * d->local + k, c->batch);
        int Tw = streams_window(&ws, r->st.pos, c->bptt, r->m.act.inputs, r->m.act.targets);
        train_sparse_mark(r, r->m.act.inputs, (long)(Tw > 0 ? Tw : 0) * c->batch);
    }
    train_sparse_union(r);
}

double train_dp_exchange(run_ctx *r, float *grad, double loss_sum, int stop)
{
    dp_ctx *d = &r->dp;
    d->exchange_total_s = 0;
    train_sync_wait(r);   /* bucketed: no other MPI call while its thread may run */
    if (d->P > 1) {
        /* the stop request rides along (all ranks agree), and B_simple's norms */
        double v[3] = {loss_sum, stop, d->small_sq};
        dp_comm_sum_doubles(v, 3);
        loss_sum = v[0];
        d->stop_any = v[1] > 0;
        d->stop_term = fmod(v[1], 1000) > 0;   /* train_stop_requested's counts */
        d->small_sq = v[2];
        if (isfinite(loss_sum) && d->shard)
            train_shard_exchange(r, grad);
        else if (isfinite(loss_sum))
            train_sync_exchange(r, grad);
        train_sparse_unpack(r, grad);
    }
    return loss_sum / d->N;
}

/* ---- the parameter checksum across ranks ---- */

/* FNV-1a over 64-bit words: cheap next to an evaluation, and any flipped bit shows. */
static uint64_t params_hash64(const float *p, long n)
{
    uint64_t h = 1469598103934665603ULL, w;
    long i = 0;
    for (; i + 2 <= n; i += 2) {
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 1099511628211ULL;
    }
    if (i < n) {
        uint32_t x;
        memcpy(&x, p + i, 4);
        h = (h ^ x) * 1099511628211ULL;
    }
    return h;
}

int train_dp_check_params(run_ctx *r)
{
    dp_ctx *d = &r->dp;
    if (d->P == 1 || !train_numerics_checked())   /* folded: the parameters are garbage */
        return 0;
    /* Test hook: RNN_TRAIN_TEST_PERTURB_RANK=K nudges rank K's parameters once. */
    const char *hook = getenv("RNN_TRAIN_TEST_PERTURB_RANK");
    if (hook && atoi(hook) == d->rank && !d->perturbed) {
        r->m.params[0] += 1e-3f;
        d->perturbed = 1;
    }
    RS_CHECK(dp_comm_same_u64(params_hash64(r->m.params, r->m.lay.total)),
             "the parameters differ across the %d ranks at step %ld (checksum mismatch at an "
             "evaluation): the ranks are no longer in step", d->P, (long)r->st.step);
    return 0;
}

/* ---- checkpoints: the global state (every worker's carried state, in worker order) ---- */

/* The model as a checkpoint sees it: the batch of all N workers, their states at
 * h, c (N blocks of (L, b, H)). */
static model global_view(const run_ctx *r, float *h, float *c)
{
    model v = r->m;
    v.cfg.batch = r->m.cfg.batch * r->dp.N;
    v.state_h = h, v.state_c = c;
    return v;
}

int train_dp_save(run_ctx *r)
{
    dp_ctx *d = &r->dp;
    long n = d->local * state_floats(&r->m);
    float *h = d->state_h, *c = d->state_c;
    int rc = 0;
    train_shard_gather_state(r);
    if (d->P > 1) {
        h = d->rank == 0 ? malloc((size_t)n * d->P * sizeof(float)) : NULL;
        c = d->rank == 0 ? malloc((size_t)n * d->P * sizeof(float)) : NULL;
        dp_comm_gather_floats(d->state_h, n, h);
        dp_comm_gather_floats(d->state_c, n, c);
    }
    if (d->rank == 0) {
        model v = global_view(r, h, c);
        rc = ckpt_save(r->o->ckpt_dir, &r->id, &v, &r->opt, &r->sched, &r->st, r->last_ckpt,
                       sizeof r->last_ckpt);
    }
    if (d->P > 1)
        free(h), free(c);
    return dp_comm_agree(rc);
}

int train_dp_resume(run_ctx *r)
{
    dp_ctx *d = &r->dp;
    long n = d->local * state_floats(&r->m);
    float *h = d->state_h, *c = d->state_c;
    if (d->P > 1) {
        h = malloc((size_t)n * d->P * sizeof(float));
        c = malloc((size_t)n * d->P * sizeof(float));
        RS_CHECK(h && c, "out of memory");
    }
    model v = global_view(r, h, c);
    int rc = ckpt_load_latest(r->o->ckpt_dir, &r->id, &v, &r->opt, &r->sched, &r->st,
                              r->last_ckpt, sizeof r->last_ckpt);
    if (rc == 0 && d->P > 1) {   /* this rank's workers' slice */
        memcpy(d->state_h, h + d->rank * n, (size_t)n * sizeof(float));
        memcpy(d->state_c, c + d->rank * n, (size_t)n * sizeof(float));
    }
    if (d->P > 1)
        free(h), free(c);
    return rc;
}
