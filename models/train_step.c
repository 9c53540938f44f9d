/* train_step.c — one training step (evaluation is train_eval.c's).
 *
 * One step: the next window of Tw <= T steps from each stream -> forward (loss,
 * dlogits) -> backward -> carry the state (per worker, train_dp.c) -> the exchange
 * over ranks -> global norm (stop here if not finite: the parameters are never
 * touched by a NaN) -> clip -> optimizer update (train_update; with --shard-update each
 * rank's block, inside the exchange: train_shard.c).  At the end
 * of a pass (epoch) the streams restart and the state is zeroed.  train.c calls it on
 * its schedule; train_bench.c times it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "checkpoint.h"
#include "progress.h"
#include "train_ctx.h"
#include "train_platform.h"

void train_update(run_ctx *r, const float *grad, long off, long len)
{
    model *m = &r->m;
    dp_ctx *d = &r->dp;
    uint64_t t0 = train_now_ns();
    /* the workers' mean gradient is grad / N: the 1/N rides on the norm and the scale */
    double norm;
    if (off == 0 && len == m->lay.total) {
        norm = grad_norm(grad, len);
    } else {   /* a shard: every rank's whole chunks, added exactly (each has one owner) */
        long chunks = (m->lay.total + GRAD_NORM_CHUNK - 1) / GRAD_NORM_CHUNK;
        double *part = calloc((size_t)chunks, sizeof(double));
        RS_ASSERT(part);
        grad_norm_parts(grad, off, off + len, part);
        RS_ASSERT(dp_exchange_sum_parts(r->dp.exchange, part, chunks) == 0);
        norm = grad_norm_of_parts(part, m->lay.total);
        free(part);
    }
    norm /= d->N;
    d->norm = norm;
    d->update_len = 0;
    if (isfinite(norm) || !train_numerics_checked()) {
        if (d->N > 1)   /* B_simple: batches counted in streams */
            grad_noise_add(&r->st.noise, d->small_sq / d->N, norm * norm, m->cfg.batch,
                           (double)m->cfg.batch * d->N);
        double gs = r->opt.clip > 0 && norm > r->opt.clip ? r->opt.clip / norm : 1.0;
        r->lr = sched_lr(&r->sched, r->st.step);
        if (off == 0 && len == m->lay.total)
            optim_step(&r->opt, m->params, grad, r->lr, gs / d->N, &m->lay);
        else
            optim_step_range(&r->opt, m->params, grad, r->lr, gs / d->N, off, off + len);
        d->update_len = len;
        train_charge_update(r);
    }
    d->update_s = (double)(train_now_ns() - t0) * 1e-9;
}

int train_step(run_ctx *r, double *loss_out)
{
    model *m = &r->m;
    dp_ctx *d = &r->dp;
    uint64_t t0 = train_now_ns();
    int Tw;
    float *grad;
    d->overlap_exposed_s = 0;
    d->updated = 0;
    double loss = train_compute(r, &Tw, &grad);
    d->Tw = Tw;   /* also where compute was charged, not run: per-tensor's rounds */
    uint64_t t1 = train_now_ns();
    loss = train_dp_exchange(r, grad, loss, train_stop_requested());   /* sharded: + update */
    uint64_t t2 = train_now_ns();
    *loss_out = loss;
    int checked = train_numerics_checked();   /* folded buffers: NaN means nothing */
    if (!isfinite(loss) && checked)
        return 1;
    if (!d->updated)
        train_update(r, grad, 0, m->lay.total);
    if (!isfinite(d->norm) && checked) {
        *loss_out = d->norm;
        return 1;
    }
    /* the exchange train_compute waited for after the backward is exposed exchange */
    double in_exchange = d->updated ? d->update_s : 0;
    d->compute_s = (double)(t1 - t0) * 1e-9 - d->overlap_exposed_s;
    d->exchange_s = (double)(t2 - t1) * 1e-9 + d->overlap_exposed_s - in_exchange;
    d->optimizer_s = (double)(train_now_ns() - t2) * 1e-9 + in_exchange;
    r->st.pos += Tw;
    r->st.step++;
    r->st.tokens += (long)Tw * m->cfg.batch * d->N;
    r->st.loss_sum += loss;
    r->st.loss_count++;
    if (r->st.pos >= r->train.len - 1) {   /* end of the pass */
        r->st.epoch++;
        r->st.pos = 0;
        train_dp_reset_state(r);
    }
    return 0;
}

void train_diverged(run_ctx *r, const char *what, double v, long step)
{
    if (r->ckpt_lock >= 0)   /* the writer; a checkpoint of step >= step holds the state */
        r->last_ckpt_step = ckpt_drop_from(r->o->ckpt_dir, step, r->resumed_step, r->last_ckpt,
                                           sizeof r->last_ckpt);
    char value[96];
    if (isfinite(v))
        snprintf(value, sizeof value, "%.6g, above --diverge-ppl %.15g,", v, r->o->diverge_ppl);
    else
        snprintf(value, sizeof value, "%s", isnan(v) ? "nan" : "inf");
    const char *left = "", *name = "";
    if (r->o->ckpt_dir && r->last_ckpt_step < 0)
        left = "; no checkpoint of an earlier step is left";
    else if (r->o->ckpt_dir) {
        left = r->last_ckpt_step < step ? "; the last good checkpoint is kept: "
                                        : "; the checkpoint it resumed from is kept: ";
        name = r->last_ckpt;
    }
    rs_progress_done();
    rs_seterr("%s became %s at step %ld (the run diverged: lower --lr or --clip)%s%s", what, value,
              step, left, name);
}
