/* train_setup.c — everything before the first step: the inputs checked (GEMM name,
 * corpus, output files, checkpoint folder) and the run's folder and log locked, the
 * corpus loaded, the model, optimizer and schedule built, a checkpoint resumed, the
 * GEMM dispatch chosen; and the teardown.  The log is opened later (train.c), once the
 * exchange too has been set up.  Errors are bad input: -1 with the one line in
 * rs_lasterr. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "check.h"
#include "dp_comm.h"
#include "fsio.h"
#include "matmul.h"
#include "opts.h"
#include "train_ctx.h"
#include "train_platform.h"

/* The step to stop after from --steps and --epochs, whichever comes first; 0 when
 * neither is given (the schedule then has no end; the loop does one pass). */
static long step_limit(const train_opts *o, long steps_per_epoch)
{
    long total = o->steps;
    if (o->epochs && (!total || o->epochs * steps_per_epoch < total))
        total = o->epochs * steps_per_epoch;
    return total;
}

/* The GEMM dispatch (matmul.h), once the model and a checkpoint's state are known:
 * --gemm auto times the backends on the model's shapes, except on --resume from a
 * checkpoint that recorded its choice, which is reused (bit-identical continuation);
 * a backend named explicitly, or a plan recorded by an earlier run (summary.json's
 * gemm_plan), replaces the record (said in the header). */
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
            RS_CHECK(0, "--resume: checkpoint %s runs GEMM on a backend that cannot be used here: %s "
                     "(resume where it can, or give --gemm NAME to continue with another backend, "
                     "not bit-identically)", r->last_ckpt, why);
        }
        snprintf(r->gemm_note, sizeof r->gemm_note, "the checkpoint's choice, not timed again");
    } else if (is_auto) {
        train_phase(NULL, "during set-up (--gemm auto's timing): nothing was written", 0);
        if (train_gemm_auto(r, o->threads, o->pipeline > 0 || o->eval_async) != 0)
            return -1;
    } else {
        int given_plan = strncmp(o->gemm, "auto:", 5) == 0;   /* an earlier run's: no timing */
        if (mm_init_record(o->gemm, &r->m.cfg, o->threads) != 0) {
            char why[512];
            snprintf(why, sizeof why, "%s", rs_lasterr());
            RS_CHECK(!given_plan, "--gemm: %s", why);
            return -1;
        }
        if (rec[0] && strcmp(rec, mm_record()) != 0) {
            char was[512];
            mm_record_label(rec, &r->m.cfg, was, sizeof was);
            snprintf(r->gemm_note, sizeof r->gemm_note, "--gemm %s replaces the checkpoint's %s: "
                     "not bit-identical to a run that never stopped", mm_backend_name(), was);
        } else if (given_plan)
            snprintf(r->gemm_note, sizeof r->gemm_note, "the plan --gemm gave, not timed");
    }
    snprintf(r->st.gemm, sizeof r->st.gemm, "%s", mm_record());
    return 0;
}

/* Everything that can be checked before the corpus is read; rank 0 takes the run's
 * locks (the checkpoint folder, a resumed log) here, before any work.  With dry
 * (--check-args) nothing is created or locked (the checkpoint folder is not made). */
static int check_inputs(run_ctx *r, char *path, size_t len, int dry)
{
    const train_opts *o = r->o;
    int writer = dp_comm_rank() == 0 && dp_comm_eval_index() < 0;
    if (mm_check_name(o->gemm) != 0 || train_dp_check(o) != 0)
        return -1;
    if (corpus_resolve(o->corpus, path, len) != 0)
        return -1;
    if (o->csv || o->json) {
        rs_common_opts co = {o->csv, o->json, 0};
        if (rs_common_check_outputs(&co) != 0)
            return -1;
    }
    RS_CHECK(!o->resume || o->ckpt_dir,
             "--resume needs --checkpoint DIR (the folder to resume from)");
    if (dry)
        RS_CHECK(!o->log || o->resume || access(o->log, F_OK) != 0, "--log %s already exists; "
                 "logs are never overwritten (choose a new name)", o->log);
    else if (o->ckpt_dir &&
             ckpt_prepare(o->ckpt_dir, o->resume, writer ? &r->ckpt_lock : NULL) != 0)
        return -1;
    if (!dry && o->log && !o->bench && !o->pipeline && train_log_lock(r) != 0)
        return -1;
    RS_CHECK(o->eval_streams % o->cfg.batch == 0, "--eval-streams %ld: not a multiple of --batch "
             "%d (each worker scores --batch streams at a time)", o->eval_streams, o->cfg.batch);
    return 0;
}

/* The class map from the train split's unigram counts. */
int train_set_classes(const run_ctx *r, model *m)
{
    long *counts = calloc((size_t)m->cfg.vocab, sizeof *counts);
    RS_CHECK(counts, "out of memory");
    for (long i = 0; i < r->corp.ntrain; i++)
        counts[r->corp.train[i]]++;
    int rc = model_set_classes(m, counts);
    free(counts);
    return rc;
}

/* The corpus, and the model sized by its vocabulary, with initial weights. */
static int load_corpus_and_model(run_ctx *r, const char *path)
{
    const train_opts *o = r->o;
    if (train_corpus_load(&r->corp, path, o->level, o->vocab_cap, o->vocab_explicit) != 0)
        return -1;
    model_cfg cfg = o->cfg;
    cfg.vocab = r->corp.vocab;
    cfg.batch *= o->workers;   /* the global layout's streams, for the size checks */
    RS_CHECK(r->corp.ntrain / cfg.batch >= 2,
          "corpus %s is too small for --batch %d: its train split has %ld tokens (use a smaller "
          "--batch)", path, cfg.batch, r->corp.ntrain);
    long scored = o->eval_streams ? o->eval_streams : cfg.batch;   /* valid/test streams */
    RS_CHECK(r->corp.nvalid / scored >= 2 && r->corp.ntest / scored >= 2,
          "corpus %s is too small for %ld evaluation streams: its valid/test splits have "
          "%ld/%ld tokens (use a smaller --batch or --eval-streams)", path, scored,
          r->corp.nvalid, r->corp.ntest);
    r->eval_groups = (int)(scored / o->cfg.batch);
    r->eval_n = o->eval_tokens > 0 && o->eval_tokens < r->corp.nvalid ? o->eval_tokens : r->corp.nvalid;
    RS_CHECK(r->eval_n / scored >= 2, "--eval-tokens %ld: fewer than 2 tokens for each of the %ld evaluation "
             "streams (use at least %ld, or fewer --eval-streams)", o->eval_tokens, scored, 2 * scored);
    RS_CHECK(o->eval_gate <= 0 || !o->eval_async, "--eval-gate decides between its two scorings at "
             "once, which --eval-async cannot: drop one");
    RS_CHECK(o->eval_gate <= 0 || o->target_ppl <= 0 || o->eval_gate > o->target_ppl, "--eval-gate %g "
             "is not above --target-ppl %g: the full score would never be taken near the target (set "
             "the gate above it)", o->eval_gate, o->target_ppl);
    cfg.batch = o->cfg.batch;   /* the model runs one worker's streams */
    if (output_init() != 0)
        return -1;
    if (model_create(&r->m, &cfg) != 0)
        return -1;
    model_init_params(&r->m, o->seed);
    if (cfg.classes > 0 && train_set_classes(r, &r->m) != 0)
        return -1;
    return 0;
}

/* Optimizer, streams, schedule, the evaluation and checkpoint cadence, and the state of
 * a fresh run (a resume then overwrites it). */
static int init_training(run_ctx *r)
{
    const train_opts *o = r->o;
    const model_cfg *cfg = &r->m.cfg;
    if (optim_init(&r->opt, o->optim, r->m.lay.total) != 0)
        return -1;
    r->opt.momentum = o->momentum;
    r->opt.clip = o->clip;
    streams_init(&r->train, r->corp.train, r->corp.ntrain, cfg->batch * o->workers);
    r->steps_per_epoch = streams_nwindows(&r->train, cfg->bptt);
    r->step_limit = step_limit(o, r->steps_per_epoch);
    sched_init(&r->sched, o->sched, train_lr(o), o->warmup, r->step_limit);
    r->eval_every = o->eval_every > 0 ? o->eval_every : r->steps_per_epoch;
    r->ckpt_every = o->ckpt_every > 0 ? o->ckpt_every : r->eval_every;
    memset(&r->st, 0, sizeof r->st);
    r->st.seed = o->seed;
    r->last_ckpt_step = r->resumed_step = -1;
    r->target_step = -1;
    memset(&r->id, 0, sizeof r->id);
    r->id.cfg = *cfg;
    r->id.level = o->level;
    r->id.optim = o->optim;
    memcpy(r->id.corpus_sha256, r->corp.sha256, sizeof r->id.corpus_sha256);
    return 0;
}

int train_setup(run_ctx *r)
{
    const train_opts *o = r->o;
    char path[4200];
    r->log_fd = r->ckpt_lock = -1;
    /* agreed at once: no rank starts work that a refused lock ends */
    if (dp_comm_agree_all(check_inputs(r, path, sizeof path, 0)) != 0)
        return -1;
    if (load_corpus_and_model(r, path) != 0 || init_training(r) != 0)
        return -1;
    if (train_dp_setup(r) != 0)
        return -1;
    if (o->resume) {
        if (train_dp_resume(r) != 0)
            return -1;
        r->last_ckpt_step = r->resumed_step = r->st.step;
    }
    rs_pin_team(o->threads);   /* before --gemm auto times the products the steps will run */
    if (gemm_setup(r) != 0 || train_eval_setup(r) != 0)
        return -1;
    omp_set_num_threads(o->threads);
    return 0;
}

int train_check_args(const train_opts *o)
{
    char path[4200];
    run_ctx r = {.o = o, .log_fd = -1, .ckpt_lock = -1};
    rs_fsio_check_only();   /* --check-args writes nothing: stale temporaries stay */
    return check_inputs(&r, path, sizeof path, 1);
}

void train_teardown(run_ctx *r)
{
    train_eval_teardown(r);
    train_dp_teardown(r);
    train_log_close(r);
    ckpt_unlock(&r->ckpt_lock);
    optim_free(&r->opt);
    model_destroy(&r->m);
    train_corpus_free(&r->corp);
    rs_install_signal_handlers();
}
