/* train.c — the training loop: truncated BPTT over B parallel streams with the hidden
 * state carried across windows, evaluation, the log, checkpoints, --target-ppl, and
 * the --bench throughput measurement.
 *
 * One step: the next window of Tw <= T steps from each stream -> forward (loss,
 * dlogits) -> backward -> global norm (stop here if not finite: the parameters are
 * never touched by a NaN) -> clip -> optimizer update -> carry the state.  At the end
 * of a pass (epoch) the streams restart and the state is zeroed.
 *
 * Interrupts: Ctrl-C or SIGTERM during training sets a flag; the step in flight
 * finishes, a checkpoint is written (with --checkpoint), and the run exits 130.  While
 * a file is being written the common handler (fsio.h) is in place instead, so a signal
 * then removes the temporary and exits at once. */
#define _GNU_SOURCE
#include "train.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "checkpoint.h"
#include "completion.h"
#include "fsio.h"
#include "matmul.h"
#include "meta.h"
#include "opts.h"
#include "peak.h"
#include "pipeline.h"
#include "pointwise.h"
#include "progress.h"
#include "record.h"
#include "sha256.h"
#include "stats.h"
#include "timer.h"

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
}

/* The default learning rate per optimizer, for the mean loss per token. */
static double default_lr(optim_kind k)
{
    switch (k) {
    case OPT_SGD: return 1.0;
    case OPT_MOMENTUM:
    case OPT_NESTEROV: return 0.1;
    case OPT_ADAM: return 2e-3;
    }
    return 1.0;
}

/* ---- signals: a flag while training ---- */
static volatile sig_atomic_t stop_signal;
static void on_stop(int sig) { stop_signal = sig; }

static void handlers_training(void) { rs_install_signal_handler(on_stop); }

/* ---- the run ---- */
typedef struct {
    const train_opts *o;
    corpus corp;
    model m;
    optimizer opt;
    lr_sched sched;
    train_state st;
    ckpt_ident id;
    stream_set train;
    long steps_per_epoch, eval_every, ckpt_every;
    double lr;
    double last_train_loss;   /* the train loss of the last evaluation row */
    eval_result last_valid;   /* the last evaluation */
    int have_valid;           /* last_valid was computed in this process */
    FILE *log;
    char last_ckpt[4200];
    long last_ckpt_step;
    /* target */
    long target_step, target_tokens;
    double target_seconds;
    const char *stop_reason;
    char params_sha256[65];   /* of the final parameters: equal runs print equal hashes */
    int completion_n;         /* --completion: questions asked, and the fraction right */
    double completion_acc;
    char gemm_note[640];      /* resume: where the GEMM choice came from, for the header */
} run_ctx;

static int say(const run_ctx *r) { return !r->o->quiet; }

static int save_ckpt(run_ctx *r)
{
    if (!r->o->ckpt_dir || r->last_ckpt_step == r->st.step)
        return 0;
    rs_install_signal_handlers();
    int rc = ckpt_save(r->o->ckpt_dir, &r->id, &r->m, &r->opt, &r->sched, &r->st, r->last_ckpt,
                       sizeof r->last_ckpt);
    handlers_training();
    if (rc == 0)
        r->last_ckpt_step = r->st.step;
    return rc;
}

/* --log: a new file with the header, or (--resume) the existing one with only the
 * rows up to the checkpoint's last scheduled evaluation kept (a row the stopped run
 * wrote after it, e.g. its final report, is dropped), so the continued run's rows
 * follow on exactly as in a run that never stopped. */
static int open_log(run_ctx *r)
{
    const char *path = r->o->log;
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (exists && !r->o->resume)
        CHECK(0, "--log %s already exists; logs are never overwritten (choose a new name)", path);
    if (!exists) {
        if (rs_check_writable(path) != 0)
            return -1;
        r->log = fopen(path, "w");
        CHECK(r->log, "cannot write %s: %s", path, strerror(errno));
        fprintf(r->log, "step,tokens,seconds,train_loss,valid_ppl,lr\n");
        fflush(r->log);
        return 0;
    }
    FILE *in = fopen(path, "r");
    CHECK(in, "cannot read %s: %s", path, strerror(errno));
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fclose(in);
        CHECK(0, "cannot write next to %s: %s", path, strerror(errno));
    }
    FILE *out = fdopen(fd, "w");
    char line[1024];
    int first = 1;
    while (fgets(line, sizeof line, in)) {
        long step;
        if (first || (sscanf(line, "%ld,", &step) == 1 && step <= r->st.last_eval_step))
            fputs(line, out);
        first = 0;
    }
    fclose(in);
    int bad = fflush(out) != 0 || fsync(fd) != 0;
    fclose(out);
    if (bad || rename(tmp, path) != 0) {
        unlink(tmp);
        CHECK(0, "cannot rewrite %s", path);
    }
    r->log = fopen(path, "a");
    CHECK(r->log, "cannot append to %s: %s", path, strerror(errno));
    return 0;
}

static double train_loss_avg(const run_ctx *r)
{
    return r->st.loss_count ? r->st.loss_sum / (double)r->st.loss_count : NAN;
}

/* The one line for a run whose loss is no longer finite. */
static void diverged(const run_ctx *r, const char *what, double v)
{
    rs_progress_done();
    rs_seterr("%s became %s at step %ld (the run diverged: lower --lr or --clip)%s%s%s", what,
              isnan(v) ? "nan" : "inf", (long)r->st.step,
              r->last_ckpt_step >= 0 ? "; the last good checkpoint is kept: " : "",
              r->last_ckpt_step >= 0 ? r->last_ckpt : "",
              r->last_ckpt_step >= 0 ? "" : "; no checkpoint was written");
}

/* Evaluate on valid and log a row.  A scheduled evaluation (every eval_every steps)
 * also closes the train-loss average and feeds the schedule and the target; the one at
 * the end of a run that stops between them (--steps, Ctrl-C) only reports, so that
 * stopping and resuming changes nothing the training sees.  Returns 1 to stop, -1 when
 * the perplexity is not finite (rs_lasterr says so). */
static int evaluate(run_ctx *r, int scheduled)
{
    eval_result ev;
    eval_split(&r->m, r->corp.valid, r->corp.nvalid, &ev);
    double tl = train_loss_avg(r);
    r->last_train_loss = tl;
    r->last_valid = ev;
    r->have_valid = 1;
    if (r->log) {
        fprintf(r->log, "%ld,%ld,%.3f,%.6f,%.4f,%.6g\n", (long)r->st.step, (long)r->st.tokens,
                r->st.seconds, tl, ev.ppl, r->lr);
        fflush(r->log);
    }
    if (say(r)) {
        rs_progress_done();
        printf("step %6ld  epoch %ld  tokens %9ld  train loss %.4f  valid ppl %8.2f  lr %.4g  "
               "%.0f tok/s  %.1f s\n",
               (long)r->st.step, (long)r->st.epoch, (long)r->st.tokens, tl, ev.ppl, r->lr,
               r->st.seconds > 0 ? r->st.tokens / r->st.seconds : 0, r->st.seconds);
        if (r->o->level == LEVEL_CHAR)
            printf("             valid %.4f bits per character\n", ev.bits);
        fflush(stdout);
    }
    if (!isfinite(ev.ppl)) {   /* mean loss > 709 nats: the weights have blown up */
        diverged(r, "the validation perplexity", ev.ppl);
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

/* One training step on the next window.  0 ok, 1 non-finite (nothing updated). */
static int train_step(run_ctx *r, double *loss_out)
{
    model *m = &r->m;
    const model_cfg *c = &m->cfg;
    int Tw = streams_window(&r->train, r->st.pos, c->bptt, m->act.inputs, m->act.targets);
    RS_ASSERT(Tw > 0);
    double loss = model_forward(m, Tw, 1) / ((double)Tw * c->batch);
    *loss_out = loss;
    if (!isfinite(loss))
        return 1;
    model_backward(m, Tw);
    double norm = grad_norm(m->grads, m->lay.total);
    if (!isfinite(norm)) {
        *loss_out = norm;
        return 1;
    }
    double gs = r->opt.clip > 0 && norm > r->opt.clip ? r->opt.clip / norm : 1.0;
    r->lr = sched_lr(&r->sched, r->st.step);
    optim_step(&r->opt, m->params, m->grads, r->lr, gs);
    model_carry(m, Tw);
    r->st.pos += Tw;
    r->st.step++;
    r->st.tokens += (long)Tw * c->batch;
    r->st.loss_sum += loss;
    r->st.loss_count++;
    if (r->st.pos >= r->train.len - 1) {   /* end of the pass */
        r->st.epoch++;
        r->st.pos = 0;
        model_reset_state(m);
    }
    return 0;
}

/* ---- tables ---- */

static void fmt_mib(char *buf, size_t n, double bytes) { snprintf(buf, n, "%.1f MiB", bytes / 1048576.0); }

static int write_table(const run_ctx *r, rs_table *t, const char *cols)
{
    rs_table_meta_std(t, r->o->argc, r->o->argv);
    rs_table_meta(t, "corpus", r->corp.path);
    rs_table_meta(t, "corpus_sha256", r->corp.sha256);
    rs_table_meta(t, "gemm", mm_backend_name());
    rs_table_meta(t, "gemm_dispatch", mm_dispatch());
    const ga_plan *ap = mm_auto_plan();
    if (ap) {
        char ms[64];
        rs_table_meta(t, "gemm_plan", mm_record());
        if (ap->ncand)
            snprintf(ms, sizeof ms, "%.0f", ap->tune_ms);
        else
            snprintf(ms, sizeof ms, "0 (the checkpoint's picks)");
        rs_table_meta(t, "gemm_tune_ms", ms);
    }
    rs_table_meta(t, "pointwise", r->m.pw->name);
    char s[64];
    snprintf(s, sizeof s, "xent %s", output_kernel_name());
    rs_table_meta(t, "softmax", s);
    snprintf(s, sizeof s, "%llu", (unsigned long long)r->o->seed);
    rs_table_meta(t, "seed", s);
    if (say(r)) {
        printf("\n");
        rs_table_print(t, stdout, cols);
    }
    if (r->o->csv && rs_table_write_csv(t, r->o->csv) != 0)
        return -1;
    if (r->o->json && rs_table_write_json(t, r->o->json) != 0)
        return -1;
    return 0;
}

static void set_config_cells(rs_table *t, int row, const run_ctx *r)
{
    const model_cfg *c = &r->m.cfg;
    rs_set_str(t, row, "model", model_cell(c->cell)->name);
    rs_set_int(t, row, "layers", c->layers);
    rs_set_int(t, row, "hidden", c->hidden);
    rs_set_int(t, row, "embed", c->embed);
    rs_set_int(t, row, "vocab", c->vocab);
    rs_set_int(t, row, "batch", c->batch);
    rs_set_int(t, row, "bptt", c->bptt);
    rs_set_int(t, row, "threads", r->o->threads);
    rs_set_int(t, row, "classes", c->classes);
}

#define CONFIG_COLS                                                                        \
    {"model", RS_STR, 0}, {"layers", RS_INT, 0}, {"hidden", RS_INT, 0}, {"embed", RS_INT, 0}, \
        {"vocab", RS_INT, 0}, {"batch", RS_INT, 0}, {"bptt", RS_INT, 0}, {"threads", RS_INT, 0}, \
        {"classes", RS_INT, 0}

/* --bench N: two untimed steps, then N steps timed one by one. */
static int run_bench(run_ctx *r)
{
    const model_cfg *c = &r->m.cfg;
    long N = r->o->bench;
    double *t = malloc((size_t)N * sizeof *t);
    double loss = 0;
    for (long i = 0; i < N + 2; i++) {
        uint64_t t0 = rs_now_ns();
        if (train_step(r, &loss) != 0) {
            free(t);
            CHECK(0, "loss became %g during --bench (lower --lr)", loss);
        }
        if (i >= 2)
            t[i - 2] = (double)(rs_now_ns() - t0) * 1e-9;
        if (stop_signal) {
            free(t);
            rs_seterr("interrupted during --bench (nothing written)");
            return RS_EXIT_INTR;
        }
    }
    rs_stats st;
    rs_stats_compute(t, (int)N, &st);
    free(t);
    double flops = model_step_flops(c, c->bptt);
    double tok = (double)c->batch * c->bptt;
    double peak = peak_fma_gflops_for(r->o->threads, NULL);
    static const rs_col cols[] = {
        CONFIG_COLS,
        {"gemm", RS_STR, 0},
        {"steps", RS_INT, 0},
        {"step_ms_median", RS_DBL, 4},
        {"step_ms_min", RS_DBL, 4},
        {"step_ms_max", RS_DBL, 4},
        {"tokens_per_s", RS_DBL, 4},
        {"gflops", RS_DBL, 4},
        {"peak_gflops", RS_DBL, 4},
        {"frac_of_peak", RS_DBL, 3},
        {"gflop_per_step", RS_DBL, 4},
        {"arena_mib", RS_DBL, 4},
        {"naive_mib", RS_DBL, 4},
        {"params_mib", RS_DBL, 4},
    };
    rs_table *tb = rs_table_new("rnn_train_bench", cols, RS_ARRAY_LEN(cols));
    int row = rs_table_row(tb);
    set_config_cells(tb, row, r);
    rs_set_str(tb, row, "gemm", mm_backend_name());
    rs_set_int(tb, row, "steps", N);
    rs_set_dbl(tb, row, "step_ms_median", st.median * 1e3);
    rs_set_dbl(tb, row, "step_ms_min", st.min * 1e3);
    rs_set_dbl(tb, row, "step_ms_max", st.max * 1e3);
    rs_set_dbl(tb, row, "tokens_per_s", tok / st.median);
    rs_set_dbl(tb, row, "gflops", flops / st.median * 1e-9);
    rs_set_dbl(tb, row, "gflop_per_step", flops * 1e-9);
    if (peak > 0) {
        rs_set_dbl(tb, row, "peak_gflops", peak);
        rs_set_dbl(tb, row, "frac_of_peak", flops / st.median * 1e-9 / peak);
    }
    rs_set_dbl(tb, row, "arena_mib", r->m.arena.bytes / 1048576.0);
    rs_set_dbl(tb, row, "naive_mib", r->m.arena.naive_bytes / 1048576.0);
    rs_set_dbl(tb, row, "params_mib",
               r->m.lay.total * 4.0 * (2 + optim_nstate(r->opt.kind)) / 1048576.0);
    int rc = write_table(r, tb,
                         "model,hidden,layers,batch,bptt,vocab,threads,step_ms_median,tokens_per_s,"
                         "gflops,frac_of_peak,arena_mib,naive_mib");
    rs_table_free(tb);
    return rc == 0 ? RS_EXIT_OK : RS_EXIT_USAGE;
}

/* --pipeline: the output stage overlapping the recurrence, against the sequential
 * order (pipeline.c); exit 1 if the two differ in any bit. */
static int run_pipeline(run_ctx *r)
{
    pipeline_result res[PIPE_NMODES];
    if (r->m.cfg.classes > 0) {
        rs_seterr("--pipeline times the full-softmax output layer: drop --classes");
        return RS_EXIT_USAGE;
    }
    if (!mm_reentrant()) {
        rs_seterr("--pipeline calls GEMM from two threads at once, which --gemm %s does not "
                  "allow (it packs into shared buffers): use --gemm auto, openblas, blis or onednn",
                  mm_backend_name());
        return RS_EXIT_USAGE;
    }
    int wrong = pipeline_bench(&r->m, r->corp.train, r->corp.ntrain, r->o->threads,
                               r->o->pipeline, res);
    static const rs_col cols[] = {
        CONFIG_COLS,
        {"mode", RS_STR, 0},
        {"mode_threads", RS_INT, 0},
        {"chunk_steps", RS_INT, 0},
        {"windows", RS_INT, 0},
        {"ms_per_window_median", RS_DBL, 4},
        {"ms_per_window_min", RS_DBL, 4},
        {"tokens_per_s", RS_DBL, 4},
        {"speedup_vs_sequential", RS_DBL, 4},
        {"bit_identical", RS_STR, 0},
    };
    rs_table *t = rs_table_new("rnn_train_pipeline", cols, RS_ARRAY_LEN(cols));
    double best = 0;
    for (int k = 0; k < PIPE_NMODES; k++) {
        double seq = res[res[k].seq_index].ms_median;
        int row = rs_table_row(t);
        set_config_cells(t, row, r);
        rs_set_str(t, row, "mode", res[k].name);
        rs_set_int(t, row, "mode_threads", res[k].threads);
        rs_set_int(t, row, "chunk_steps", res[k].chunk_steps);
        if (res[k].identical >= 0 && seq / res[k].ms_median > best)
            best = seq / res[k].ms_median;
        rs_set_int(t, row, "windows", r->o->pipeline);
        rs_set_dbl(t, row, "ms_per_window_median", res[k].ms_median);
        rs_set_dbl(t, row, "ms_per_window_min", res[k].ms_min);
        rs_set_dbl(t, row, "tokens_per_s", res[k].tokens_per_window / (res[k].ms_median * 1e-3));
        rs_set_dbl(t, row, "speedup_vs_sequential", seq / res[k].ms_median);
        rs_set_str(t, row, "bit_identical", res[k].identical < 0 ? "-" : res[k].identical ? "yes" : "NO");
    }
    int rc = write_table(r, t, "model,hidden,vocab,batch,bptt,mode,mode_threads,chunk_steps,ms_per_window_median,"
                               "tokens_per_s,speedup_vs_sequential,bit_identical");
    rs_table_free(t);
    if (say(r))
        printf("\npipeline forward (output of step t overlapping the recurrence of t+1): "
               "up to %.2fx over the sequential order; %s\n", best,
               wrong ? "NOT bit-identical (a bug)" : "bit-identical on every window");
    if (wrong) {
        rs_seterr("--pipeline: the pipelined forward differs from the sequential order");
        return RS_EXIT_WRONG;
    }
    return rc == 0 ? RS_EXIT_OK : RS_EXIT_USAGE;
}

static int summary(run_ctx *r, const eval_result *valid, const eval_result *test)
{
    static const rs_col cols[] = {
        CONFIG_COLS,
        {"optimizer", RS_STR, 0},
        {"lr", RS_DBL, 4},
        {"steps", RS_INT, 0},
        {"epochs", RS_INT, 0},
        {"tokens", RS_INT, 0},
        {"seconds", RS_DBL, 4},
        {"tokens_per_s", RS_DBL, 4},
        {"train_loss", RS_DBL, 5},
        {"valid_ppl", RS_DBL, 5},
        {"test_ppl", RS_DBL, 5},
        {"test_bits_per_token", RS_DBL, 5},
        {"target_ppl", RS_DBL, 5},
        {"steps_to_target", RS_INT, 0},
        {"tokens_to_target", RS_INT, 0},
        {"seconds_to_target", RS_DBL, 4},
        {"stop", RS_STR, 0},
        {"completion_questions", RS_INT, 0},
        {"completion_accuracy", RS_DBL, 4},
    };
    rs_table *t = rs_table_new("rnn_train", cols, RS_ARRAY_LEN(cols));
    int row = rs_table_row(t);
    set_config_cells(t, row, r);
    rs_set_str(t, row, "optimizer", optim_name(r->opt.kind));
    rs_set_dbl(t, row, "lr", r->sched.lr0);
    rs_set_int(t, row, "steps", r->st.step);
    rs_set_int(t, row, "epochs", r->st.epoch);
    rs_set_int(t, row, "tokens", r->st.tokens);
    rs_set_dbl(t, row, "seconds", r->st.seconds);
    if (r->st.seconds > 0)
        rs_set_dbl(t, row, "tokens_per_s", r->st.tokens / r->st.seconds);
    rs_set_dbl(t, row, "train_loss", r->last_train_loss);
    rs_set_dbl(t, row, "valid_ppl", valid->ppl);
    rs_set_dbl(t, row, "test_ppl", test->ppl);
    rs_set_dbl(t, row, "test_bits_per_token", test->bits);
    if (r->o->target_ppl > 0) {
        rs_set_dbl(t, row, "target_ppl", r->o->target_ppl);
        if (r->target_step >= 0) {
            rs_set_int(t, row, "steps_to_target", r->target_step);
            rs_set_int(t, row, "tokens_to_target", r->target_tokens);
            rs_set_dbl(t, row, "seconds_to_target", r->target_seconds);
        }
    }
    rs_set_str(t, row, "stop", r->stop_reason);
    if (r->completion_n > 0) {
        rs_set_int(t, row, "completion_questions", r->completion_n);
        rs_set_dbl(t, row, "completion_accuracy", r->completion_acc);
    }
    char meta[96];
    snprintf(meta, sizeof meta, "%ld/%ld/%ld", r->corp.ntrain, r->corp.nvalid, r->corp.ntest);
    rs_table_meta(t, "tokens_train_valid_test", meta);
    rs_table_meta(t, "params_sha256", r->params_sha256);
    int rc = write_table(r, t,
                         "model,hidden,layers,vocab,steps,tokens,seconds,tokens_per_s,train_loss,"
                         "valid_ppl,test_ppl,test_bits_per_token,steps_to_target,stop");
    rs_table_free(t);
    return rc;
}

/* ---- set-up ---- */

/* The GEMM dispatch (matmul.h), once the model and a checkpoint's state are known:
 * --gemm auto times the backends on the model's shapes, except on --resume from a
 * checkpoint that recorded its choice, which is reused (bit-identical continuation);
 * a backend named explicitly replaces the record (said in the header). */
static int gemm_setup(run_ctx *r)
{
    const train_opts *o = r->o;
    const char *rec = o->resume ? r->st.gemm : "";
    int is_auto = !o->gemm || strcmp(o->gemm, "auto") == 0;
    r->gemm_note[0] = 0;
    if (is_auto && rec[0]) {
        if (mm_init_record(rec, &r->m.cfg, o->threads) != 0) {
            char why[512];
            snprintf(why, sizeof why, "%s", rs_lasterr());
            CHECK(0, "--resume: checkpoint %s runs GEMM on a backend that cannot be used here: %s "
                     "(resume where it can, or give --gemm NAME to continue with another backend, "
                     "not bit-identically)", r->last_ckpt, why);
        }
        snprintf(r->gemm_note, sizeof r->gemm_note, "the checkpoint's choice, not timed again");
    } else if (is_auto) {
        if (mm_init_auto(&r->m.cfg, o->threads, o->pipeline > 0) != 0)
            return -1;
    } else {
        if (mm_init(o->gemm, o->threads) != 0)
            return -1;
        if (rec[0] && strcmp(rec, mm_record()) != 0) {
            char was[512];
            mm_record_label(rec, &r->m.cfg, was, sizeof was);
            snprintf(r->gemm_note, sizeof r->gemm_note, "--gemm %s replaces the checkpoint's %s: "
                     "not bit-identical to a run that never stopped", o->gemm, was);
        }
    }
    snprintf(r->st.gemm, sizeof r->st.gemm, "%s", mm_record());
    return 0;
}

static int setup(run_ctx *r)
{
    const train_opts *o = r->o;
    char path[4200];
    if (mm_check_name(o->gemm) != 0)
        return -1;
    if (corpus_resolve(o->corpus, path, sizeof path) != 0)
        return -1;
    if (o->csv || o->json) {
        rs_common_opts co = {o->csv, o->json, 0};
        if (rs_common_check_outputs(&co) != 0)
            return -1;
    }
    if (o->ckpt_dir && ckpt_prepare(o->ckpt_dir, o->resume) != 0)
        return -1;
    CHECK(!o->resume || o->ckpt_dir, "--resume needs --checkpoint DIR (the folder to resume from)");
    if (corpus_load(&r->corp, path, o->level, o->vocab_cap, o->vocab_explicit) != 0)
        return -1;
    model_cfg cfg = o->cfg;
    cfg.vocab = r->corp.vocab;
    CHECK(r->corp.ntrain / cfg.batch >= 2,
          "corpus %s is too small for --batch %d: its train split has %ld tokens (use a smaller "
          "--batch)", path, cfg.batch, r->corp.ntrain);
    CHECK(r->corp.nvalid / cfg.batch >= 2 && r->corp.ntest / cfg.batch >= 2,
          "corpus %s is too small for --batch %d: its valid/test splits have %ld/%ld tokens "
          "(use a smaller --batch)", path, cfg.batch, r->corp.nvalid, r->corp.ntest);
    if (output_init() != 0)
        return -1;
    if (model_create(&r->m, &cfg) != 0)
        return -1;
    model_init_params(&r->m, o->seed);
    if (cfg.classes > 0) {   /* the class map from the train split's unigram counts */
        long *counts = calloc((size_t)cfg.vocab, sizeof *counts);
        CHECK(counts, "out of memory");
        for (long i = 0; i < r->corp.ntrain; i++)
            counts[r->corp.train[i]]++;
        int rc = model_set_classes(&r->m, counts);
        free(counts);
        if (rc != 0)
            return -1;
    }
    if (optim_init(&r->opt, o->optim, r->m.lay.total) != 0)
        return -1;
    r->opt.momentum = o->momentum;
    r->opt.clip = o->clip;
    streams_init(&r->train, r->corp.train, r->corp.ntrain, cfg.batch);
    r->steps_per_epoch = streams_nwindows(&r->train, cfg.bptt);
    long total = o->steps;
    if (o->epochs && (!total || o->epochs * r->steps_per_epoch < total))
        total = o->epochs * r->steps_per_epoch;
    sched_init(&r->sched, o->sched, o->lr >= 0 ? o->lr : default_lr(o->optim), o->warmup, total);
    r->eval_every = o->eval_every > 0 ? o->eval_every : r->steps_per_epoch;
    r->ckpt_every = o->ckpt_every > 0 ? o->ckpt_every : r->eval_every;
    memset(&r->st, 0, sizeof r->st);
    r->st.seed = o->seed;
    r->last_ckpt_step = -1;
    r->target_step = -1;
    memset(&r->id, 0, sizeof r->id);
    r->id.cfg = cfg;
    r->id.level = o->level;
    r->id.optim = o->optim;
    memcpy(r->id.corpus_sha256, r->corp.sha256, sizeof r->id.corpus_sha256);
    if (o->resume) {
        if (ckpt_load_latest(o->ckpt_dir, &r->id, &r->m, &r->opt, &r->sched, &r->st,
                             r->last_ckpt, sizeof r->last_ckpt) != 0)
            return -1;
        r->last_ckpt_step = r->st.step;
    }
    if (gemm_setup(r) != 0)
        return -1;
    omp_set_num_threads(o->threads);
    if (o->log && !o->bench && !o->pipeline && open_log(r) != 0)
        return -1;
    return 0;
}

/* --gemm auto: what was timed and picked, and what was left out. */
static void print_gemm_auto(const run_ctx *r)
{
    const ga_plan *p = mm_auto_plan();
    if (r->gemm_note[0])
        printf("gemm     %s\n", r->gemm_note);
    if (!p || !p->ncand)
        return;
    printf("gemm     auto: %d products x %d backends checked and timed at %d thread%s in %.0f ms; "
           "ms per call (est. for the full size; large ones are timed on a slice), * the pick\n",
           p->nshapes, p->ncand, p->threads, p->threads > 1 ? "s" : "", p->tune_ms);
    for (int s = 0; s < p->nshapes; s++) {
        const ga_shape *sh = &p->shape[s];
        char dims[48];
        snprintf(dims, sizeof dims, "%ldx%ldx%ld:%c%c", sh->m, sh->n, sh->k, sh->ta, sh->tb);
        printf("           %-6s %-10s %-19s x%-4.0f", sh->role, sh->where, dims, sh->calls);
        for (int c = 0; c < p->ncand; c++)
            if (p->ms[s][c] >= 0)
                printf("  %s %.3g%s", p->cand[c]->name, p->ms[s][c], p->pick[s] == p->cand[c] ? "*" : "");
        printf("\n");
    }
    printf("           other products (a short last window, per-token class products, pipeline "
           "chunks): %s\n", p->fallback->name);
    for (const char *l = p->notes; *l;) {
        const char *e = strchr(l, '\n');
        int n = e ? (int)(e - l) : (int)strlen(l);
        printf("           %.*s\n", n, l);
        l += n + (e != NULL);
    }
}

static void print_header(const run_ctx *r)
{
    const model_cfg *c = &r->m.cfg;
    const corpus *k = &r->corp;
    char a[32], n[32], p[32];
    fmt_mib(a, sizeof a, (double)r->m.arena.bytes);
    fmt_mib(n, sizeof n, (double)r->m.arena.naive_bytes);
    fmt_mib(p, sizeof p, r->m.lay.total * 4.0 * (2 + optim_nstate(r->opt.kind)));
    printf("corpus   %s (%ld bytes, sha256 %.16s...), %s level\n", k->path, k->bytes, k->sha256,
           k->level == LEVEL_WORD ? "word" : "character");
    printf("         tokens train %ld / valid %ld / test %ld; vocabulary %d ids for %ld distinct "
           "train tokens + %s (<unk>: %.2f%% of train, %.2f%% of valid)\n",
           k->ntrain, k->nvalid, k->ntest, k->vocab, k->ntypes,
           k->level == LEVEL_WORD ? "<unk>, <eos>" : "<unk>", 100.0 * k->unk_train / k->ntrain,
           100.0 * k->unk_valid / (k->nvalid ? k->nvalid : 1));
    printf("model    %s, %d layer%s, hidden %d, embed %d, vocab %d; batch %d x bptt %d; "
           "%ld parameters\n",
           model_cell(c->cell)->name, c->layers, c->layers > 1 ? "s" : "", c->hidden, c->embed,
           c->vocab, c->batch, c->bptt, r->m.lay.total);
    printf("memory   activation arena %s (naive per-step allocation: %s in %ld allocations); "
           "parameters+gradients+optimizer %s\n", a, n, r->m.arena.naive_allocs, p);
    if (c->classes > 0)
        printf("output   class-factorized softmax: %d classes by unigram frequency (largest %d "
               "words)\n", c->classes, r->m.cls.max_size);
    printf("kernels  gemm %s [%s], point-wise %s, softmax xent %s; %d threads\n",
           mm_backend_name(), mm_dispatch(), r->m.pw->name, output_kernel_name(), r->o->threads);
    print_gemm_auto(r);
    printf("train    %s lr %g (%s schedule, warmup %ld), clip %g; %ld steps per epoch; "
           "eval every %ld steps\n",
           optim_name(r->opt.kind), r->sched.lr0, sched_name(r->sched.kind), r->sched.warmup,
           r->opt.clip, r->steps_per_epoch, r->eval_every);
    if (r->o->resume)
        printf("resume   %s: step %ld, epoch %ld, %ld tokens\n", r->last_ckpt, (long)r->st.step,
               (long)r->st.epoch, (long)r->st.tokens);
    fflush(stdout);
}

static void teardown(run_ctx *r)
{
    if (r->log)
        fclose(r->log);
    optim_free(&r->opt);
    model_destroy(&r->m);
    corpus_free(&r->corp);
    rs_install_signal_handlers();
}

int train_run(const train_opts *opts)
{
    train_opts o = *opts;
    if (o.threads <= 0)
        o.threads = rs_ncpus();
    run_ctx *r = calloc(1, sizeof *r);
    r->o = &o;
    stop_signal = 0;
    handlers_training();
    int code = RS_EXIT_OK;
    if (setup(r) != 0) {
        code = RS_EXIT_USAGE;
        goto out;
    }
    if (say(r))
        print_header(r);
    if (o.bench && !o.pipeline) {
        code = run_bench(r);
        goto out;
    }
    if (o.pipeline) {
        code = run_pipeline(r);
        goto out;
    }

    long total = o.steps;
    if (o.epochs && (!total || o.epochs * r->steps_per_epoch < total))
        total = o.epochs * r->steps_per_epoch;
    if (!total)
        total = r->steps_per_epoch;   /* neither --steps nor --epochs: one pass */
    long start = r->st.step;
    if (say(r))
        rs_progress_begin((int)(total > start ? total - start : 1));
    r->stop_reason = "steps";
    double win_tok = 0, win_s = 0;
    r->lr = sched_lr(&r->sched, r->st.step);
    while (r->st.step < total) {
        double loss;
        uint64_t t0 = rs_now_ns();
        long tok0 = r->st.tokens;
        if (train_step(r, &loss) != 0) {
            r->st.step++;   /* name the step that failed */
            diverged(r, "the training loss", loss);
            code = RS_EXIT_WRONG;
            goto out;
        }
        double dt = (double)(rs_now_ns() - t0) * 1e-9;
        r->st.seconds += dt;
        win_tok = 0.9 * win_tok + (double)(r->st.tokens - tok0);
        win_s = 0.9 * win_s + dt;
        if (say(r)) {
            char label[64];
            char ppl[16] = "-";
            if (r->st.last_valid_ppl > 0)
                snprintf(ppl, sizeof ppl, "%.1f", r->st.last_valid_ppl);
            snprintf(label, sizeof label, "loss %.3f ppl %s %.0f tok/s step %ld", loss, ppl,
                     win_tok / win_s, (long)r->st.step);
            rs_progress((int)(r->st.step - start), label);
        }
        int stop = 0;
        if (r->st.step % r->eval_every == 0)
            stop = evaluate(r, 1);
        if (stop < 0) {
            code = RS_EXIT_WRONG;
            goto out;
        }
        if (o.ckpt_dir && (r->st.step % r->ckpt_every == 0 || stop) && save_ckpt(r) != 0) {
            code = RS_EXIT_USAGE;
            goto out;
        }
        if (stop)
            break;
        if (stop_signal) {
            rs_progress_done();
            if (o.ckpt_dir && save_ckpt(r) != 0) {
                code = RS_EXIT_USAGE;
                goto out;
            }
            if (o.ckpt_dir)
                rs_seterr("interrupted at step %ld; checkpoint %s written (continue with --resume)",
                          (long)r->st.step, r->last_ckpt);
            else
                rs_seterr("interrupted at step %ld (no --checkpoint folder: nothing saved)",
                          (long)r->st.step);
            code = RS_EXIT_INTR;
            goto out;
        }
    }
    rs_progress_done();
    if ((r->st.last_eval_step != r->st.step || r->st.step == 0) && evaluate(r, 0) < 0) {
        code = RS_EXIT_WRONG;
        goto out;
    } else if (!r->have_valid) {   /* resumed at the end: nothing trained, nothing logged */
        eval_split(&r->m, r->corp.valid, r->corp.nvalid, &r->last_valid);
        r->last_train_loss = NAN;
    }
    if (o.ckpt_dir && save_ckpt(r) != 0) {
        code = RS_EXIT_USAGE;
        goto out;
    }
    eval_result valid = r->last_valid, test;
    eval_split(&r->m, r->corp.test, r->corp.ntest, &test);
    sha256_hex(r->m.params, (size_t)r->m.lay.total * sizeof(float), r->params_sha256);
    if (o.completion > 0 && o.level == LEVEL_WORD) {
        completion_set q;
        if (completion_build(&q, &r->corp, o.completion, o.seed) != 0) {
            code = RS_EXIT_USAGE;
            goto out;
        }
        r->completion_n = q.n;
        r->completion_acc = completion_accuracy_model(&r->m, &q);
        completion_free(&q);
    }
    if (say(r)) {
        printf("\nfinal    valid ppl %.2f, test ppl %.2f (%.4f bits per %s); parameters sha256 %.16s\n",
               valid.ppl, test.ppl, test.bits, o.level == LEVEL_CHAR ? "character" : "word",
               r->params_sha256);
        if (o.target_ppl > 0) {
            if (r->target_step >= 0)
                printf("target   valid ppl <= %g reached at step %ld, %ld tokens, %.1f s\n",
                       o.target_ppl, r->target_step, r->target_tokens, r->target_seconds);
            else
                printf("target   valid ppl <= %g not reached\n", o.target_ppl);
        }
        if (r->completion_n > 0)
            printf("complete MSR-style sentence completion, %d held-out test sentences: %.1f%% "
                   "right (chance 20%%)\n", r->completion_n, 100 * r->completion_acc);
    }
    if (summary(r, &valid, &test) != 0)
        code = RS_EXIT_USAGE;
out:
    teardown(r);
    free(r);
    return code;
}
