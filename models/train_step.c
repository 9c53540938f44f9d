/* train_step.c — one training step (evaluation is train_eval.c's).
 *
 * One step: the next window of Tw <= T steps from each stream -> forward (loss,
 * dlogits) -> backward -> carry the state (per worker, train_dp.c) -> the exchange
 * over ranks -> global norm (stop here if not finite: the parameters are never
 * touched by a NaN) -> clip -> optimizer update.  At the end
 * of a pass (epoch) the streams restart and the state is zeroed.  train.c calls it on
 * its schedule; train_bench.c times it. */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "progress.h"
#include "train_ctx.h"
#include "train_platform.h"

int train_step(run_ctx *r, double *loss_out)
{
    model *m = &r->m;
    dp_ctx *d = &r->dp;
    uint64_t t0 = train_now_ns();
    int Tw;
    float *grad;
    d->overlap_exposed_s = 0;
    double loss = train_compute(r, &Tw, &grad);
    d->Tw = Tw;   /* also where compute was charged, not run: per-tensor's rounds */
    uint64_t t1 = train_now_ns();
    loss = train_dp_exchange(r, grad, loss, train_stop_requested());
    uint64_t t2 = train_now_ns();
    *loss_out = loss;
    int checked = train_numerics_checked();   /* folded buffers: NaN means nothing */
    if (!isfinite(loss) && checked)
        return 1;
    /* the workers' mean gradient is grad / N: the 1/N rides on the norm and the scale */
    double norm = grad_norm(grad, m->lay.total) / d->N;
    if (!isfinite(norm) && checked) {
        *loss_out = norm;
        return 1;
    }
    if (d->N > 1)   /* B_simple: batches counted in streams */
        grad_noise_add(&r->st.noise, d->small_sq / d->N, norm * norm, m->cfg.batch,
                       (double)m->cfg.batch * d->N);
    double gs = r->opt.clip > 0 && norm > r->opt.clip ? r->opt.clip / norm : 1.0;
    r->lr = sched_lr(&r->sched, r->st.step);
    optim_step(&r->opt, m->params, grad, r->lr, gs / d->N, &m->lay);
    train_charge_update(r);
    /* the exchange train_compute waited for after the backward is exposed exchange */
    d->compute_s = (double)(t1 - t0) * 1e-9 - d->overlap_exposed_s;
    d->exchange_s = (double)(t2 - t1) * 1e-9 + d->overlap_exposed_s;
    d->optimizer_s = (double)(train_now_ns() - t2) * 1e-9;
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

void train_diverged(const run_ctx *r, const char *what, double v)
{
    rs_progress_done();
    rs_seterr("%s became %s at step %ld (the run diverged: lower --lr or --clip)%s%s%s", what,
              isnan(v) ? "nan" : "inf", (long)r->st.step,
              r->last_ckpt_step >= 0 ? "; the last good checkpoint is kept: " : "",
              r->last_ckpt_step >= 0 ? r->last_ckpt : "",
              r->last_ckpt_step >= 0 ? "" : "; no checkpoint was written");
}
