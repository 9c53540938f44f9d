/* train_step.c — one training step and the evaluation on the valid split.
 *
 * One step: the next window of Tw <= T steps from each stream -> forward (loss,
 * dlogits) -> backward -> carry the state (per worker, train_dp.c) -> the exchange
 * over ranks -> global norm (stop here if not finite: the parameters are never
 * touched by a NaN) -> clip -> optimizer update.  At the end
 * of a pass (epoch) the streams restart and the state is zeroed.  train.c calls these
 * on its schedule; train_bench.c times train_step alone. */
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
    double loss = train_compute(r, &Tw, &grad);
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
    double gs = r->opt.clip > 0 && norm > r->opt.clip ? r->opt.clip / norm : 1.0;
    r->lr = sched_lr(&r->sched, r->st.step);
    optim_step(&r->opt, m->params, grad, r->lr, gs / d->N, &m->lay);
    train_charge_update(r);
    d->compute_s = (double)(t1 - t0) * 1e-9;
    d->exchange_s = (double)(t2 - t1) * 1e-9;
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

static double train_loss_avg(const run_ctx *r)
{
    return r->st.loss_count ? r->st.loss_sum / (double)r->st.loss_count : NAN;
}

static void print_eval_line(const run_ctx *r, double train_loss, const eval_result *ev)
{
    rs_progress_done();
    printf("step %6ld  epoch %ld  tokens %9ld  train loss %.4f  valid ppl %8.2f  lr %.4g  "
           "%.0f tok/s  %.1f s\n",
           (long)r->st.step, (long)r->st.epoch, (long)r->st.tokens, train_loss, ev->ppl, r->lr,
           r->st.seconds > 0 ? r->st.tokens / r->st.seconds : 0, r->st.seconds);
    if (r->o->level == LEVEL_CHAR)
        printf("             valid %.4f bits per character\n", ev->bits);
    fflush(stdout);
}

/* A scheduled evaluation (every eval_every steps) also closes the train-loss average and
 * feeds the schedule and the target; the one at the end of a run that stops between
 * them (--steps, Ctrl-C) only reports, so stopping and resuming changes nothing the
 * training sees. */
int train_evaluate(run_ctx *r, int scheduled)
{
    eval_result ev;
    if (train_dp_check_params(r) != 0)
        return -1;
    eval_split_groups(&r->m, r->corp.valid, r->corp.nvalid, r->dp.N, &ev);
    double tl = train_loss_avg(r);
    r->last_train_loss = tl;
    r->last_valid = ev;
    r->have_valid = 1;
    train_log_row(r, tl, ev.ppl);
    if (run_says(r))
        print_eval_line(r, tl, &ev);
    if (!isfinite(ev.ppl) && train_numerics_checked()) {   /* mean loss > 709 nats: the weights have blown up */
        train_diverged(r, "the validation perplexity", ev.ppl);
        return -1;
    }
    int reached = r->o->target_ppl > 0 && ev.ppl <= r->o->target_ppl && r->target_step < 0;
    if (reached) {
        r->target_step = r->st.step;
        r->target_tokens = r->st.tokens;
        r->target_seconds = r->st.seconds;
    }
    if (!scheduled)
        return 0;
    r->st.last_valid_ppl = ev.ppl;
    r->st.last_eval_step = r->st.step;
    r->st.loss_sum = 0;
    r->st.loss_count = 0;
    if (reached) {
        r->stop_reason = "target reached";
        return 1;
    }
    if (sched_on_eval(&r->sched, ev.ppl)) {
        r->stop_reason = "plateau (valid ppl gain < 1.003 while halving)";
        return 1;
    }
    return 0;
}
