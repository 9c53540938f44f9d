/* train_eval.c — evaluation during training: the valid (and test) split sharded over the
 * ranks, the evaluation row (logged, printed, then taken by the schedule and the
 * target), and --eval-async, which scores a snapshot of the parameters on a spare thread
 * while training goes on.  train.c calls these on its schedule; train_bench.c times them.
 *
 * Sharding: the split is laid as G groups of the worker's b streams (eval.c; G = N, or
 * --eval-streams / b); rank r of P scores groups [r G/P, (r+1) G/P) and the (loss sum,
 * tokens) pairs are summed over the ranks, so every rank gets the same perplexity.
 *
 * --eval-async: at a scheduled evaluation the parameters are copied into a second model
 * (its own activations and state) that a thread scores at one OpenMP thread.  The row of
 * step s carries what step s had (tokens, seconds, train loss, lr).  It is logged when
 * collected: as soon as it is ready in one process; under mpirun at the next evaluation,
 * since the sum over ranks is an MPI call, made by the main thread.  The schedule and the
 * target take it at the next scheduled evaluation, at a checkpoint or at the end,
 * whichever comes first, after waiting for it if need be (that wait is the exposed time):
 * the schedule reacts one evaluation late, at steps that timing cannot move, and no
 * checkpoint holds a result half taken.  A checkpoint due at an evaluation step is written
 * before that evaluation starts, and a run resumed from it starts that evaluation again.
 *
 * --eval-ranks K is the same machinery with another back end: instead of a thread,
 * training rank 0 posts the snapshot to the K eval ranks (dp_comm.h's link), which score
 * groups [e G/K, (e+1) G/K) each (train_eval_serve) and send back the sums; training
 * rank 0 waits for them at the same fixed points and the sum over the training ranks
 * (the others adding zeros) shares the result.  The final valid/test evaluation is
 * sharded over the training ranks, as without eval ranks.  A run stopping on a signal
 * abandons the evaluation in flight on the eval ranks (train_eval_abandon) where the
 * checkpoint of its step exists: a resumed run starts that evaluation again. */
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "check.h"
#include "matmul.h"
#include "progress.h"
#include "timer.h"
#include "train_ctx.h"
#include "train_platform.h"

struct eval_async {
    int remote;           /* --eval-ranks: the eval ranks score, not a thread */
    model m;              /* thread: the evaluator's own model; its parameters are the snapshot */
    float *snapshot;      /* remote, training rank 0: the parameters being sent */
    const run_ctx *r;     /* the split and the shard: read only while the thread runs */
    pthread_t thread;
    int running;          /* started and not joined */
    int pending;          /* a row the schedule has not taken yet */
    int logged;           /* that row is collected and logged */
    atomic_int done;      /* the thread's scoring has finished */
    eval_row row;
    double sums[DP_EVAL_RESULT];   /* this rank's (loss sum, tokens[, scoring s]) */
    double launch_s;      /* the loop's time spent starting it: the snapshot, the thread */
    long dropped;         /* remote: the step whose evaluation a signal abandoned; -1 */
    int may_drop;         /* waited for between steps (train_eval_after_step) */
};


/* Shard `part` of `parts` of model m's evaluation of the split, groups
 * [part G/parts, (part+1) G/parts) of the G groups: (loss sum, tokens). */
static void score_shard(const run_ctx *r, model *m, const int *data, long n, long part,
                        long parts, int windows, double sums[2])
{
    long G = r->eval_groups, tokens;
    train_score_groups(m, data, n, (int)G, (int)(part * G / parts), (int)((part + 1) * G / parts),
                       windows, &sums[0], &tokens);
    sums[1] = (double)tokens;
}

static void score_split(run_ctx *r, const int *data, long n, int windows, eval_result *ev)
{
    double v[2];
    score_shard(r, &r->m, data, n, r->dp.rank, r->dp.P, windows, v);
    dp_comm_sum_doubles(v, 2);
    eval_result_set(ev, v[0], (long)v[1]);
}

void train_eval_split(run_ctx *r, const int *data, long n, eval_result *ev)
{
    score_split(r, data, n, 0, ev);
}

/* The row's valid score.  --eval-gate: each stream's first window first, the whole
 * prefix only when that is at or under the gate.  The full scoring starts again from
 * the streams' beginnings rather than keeping each group's state: it costs the first
 * window twice on the evaluations near the targets, and nothing on the others. */
static void score_row(run_ctx *r, eval_row *w)
{
    if (r->o->eval_gate > 0 && train_numerics_checked()) {
        score_split(r, r->corp.valid, r->eval_n, 1, &w->first);
        w->gated = !(w->first.ppl <= r->o->eval_gate);   /* NaN: gated, and diverged */
        if (w->gated) {
            w->valid = w->first;
            return;
        }
    }
    train_eval_split(r, r->corp.valid, r->eval_n, &w->valid);
}

/* What the current step has, for its row. */
static eval_row row_now(const run_ctx *r)
{
    eval_row w;
    memset(&w, 0, sizeof w);
    w.step = r->st.step;
    w.epoch = r->st.epoch;
    w.tokens = r->st.tokens;
    w.seconds = r->st.seconds;
    w.train_loss = r->st.loss_count ? r->st.loss_sum / (double)r->st.loss_count : NAN;
    w.lr = r->lr;
    w.b_simple = r->dp.N > 1 ? grad_noise_bsimple(&r->st.noise) : NAN;
    return w;
}

static void print_eval_line(const eval_row *w, int chars)
{
    rs_progress_done();
    printf("step %6ld  epoch %ld  tokens %9ld  train loss %.4f  valid ppl %8.2f%s  lr %.4g  "
           "%.0f tok/s  %.1f s\n", w->step, w->epoch, w->tokens, w->train_loss, w->valid.ppl,
           w->gated ? " (first windows)" : "", w->lr, w->seconds > 0 ? w->tokens / w->seconds : 0,
           w->seconds);
    if (chars)
        printf("             valid %.4f bits per character\n", w->valid.bits);
    fflush(stdout);
}

/* A valid perplexity that ends the run as diverged: not finite (mean loss > 709 nats,
 * blown up), or above --diverge-ppl.  Folded buffers (SMPI) score nothing real. */
static int ppl_diverged(const run_ctx *r, double ppl)
{
    return train_numerics_checked() &&
           (!isfinite(ppl) || (r->o->diverge_ppl > 0 && ppl > r->o->diverge_ppl));
}

/* The row logged, printed, kept as the last evaluation and checked against the target.
 * 0, or -1 when the perplexity counts as diverged (ppl_diverged; rs_lasterr). */
static int record_row(run_ctx *r, const eval_row *w)
{
    r->last_train_loss = w->train_loss;
    r->last_valid = w->valid;
    r->last_gated = w->gated;
    r->have_valid = 1;
    r->eval_count++;
    r->eval_total_s += w->eval_s;
    r->eval_exposed_total_s += w->exposed_s;
    train_log_row(r, w);
    if (run_says(r) && !r->o->bench)
        print_eval_line(w, r->o->level == LEVEL_CHAR);
    if (ppl_diverged(r, w->valid.ppl)) {
        train_diverged(r, "the validation perplexity", w->valid.ppl, w->step);
        return -1;
    }
    if (r->o->target_ppl > 0 && !w->gated && w->valid.ppl <= r->o->target_ppl &&
        r->target_step < 0) {
        r->target_step = w->step;
        r->target_tokens = w->tokens;
        r->target_seconds = w->seconds;
    }
    return 0;
}

/* A scheduled evaluation's row taken by the schedule and the target: 1 to stop, 0 not. */
static int apply_row(run_ctx *r, const eval_row *w)
{
    r->st.last_valid_ppl = w->valid.ppl;
    r->st.last_eval_step = w->step;
    if (r->o->target_ppl > 0 && r->target_step == w->step) {
        r->stop_reason = "target reached";
        return 1;
    }
    if (!w->gated && sched_on_eval(&r->sched, w->valid.ppl)) {
        r->stop_reason = "plateau (valid ppl gain < 1.003 while halving)";
        return 1;
    }
    return 0;
}

/* A scheduled evaluation also closes the train-loss average and feeds the schedule and
 * the target; the one at the end of a run that stops between them (--steps, Ctrl-C)
 * only reports, so stopping and resuming changes nothing the training sees. */
int train_evaluate(run_ctx *r, int scheduled)
{
    uint64_t t0 = train_now_ns();
    char what[96];
    snprintf(what, sizeof what, "during the evaluation at step %ld", (long)r->st.step);
    int was_safe = train_phase(r, what, 0);   /* no safe point until it ends: exit at once */
    if (train_dp_check_params(r) != 0)
        return -1;
    eval_row w = row_now(r);
    score_row(r, &w);
    if (was_safe)
        train_phase(r, "training", 1);
    w.eval_s = w.exposed_s = train_seconds_since(t0);
    if (record_row(r, &w) != 0)
        return -1;
    if (!scheduled)
        return 0;
    r->st.loss_sum = 0;
    r->st.loss_count = 0;
    return apply_row(r, &w);
}

/* ---- --eval-async ---- */

static void *eval_thread(void *arg)
{
    struct eval_async *a = arg;
    /* The trainer keeps its threads: no team on this thread, not even a library's that
     * names its own thread count (BLIS's num_threads(n), a library team beside the
     * trainer's); the ICV is this thread's own */
    omp_set_num_threads(1);
    omp_set_max_active_levels(0);
    rs_unpin_thread();   /* started by the team's pinned thread 0: not on its CPU */
    uint64_t t0 = train_now_ns();
    score_shard(a->r, &a->m, a->r->corp.valid, a->r->eval_n, a->r->dp.rank, a->r->dp.P, 0,
                a->sums);
    a->row.eval_s = train_seconds_since(t0);
    atomic_store(&a->done, 1);
    return NULL;
}

int train_eval_setup(run_ctx *r)
{
    int remote = dp_comm_eval_ranks() > 0;
    if (!r->o->eval_async && (!remote || dp_comm_eval_index() >= 0))
        return 0;
    RS_CHECK(remote || mm_reentrant(), "--eval-async calls GEMM from two threads at once, which "
             "--gemm %s does not allow (libxsmm is not known to be re-entrant): use --gemm auto, "
             "openblas, blis, onednn or blocked", mm_backend_name());
    struct eval_async *a = calloc(1, sizeof *a);
    RS_CHECK(a, "out of memory");
    r->async = a;
    a->r = r;
    a->remote = remote;
    a->dropped = -1;
    if (remote) {   /* training rank 0 alone sends */
        if (r->dp.rank == 0)
            a->snapshot = train_big_alloc((size_t)r->m.lay.total * sizeof(float));
        RS_CHECK(r->dp.rank != 0 || a->snapshot, "out of memory for the parameter snapshot");
        return 0;
    }
    if (model_create(&a->m, &r->m.cfg) != 0)
        return -1;
    return r->m.cfg.classes > 0 ? train_set_classes(r, &a->m) : 0;
}

void train_eval_teardown(run_ctx *r)
{
    struct eval_async *a = r->async;
    if (!a)
        return;
    if (a->remote) {
        if (r->eval_linked && r->dp.rank == 0) {   /* the eval ranks stop after the last */
            if (a->running)
                dp_eval_wait(a->sums);
            dp_eval_post(NULL, 0);
        }
        train_big_free(a->snapshot);
    } else {
        if (a->running)
            pthread_join(a->thread, NULL);
        model_destroy(&a->m);
    }
    free(a);
    r->async = NULL;
}

int train_eval_serve(run_ctx *r)
{
    long K = dp_comm_eval_ranks(), e = dp_comm_eval_index();
    eval_set_abandon_check(dp_eval_abandoned);   /* a stopping run waits for no score */
    while (dp_eval_receive(r->m.params, r->m.lay.total)) {
        uint64_t t0 = train_now_ns();
        double part[DP_EVAL_RESULT];
        score_shard(r, &r->m, r->corp.valid, r->eval_n, e, K, 0, part);
        part[2] = train_seconds_since(t0) / (double)K;   /* summed: the mean */
        dp_eval_reply(part);
    }
    return RS_EXIT_OK;
}

/* The evaluation started on the thread, or (remote) posted to the eval ranks.  0, or
 * -1 (rs_lasterr). */
static int start_scoring(run_ctx *r)
{
    struct eval_async *a = r->async;
    memset(a->sums, 0, sizeof a->sums);
    if (a->remote) {
        if (r->dp.rank != 0)
            return 0;
        memcpy(a->snapshot, r->m.params, (size_t)r->m.lay.total * sizeof(float));
        return dp_eval_post(a->snapshot, r->m.lay.total);
    }
    memcpy(a->m.params, r->m.params, (size_t)r->m.lay.total * sizeof(float));
    atomic_store(&a->done, 0);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);   /* signals stay with the trainer's thread */
    int rc = pthread_create(&a->thread, NULL, eval_thread, a);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    RS_CHECK(rc == 0, "--eval-async: cannot start the evaluation thread: %s", strerror(rc));
    return 0;
}

/* The checksum (collective), the row of this step, the snapshot and the scoring.  0, or
 * -1 (rs_lasterr). */
static int launch(run_ctx *r)
{
    struct eval_async *a = r->async;
    uint64_t t0 = train_now_ns();
    if (train_dp_check_params(r) != 0)
        return -1;
    a->row = row_now(r);
    r->st.loss_sum = 0;
    r->st.loss_count = 0;
    if (start_scoring(r) != 0)
        return -1;
    a->running = a->pending = 1;
    a->logged = 0;
    a->launch_s = train_seconds_since(t0);
    return 0;
}

/* Wait for the thread or the eval ranks (the wait is exposed), sum the shards over the
 * training ranks (collective) and record the row.  0, or -1 (rs_lasterr). */
static int collect(run_ctx *r)
{
    struct eval_async *a = r->async;
    uint64_t t0 = train_now_ns();
    /* a signal while training rank 0 waits for the eval ranks abandons the evaluation
     * where the checkpoint of its step exists (train_eval_abandon); the other training
     * ranks learn it, and the signal's kind, from negative tokens in the sum */
    int droppable = a->remote && a->may_drop &&
                    (!r->o->ckpt_dir || r->last_ckpt_step == a->row.step);
    if (!a->remote)
        pthread_join(a->thread, NULL);
    else if (r->dp.rank == 0 &&
             dp_eval_wait_unless(a->sums, droppable ? train_stop_requested : NULL)) {
        a->sums[0] = 0;
        a->sums[1] = -(double)train_stop_requested();
    }
    a->running = 0;
    dp_comm_sum_doubles(a->sums, a->remote ? DP_EVAL_RESULT : 2);
    if (a->sums[1] < 0) {
        a->pending = 0;
        a->dropped = a->row.step;
        r->dp.stop_any = 1;
        r->dp.stop_term = fmod(-a->sums[1], 1000) > 0;   /* train_stop_requested's counts */
        return 0;
    }
    if (a->remote)
        a->row.eval_s = a->sums[2];
    eval_result_set(&a->row.valid, a->sums[0], (long)a->sums[1]);
    a->row.exposed_s = a->launch_s + train_seconds_since(t0);
    a->logged = 1;
    return record_row(r, &a->row);
}

int train_eval_poll(run_ctx *r)
{
    struct eval_async *a = r->async;
    if (a && a->remote && a->running && r->dp.rank == 0)
        dp_eval_progress();   /* the parameters may still be on their way */
    if (!a || a->remote || r->dp.P > 1 || !a->running || !atomic_load(&a->done))
        return 0;
    return collect(r);
}

int train_eval_settle(run_ctx *r, int apply)
{
    struct eval_async *a = r->async;
    if (!a || !a->pending)
        return 0;
    if (!a->logged && collect(r) != 0)
        return -1;
    if (a->dropped >= 0)   /* the run stops (train_eval_dropped) */
        return 1;
    a->pending = 0;
    return apply ? apply_row(r, &a->row) : 0;
}

long train_eval_dropped(const run_ctx *r) { return r->async ? r->async->dropped : -1; }

long train_eval_abandon(run_ctx *r)
{
    struct eval_async *a = r->async;
    if (a && a->dropped >= 0)   /* already, while waiting for it */
        return a->dropped;
    /* the same on every training rank: no collective needed to agree */
    if (!a || !a->remote || !a->running ||
        (r->o->ckpt_dir && r->last_ckpt_step != a->row.step))
        return -1;
    if (r->dp.rank == 0)
        dp_eval_abandon();
    a->running = a->pending = 0;
    return a->dropped = a->row.step;
}

int train_eval_due(const run_ctx *r, long step)
{
    if (step <= 0 || r->o->eval_growth <= 0)
        return step > 0 && step % r->eval_every == 0;
    long e = r->eval_every;   /* a function of the step alone: a resumed run agrees */
    while (e < step) {
        long grow = (long)(r->o->eval_growth * (double)e);
        e += grow > r->eval_every ? grow : r->eval_every;
    }
    return e == step;
}

int train_eval_after_step(run_ctx *r, int ckpt_due)
{
    int due = train_eval_due(r, r->st.step);
    if (!r->async)
        return due ? train_evaluate(r, 1) : 0;
    if (train_eval_poll(r) != 0)
        return -1;
    if (!due && !ckpt_due)
        return 0;
    r->async->may_drop = 1;
    int rc = train_eval_settle(r, 1);
    r->async->may_drop = 0;
    return rc;
}

int train_eval_launch_due(run_ctx *r)
{
    const struct eval_async *a = r->async;
    if (!a || a->pending || !train_eval_due(r, r->st.step) ||
        r->st.last_eval_step == r->st.step)
        return 0;
    return launch(r);
}

int train_eval_finish(run_ctx *r)
{
    const char *why = r->stop_reason;
    long step = r->async && r->async->pending ? r->async->row.step : -1;
    int rc = train_eval_settle(r, 1);
    if (step >= 0 && step != r->st.step)   /* the run ended before the result could act */
        r->stop_reason = why;
    return rc < 0 ? -1 : 0;
}

int train_eval_bench_start(run_ctx *r)
{
    if (!r->async)
        return train_evaluate(r, 0);
    return train_eval_settle(r, 0) != 0 ? -1 : launch(r);
}
