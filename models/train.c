/* train.c — the training run: truncated BPTT over B parallel streams with the hidden
 * state carried across windows (train_step.c), evaluation every eval_every steps,
 * checkpoints, and the stop conditions (--steps, --epochs, --target-ppl, the plateau,
 * --max-seconds, a signal); then the final evaluation on valid and test, and the summary table.
 * --bench and --pipeline run instead of the loop, on the same set-up (train_bench.c).
 *
 * Interrupts: Ctrl-C or SIGTERM during training sets a flag; the step in flight
 * finishes, a checkpoint is written (with --checkpoint), and the run exits 130 (143
 * after SIGTERM).  In every other phase (train_phase) and on a second signal the
 * handler exits at once; while a file is being written the common handler (fsio.h) is
 * in place instead: either removes the temporary first.  A checkpoint due at an
 * evaluation step is written before that evaluation, so a signal during it leaves the
 * step's checkpoint (evaluate_resumed).  With --eval-ranks a stopping run abandons the
 * evaluation in flight rather than wait for it, where the checkpoint of its step exists
 * (train_eval_abandon): no later checkpoint is written, the resumed run evaluates again. */
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "completion.h"
#include "fsio.h"
#include "progress.h"
#include "sha256.h"
#include "train_ctx.h"
#include "train_platform.h"

void train_opts_defaults(train_opts *o)
{
    memset(o, 0, sizeof *o);
    o->cfg = (model_cfg){CELL_LSTM, 1, 512, 512, 0, 32, 35, 0};
    o->vocab_cap = 10000;
    o->level = LEVEL_WORD;
    o->corpus = "mobydick";
    o->optim = OPT_SGD;
    o->lr = -1;
    o->momentum = 0.9;
    o->clip = 5.0;
    o->sched = SCHED_PLATEAU;
    o->eval_every = 0;
    o->seed = 1;
    o->threads = 0;
    o->bucket_mib = 25;   /* PyTorch DDP's default bucket_cap_mb */
    o->exchange.timeout_s = 600;
}

/* ---- signals: a flag where a safe point follows, else exit at once ----
 * Between training steps (and --bench's) the step in flight finishes and the loop
 * stops at a safe point (a checkpoint, one line).  Everywhere else (set-up, GEMM
 * tuning, evaluation, --completion, --pipeline) nothing is due that a signal could wait
 * for: the handler exits at once, as it does on a second signal, removing the temporary
 * being written (fsio.h).  An eval rank of --eval-ranks waits EVAL_RANK_GRACE_S for the
 * training ranks (mpirun forwards the signal to all) to write their checkpoint and stop
 * it, then exits as signalled (signalled alone, mpirun then ends the job). */
enum { EVAL_RANK_GRACE_S = 3 };
static volatile sig_atomic_t stop_signal, safe_point_ahead, quiet, serving;
static char phase_text[2][4608] = {"during set-up: nothing was written", ""};
static const char *volatile phase = phase_text[0];

static void on_stop(int sig)
{
    if (serving && !stop_signal) {   /* an eval rank: the training ranks stop it, soon */
        stop_signal = sig;
        alarm(EVAL_RANK_GRACE_S);
        return;
    }
    if (stop_signal || !safe_point_ahead)
        rs_signal_exit(sig, quiet         ? NULL   /* rank 0 alone speaks */
                            : stop_signal ? "a second signal: stopped at once, no partial file left"
                                          : phase);
    stop_signal = sig;
}

/* An eval rank not stopped by the training ranks within the grace: exit as signalled. */
static void on_grace_over(int sig)
{
    (void)sig;
    rs_signal_exit(stop_signal, NULL);
}

void train_handlers_install(void) { rs_install_signal_handler(on_stop); }
/* Summed over the ranks (train_dp_exchange): SIGTERM counts 1, SIGINT 1000, so every
 * rank learns whether any was asked to stop, and whether by SIGTERM. */
int train_stop_requested(void) { return stop_signal == SIGTERM ? 1 : stop_signal ? 1000 : 0; }
int train_stop_agreed(const run_ctx *r) { return r->dp.P > 1 ? r->dp.stop_any : stop_signal != 0; }
int train_stop_code(const run_ctx *r)
{
    if (r->dp.P > 1)
        return r->dp.stop_term ? RS_EXIT_TERM : RS_EXIT_INTR;
    return RS_EXIT_FOR_SIGNAL(stop_signal);
}

/* Tests: RNN_TRAIN_PHASES=FILE appends each phase rank 0 enters (its "during ..." line)
 * to FILE, so a test signals once the phase has begun, not after a guessed sleep. */
static void tell_phase(const char *what)
{
    static int fd = -2;
    static char last[128];
    if (fd == -2) {
        const char *e = getenv("RNN_TRAIN_PHASES");
        fd = e && !quiet ? open(e, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    }
    if (fd < 0 || strncmp(last, what, sizeof last - 1) == 0)
        return;
    snprintf(last, sizeof last, "%s", what);
    dprintf(fd, "%s\n", what);
}

int train_phase(const run_ctx *r, const char *what, int safe_point)
{
    tell_phase(what);
    /* the other buffer, then the pointer: the handler never reads a half-written line */
    char *t = phase_text[phase == phase_text[0]];
    if (!r || !r->o->ckpt_dir)
        snprintf(t, sizeof phase_text[0], "%s", what);
    else if (r->last_ckpt_step >= 0 && r->last_ckpt[0])
        snprintf(t, sizeof phase_text[0], "%s; checkpoint %s (step %ld) is the newest "
                 "(continue with --resume)", what, r->last_ckpt, r->last_ckpt_step);
    else
        snprintf(t, sizeof phase_text[0], "%s; no checkpoint written yet", what);
    phase = t;
    int was = safe_point_ahead;
    safe_point_ahead = safe_point;
    return was;
}

/* A checkpoint of the current step, unless there is one already. */
static int save_ckpt(run_ctx *r)
{
    if (!r->o->ckpt_dir || r->last_ckpt_step == r->st.step)
        return 0;
    int was_safe = train_phase(r, "while writing a checkpoint", 0);
    rs_install_signal_handlers();   /* a signal removes the temporary and exits */
    int rc = train_dp_save(r);
    train_handlers_install();
    if (was_safe)
        train_phase(r, "training", 1);
    if (rc == 0)
        r->last_ckpt_step = r->st.step;
    return rc;
}

/* The progress bar's label: loss, the last valid ppl, a smoothed tok/s. */
static void show_progress(const run_ctx *r, long start, double loss, double tok_per_s)
{
    char label[64];
    char ppl[16] = "-";
    if (r->st.last_valid_ppl > 0)
        snprintf(ppl, sizeof ppl, "%.1f", r->st.last_valid_ppl);
    snprintf(label, sizeof label, "loss %.3f ppl %s %.0f tok/s step %ld", loss, ppl, tok_per_s,
             (long)r->st.step);
    rs_progress((int)(r->st.step - start), label);
}

/* After a signal: the checkpoint, and the one line saying where things stand. */
static int stop_on_signal(run_ctx *r)
{
    rs_progress_done();
    long dropped = train_eval_abandon(r);   /* --eval-ranks: not waited for */
    if (dropped >= 0 && r->o->ckpt_dir) {   /* its step's checkpoint is the newest whole one */
        rs_seterr("interrupted at step %ld; the evaluation of step %ld abandoned: checkpoint "
                  "%s (step %ld) is the newest (continue with --resume; it evaluates again)",
                  (long)r->st.step, dropped, r->last_ckpt, dropped);
        return train_stop_code(r);
    }
    if (dropped < 0 && train_eval_settle(r, 1) < 0)   /* the checkpoint takes the result */
        return RS_EXIT_WRONG;
    if (r->o->ckpt_dir && save_ckpt(r) != 0)
        return RS_EXIT_USAGE;
    if (r->o->ckpt_dir)
        rs_seterr("interrupted at step %ld; checkpoint %s written (continue with --resume)",
                  (long)r->st.step, r->last_ckpt);
    else
        rs_seterr("interrupted at step %ld (no --checkpoint folder: nothing saved)",
                  (long)r->st.step);
    return train_stop_code(r);
}

/* A checkpoint due at an evaluation step is written before that evaluation (as
 * --eval-async's is), so a signal during it exits naming that checkpoint; a run
 * resumed from one evaluates first, as the uninterrupted run did after that step (the
 * evaluation reads the parameters and the saved train-loss sum, and restores the
 * carried state: the same row, the same schedule).  1 to stop, 0 to go on, -1. */
static int evaluate_resumed(run_ctx *r)
{
    if (r->async || !train_eval_due(r, r->st.step) ||
        r->st.last_eval_step == r->st.step)
        return 0;
    return train_evaluate(r, 1);
}

/* Steps until the end step, a stop condition or a signal.  -1 to go on to the final
 * evaluation, or the exit code. */
static int train_loop(run_ctx *r, long end)
{
    long start = r->st.step;
    if (run_says(r))
        rs_progress_begin((int)(end > start ? end - start : 1));
    r->stop_reason = "steps";
    double win_tok = 0, win_s = 0;
    /* the rate of the last step done, as an uninterrupted run's row of it has */
    r->lr = sched_lr(&r->sched, r->st.step > 0 ? r->st.step - 1 : 0);
    if (train_eval_launch_due(r) != 0)   /* --eval-async: resumed before its evaluation */
        return RS_EXIT_WRONG;
    int first = evaluate_resumed(r);
    if (first != 0) {
        rs_progress_done();
        return first < 0 ? RS_EXIT_WRONG : -1;
    }
    while (r->st.step < end) {
        double loss;
        train_phase(r, "training", 1);
        uint64_t t0 = train_now_ns();
        long tok0 = r->st.tokens;
        if (train_step(r, &loss) != 0) {
            r->st.step++;   /* name the step that failed */
            train_diverged(r, "the training loss", loss, r->st.step);
            return RS_EXIT_WRONG;
        }
        double dt = train_seconds_since(t0);
        r->st.seconds += dt;
        win_tok = 0.9 * win_tok + (double)(r->st.tokens - tok0);
        win_s = 0.9 * win_s + dt;
        if (run_says(r))
            show_progress(r, start, loss, win_tok / win_s);
        int ckpt_due = r->o->ckpt_dir && r->st.step % r->ckpt_every == 0;
        int early = ckpt_due && !r->async && train_eval_due(r, r->st.step);
        if (early && save_ckpt(r) != 0)   /* before its evaluation (evaluate_resumed) */
            return RS_EXIT_USAGE;
        int stop = train_eval_after_step(r, ckpt_due);
        if (stop < 0)
            return RS_EXIT_WRONG;
        if (train_eval_dropped(r) >= 0)   /* a signal while waiting for --eval-ranks */
            return stop_on_signal(r);
        if (!stop && r->o->max_seconds > 0 && r->st.seconds >= r->o->max_seconds) {
            r->stop_reason = "time budget";
            stop = 1;
        }
        if (r->o->ckpt_dir && (ckpt_due || stop) && save_ckpt(r) != 0)
            return RS_EXIT_USAGE;
        if (stop)
            break;
        if (train_eval_launch_due(r) != 0)
            return RS_EXIT_WRONG;
        if (train_stop_agreed(r))
            return stop_on_signal(r);
    }
    rs_progress_done();
    return -1;
}

/* --completion N: the sentence completion test on held-out test sentences. */
static int completion_test(run_ctx *r)
{
    completion_set q;
    if (completion_build(&q, &r->corp, r->o->completion, r->o->seed) != 0)
        return -1;
    r->completion_n = q.n;
    r->completion_acc = completion_accuracy_model(&r->m, &q);
    completion_free(&q);
    return r->completion_n > 0 && isnan(r->completion_acc) ? -1 : 0;
}

/* After the loop: --eval-async's evaluation in flight, valid (unless the last step was
 * just evaluated), the last checkpoint, test (both sharded over the ranks), the
 * parameters' hash, --completion, the final lines and the summary table. */
static int finish(run_ctx *r)
{
    const train_opts *o = r->o;
    char what[96];
    snprintf(what, sizeof what, "during the final evaluation at step %ld", (long)r->st.step);
    train_phase(r, what, 0);
    if (train_eval_finish(r) != 0)
        return RS_EXIT_WRONG;
    if ((r->st.last_eval_step != r->st.step || r->st.step == 0) && train_evaluate(r, 0) < 0)
        return RS_EXIT_WRONG;
    else if (!r->have_valid) {   /* resumed at the end: nothing trained, nothing logged */
        train_eval_split(r, r->corp.valid, r->corp.nvalid, &r->last_valid);
        r->last_train_loss = NAN;
    }
    if (o->ckpt_dir && save_ckpt(r) != 0)
        return RS_EXIT_USAGE;
    train_phase(r, what, 0);   /* now naming the final checkpoint */
    eval_result valid = r->last_valid, test;
    if (r->eval_n < r->corp.nvalid || r->last_gated)   /* they scored a prefix (--eval-tokens)
                                                           or first windows (--eval-gate) */
        train_eval_split(r, r->corp.valid, r->corp.nvalid, &valid);
    train_eval_split(r, r->corp.test, r->corp.ntest, &test);
    sha256_hex(r->m.params, (size_t)r->m.lay.total * sizeof(float), r->params_sha256);
    train_phase(r, "during --completion", 0);
    if (o->completion > 0 && o->level == LEVEL_WORD && completion_test(r) != 0)
        return RS_EXIT_USAGE;
    train_phase(r, "while writing the results: no partial file left", 0);
    if (run_says(r))
        train_print_final(r, &valid, &test);
    return train_summary(r, &valid, &test) != 0 ? RS_EXIT_USAGE : RS_EXIT_OK;
}

static int run(run_ctx *r)
{
    /* every rank must learn of bad input found by any (rank 0 alone checks its files),
     * eval ranks too before they wait for evaluations */
    if (dp_comm_agree_all(train_setup(r)) != 0)
        return RS_EXIT_USAGE;
    if (dp_comm_eval_index() >= 0) {
        signal(SIGALRM, on_grace_over);
        serving = 1;
        int code = train_eval_serve(r);
        alarm(0);
        return stop_signal ? RS_EXIT_FOR_SIGNAL(stop_signal) : code;
    }
    r->eval_linked = dp_comm_eval_ranks() > 0;
    if (train_dp_start(r) != 0)
        return RS_EXIT_USAGE;
    /* the log last, so a run refused at set-up (e.g. --allreduce library:99) leaves none */
    const train_opts *o = r->o;
    if (dp_comm_agree(o->log && !o->bench && !o->pipeline ? train_log_open(r) : 0) != 0)
        return RS_EXIT_USAGE;
    if (run_says(r))
        train_print_header(r);
    if (r->o->pipeline) {
        train_phase(NULL, "during --pipeline: nothing was written", 0);
        return train_pipeline(r);
    }
    if (r->o->bench)
        return train_bench(r);
    /* neither --steps nor --epochs: one pass */
    int code = train_loop(r, r->step_limit ? r->step_limit : r->steps_per_epoch);
    if (code < 0 && train_stop_agreed(r))   /* arrived in the last step: stop as in the loop */
        return stop_on_signal(r);
    return code >= 0 ? code : finish(r);
}

/* What a flag left unset stands for. */
static void fill_defaults(train_opts *o)
{
    if (o->threads <= 0)
        o->threads = train_default_threads();
    if (o->workers <= 0)
        o->workers = dp_comm_size();
    if (!o->sync)
        o->sync = "fused";
    if (!o->embed_exchange)
        o->embed_exchange = "dense";
    if (!o->exchange.algo)
        o->exchange.algo = "library";
}

int train_check_only(const train_opts *opts)
{
    train_opts o = *opts;
    fill_defaults(&o);
    return train_check_args(&o) != 0 ? RS_EXIT_USAGE : RS_EXIT_OK;
}

int train_run(const train_opts *opts)
{
    train_opts o = *opts;
    fill_defaults(&o);
    if (dp_comm_rank() != 0 || dp_comm_eval_index() >= 0)   /* rank 0 alone prints, writes */
        o.quiet = 1, o.log = o.csv = o.json = NULL;
    run_ctx *r = calloc(1, sizeof *r);
    if (!r) {
        rs_seterr("out of memory");
        return RS_EXIT_USAGE;
    }
    r->o = &o;
    stop_signal = serving = 0;
    quiet = dp_comm_rank() != 0 || dp_comm_eval_index() >= 0;
    train_phase(NULL, "during set-up: nothing was written", 0);
    train_handlers_install();
    /* absent for every rank, looked at before any rank can make it (the agreement
     * is collective) */
    int ckpt_new = o.ckpt_dir && dp_comm_agree_all(access(o.ckpt_dir, F_OK) != 0 ? -1 : 0) != 0;
    int code = run(r);
    /* a run refused at set-up leaves no checkpoint folder it made (rmdir: only if empty;
     * the lock file first, while still held, so no other run can be using it) */
    if (code == RS_EXIT_USAGE && ckpt_new && !r->last_ckpt[0] && dp_comm_rank() == 0) {
        if (r->ckpt_lock >= 0) {
            char lock[4200];
            snprintf(lock, sizeof lock, "%s/%s", o.ckpt_dir, CKPT_LOCK);
            unlink(lock);
        }
        rmdir(o.ckpt_dir);
    }
    train_teardown(r);
    free(r);
    return code;
}
