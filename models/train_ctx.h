/* train_ctx.h — the state of one rnn-train run, shared by the trainer's files (not a
 * public interface: train_cli.c and the tests use train.h; a simulator's hooks see the
 * run as train_hooks.h's opaque run_ctx).
 *
 *   train.c         the run: set-up, the loop, evaluation on schedule, checkpoints, stop
 *   train_setup.c   corpus, model, optimizer, schedule, GEMM dispatch, resume; teardown
 *   train_step.c    one training step
 *   train_eval.c    evaluation: sharded over the ranks, on schedule, --eval-async and
 *                   --eval-ranks
 *   train_log.c     the evaluation log (--log)
 *   train_report.c  the header, the final lines and the result tables
 *   train_bench.c   --bench N and --pipeline
 *   train_dp.c      --workers over ranks: the workers' state, their step, the exchange
 *   train_sync.c    --sync: fused, bucketed (a communication thread), per-tensor
 *   train_sparse.c  --embed-exchange sparse: the embedding's touched rows only
 *   train_hooks.c   the hooks set (train_hooks.h), and the run as the hooks see it */
#ifndef RS_MODELS_TRAIN_CTX_H
#define RS_MODELS_TRAIN_CTX_H

#include <stdio.h>

#include "checkpoint.h"
#include "grad_tree.h"
#include "record.h"
#include "train.h"

/* The data-parallel side of a run (train_dp.c). */
typedef struct {
    int P, rank, N, local;        /* ranks, workers in all, workers on this rank */
    float *state_h, *state_c;     /* (local, L, b, H): this rank's workers' carried state */
    float *own_h, *own_c;         /* the model's own state arrays, put back at teardown */
    grad_tree tree;               /* local > 1: the order this rank's workers are summed in */
    float *grad_sum;              /* local > 1: where their sum is (grad_tree_sum) */
    dp_exchange *exchange;        /* the allreduce over ranks (NULL without MPI) */
    int stop_any;                 /* P > 1: some rank was asked to stop (agreed per step) */
    int stop_term;                /* P > 1: by SIGTERM (exit 143, else 130) */
    int perturbed;                /* the checksum test hook has fired */
    int test_abs_grads;           /* test hook RNN_TRAIN_TEST_ABS_GRADS: workers' |g| summed */
    double compute_s, exchange_s, optimizer_s;   /* the last step's parts */
    int shard;                    /* --shard-update with P > 1 (train_shard.c) */
    long shard_off, shard_len;    /* shard: this rank's block of the parameters */
    int updated;                  /* the last step's update ran inside the exchange */
    double norm;                  /* the last step's global gradient norm (mean gradient) */
    double update_s;              /* the last update's seconds */
    long update_len;              /* the parameters the last update touched */
    double exchange_total_s;      /* the last step's seconds in allreduce calls (any thread) */
    double overlap_exposed_s;     /* of train_compute's time, exchange after the backward
                                     (bucketed where the rank sums the buckets itself) */
    int sync;                     /* --sync (train_sync.c) */
    int Tw;                       /* the last window's steps */
    dp_buckets *buckets;          /* bucketed: the communication thread, or the rank's
                                     queue (NULL without MPI) */
    long bucket_floats;           /* bucketed: one bucket */
    grad_event events[MODEL_MAX_EVENTS];   /* bucketed: the backward's ranges (model.h), */
    int nevents, heard;                    /* how many, and how many it has told */
    long held_from, held_to;      /* final, not yet handed to the thread (under a bucket) */
    float *zeros;                 /* per-tensor: what rounds 2..Tw send */
    double small_sq;              /* sum over workers of |own mean gradient|^2 (N >= 2) */
    int sparse;                   /* --embed-exchange sparse (train_sparse.c) */
    uint64_t *row_bits;           /* sparse, P > 1: the embedding rows touched, V bits */
    int *rows;                    /* sparse: the union's rows this step, ascending */
    long nrows;
    long packed_from;             /* sparse, this step: the exchange starts here (0: dense) */
    double rows_sum;              /* sparse: the union's fraction of V, summed over steps */
    long rows_steps;
} dp_ctx;

/* One evaluation's row: what the step it belongs to had, and the result. */
typedef struct {
    long step, epoch, tokens;
    double seconds, train_loss, lr;
    double b_simple;    /* the gradient noise scale at that step (N >= 2) */
    eval_result valid;
    eval_result first;  /* --eval-gate: each stream's first window (tokens 0: not scored) */
    int gated;          /* valid is that first-window score alone: above the gate */
    double eval_s;      /* the scoring's wall time */
    double exposed_s;   /* the time the training loop was held by it */
} eval_row;

struct eval_async;      /* --eval-async's thread and model (train_eval.c) */

typedef struct run_ctx {
    const train_opts *o;
    corpus corp;
    model m;
    optimizer opt;
    lr_sched sched;
    train_state st;
    ckpt_ident id;
    stream_set train;
    long steps_per_epoch, eval_every, ckpt_every;
    int eval_groups;          /* valid/test are scored as eval_groups x b streams */
    long eval_n;              /* the valid tokens the evaluations during training score */
    long step_limit;          /* from --steps / --epochs; 0: none (the loop does one pass) */
    double lr;
    double last_train_loss;   /* the train loss of the last evaluation row */
    eval_result last_valid;   /* the last evaluation */
    int last_gated;           /* it was a first-window score (--eval-gate) */
    int have_valid;           /* last_valid was computed in this process */
    FILE *log;
    int log_fd;               /* --resume: the existing log, locked (train_log_lock); -1 */
    int ckpt_lock;            /* rank 0: the checkpoint folder's lock (ckpt_prepare); -1 */
    char last_ckpt[4200];
    long last_ckpt_step;
    long resumed_step;        /* --resume: the step of the checkpoint it started from; -1 */
    /* target */
    long target_step, target_tokens;
    double target_seconds;
    const char *stop_reason;
    char params_sha256[65];   /* of the final parameters: equal runs print equal hashes */
    int completion_n;         /* --completion: questions asked, and the fraction right */
    double completion_acc;
    char gemm_note[640];      /* resume: where the GEMM choice came from, for the header */
    dp_ctx dp;
    struct eval_async *async;   /* --eval-async or --eval-ranks; NULL without */
    int eval_linked;            /* --eval-ranks: the eval ranks serve (told to stop at the end) */
    long eval_count;            /* evaluations recorded in this process, their scoring */
    double eval_total_s, eval_exposed_total_s;   /* time and the time they held the loop */
} run_ctx;

static inline int run_says(const run_ctx *r) { return !r->o->quiet; }

/* ---- train.c ---- */
/* Ctrl-C / SIGTERM arrived while training (the step in flight finishes first): 0 not,
 * 1 SIGTERM, 1000 SIGINT (summed over the ranks). */
int train_stop_requested(void);
/* The training handler back in place after a file was written under fsio's. */
void train_handlers_install(void);
/* The phase the run enters: `what` ("during ...") is the line a signal then prints,
 * with the newest checkpoint named; safe_point: a safe point follows soon (between
 * training steps), where a signal only sets the flag, else it exits at once (130/143,
 * the temporary being written removed).  Returns the previous safe_point. */
int train_phase(const run_ctx *r, const char *what, int safe_point);
/* The exit code for the signal that stopped the run: 143 (SIGTERM, on any rank) or 130. */
int train_stop_code(const run_ctx *r);

/* ---- train_setup.c ---- */
int train_setup(run_ctx *r);   /* 0, or -1 (rs_lasterr): bad input */
int train_check_args(const train_opts *o);   /* setup's checks alone, creating nothing */
void train_teardown(run_ctx *r);
int train_set_classes(const run_ctx *r, model *m);   /* --classes: m's map from train */

/* ---- train_step.c ---- */
/* One step on the next window.  0 ok, 1 non-finite (nothing updated; *loss_out says). */
int train_step(run_ctx *r, double *loss_out);
/* The update of grad's block [off, off + len) (all of it unless sharded): the global
 * norm (from every rank's parts when sharded; collective then), B_simple, the clip,
 * the rate and the optimizer, unless the norm is not finite (the parameters are never
 * touched by a NaN).  Sets dp.norm, dp.update_s, dp.update_len. */
void train_update(run_ctx *r, const float *grad, long off, long len);
/* --shard-update (train_shard.c): checks, the exchange with the update in its middle,
 * the optimizer state gathered to rank 0 for a checkpoint. */
int train_shard_check(const train_opts *o);
void train_shard_exchange(run_ctx *r, float *grad);
void train_shard_gather_state(run_ctx *r);
/* Record the one line for a run whose `what` became `v` at `step` (not finite, or a
 * valid ppl above --diverge-ppl); the writer removes the checkpoints this run wrote of
 * that state or later ones, so the newest left is a good one. */
void train_diverged(run_ctx *r, const char *what, double v, long step);

/* ---- train_eval.c: -1 is the one line in rs_lasterr (a perplexity not finite, the
 * parameters' checksum differing across ranks) ---- */
/* Collective: the split scored under the current parameters, this rank's shard of the
 * N groups, the sums added over the ranks. */
void train_eval_split(run_ctx *r, const int *data, long n, eval_result *ev);
/* Evaluate on valid now, log a row, and (scheduled) feed the schedule and the target.
 * 1 to stop, 0 to go on, -1. */
int train_evaluate(run_ctx *r, int scheduled);
/* Step is an evaluation step (every eval_every, or --eval-growth's steps). */
int train_eval_due(const run_ctx *r, long step);
/* --eval-async: the second model (after the GEMM); --eval-ranks: training rank 0's
 * snapshot buffer. */
int train_eval_setup(run_ctx *r);
void train_eval_teardown(run_ctx *r);   /* --eval-ranks: tells the eval ranks to stop */
/* An eval rank's run: score each snapshot received until told to stop.  The exit code. */
int train_eval_serve(run_ctx *r);
/* After each step: the evaluation due (synchronous), or --eval-async's result collected
 * when ready and taken by the schedule at an evaluation step or a checkpoint (ckpt_due).
 * 1 to stop, 0 to go on, -1. */
int train_eval_after_step(run_ctx *r, int ckpt_due);
/* --eval-async: start the evaluation of this step if one is due (after its checkpoint,
 * and after a resume at an evaluation step whose result the checkpoint lacks).  0 or -1. */
int train_eval_launch_due(run_ctx *r);
/* --eval-async: the evaluation in flight waited for, logged, and (apply) taken by the
 * schedule and the target: 1 to stop, 0 to go on, -1.  0 when none is in flight. */
int train_eval_settle(run_ctx *r, int apply);
/* A run stopping on a signal: --eval-ranks' evaluation in flight abandoned, not waited
 * for, where nothing is lost: the checkpoint of the step it evaluates exists (or there is
 * no --checkpoint).  That step, or -1 when there was none to abandon (settle instead). */
long train_eval_abandon(run_ctx *r);
/* The step whose evaluation was abandoned (a signal while waiting for it at a scheduled
 * evaluation: the run stops through stop_on_signal, without a checkpoint); -1. */
long train_eval_dropped(const run_ctx *r);
/* Before the final evaluation: the one in flight taken (the stop reason kept if the run
 * ended before its step).  0 or -1. */
int train_eval_finish(run_ctx *r);
/* --eval-async in one process: a finished evaluation collected (logged) now.  0 or -1. */
int train_eval_poll(run_ctx *r);
/* --bench: an evaluation outside the schedule, done now (synchronous) or started
 * (--eval-async: collect it with train_eval_poll and train_eval_settle(r, 0)).  0, -1. */
int train_eval_bench_start(run_ctx *r);

/* ---- gemm_context.c ---- */
/* The native --gemm auto: mm_init_auto, then the plan chosen on the run's own step
 * (matmul.h's variants).  0, or -1 (rs_lasterr). */
int gemm_auto_in_context(run_ctx *r, int threads, int reentrant);

/* ---- train_dp.c ---- */
int train_dp_check(const train_opts *o);   /* --workers against P, --sync, --allreduce */
int train_dp_setup(run_ctx *r);            /* the workers' state (after the model exists) */
int train_dp_start(run_ctx *r);            /* collective: the exchange's plan */
void train_dp_teardown(run_ctx *r);
void train_dp_reset_state(run_ctx *r);     /* every worker's carried state to zero */
/* Worker w's b streams of the global layout. */
stream_set train_dp_worker_streams(const stream_set *global, int w, int b);
/* Forward and backward of this rank's workers on the window at st.pos: the sum of
 * their mean losses; *grad_out gets the sum of their gradients.  P = 1: stops at the
 * first non-finite loss (returned) before its backward. */
double train_dp_compute(run_ctx *r, int *Tw_out, float **grad_out);
/* --embed-exchange sparse without the compute (a folded simulation): the windows' rows
 * marked and their union taken, as train_dp_compute does (collective). */
void train_dp_sparse_windows(run_ctx *r);
/* Collective: the gradient summed over ranks in place; the mean loss over all N
 * workers (the gradient is left alone when it is not finite). */
double train_dp_exchange(run_ctx *r, float *grad, double loss_sum, int stop);
/* Collective at each evaluation (P > 1): the parameters' checksum is the same on every
 * rank.  0, or -1 (rs_lasterr, one line). */
int train_dp_check_params(run_ctx *r);
int train_dp_save(run_ctx *r);             /* collective: rank 0 writes the checkpoint */
int train_dp_resume(run_ctx *r);           /* every rank reads the newest checkpoint */
/* Ctrl-C / SIGTERM for the loop: on P > 1 the request agreed at the last step. */
int train_stop_agreed(const run_ctx *r);

/* ---- train_sparse.c: --embed-exchange sparse ---- */
int train_sparse_setup(run_ctx *r);     /* after train_dp_setup's P is known */
void train_sparse_teardown(run_ctx *r);
void train_sparse_mark(run_ctx *r, const int *inputs, long n);   /* a worker's window */
void train_sparse_union(run_ctx *r);    /* collective: the union; sparse this step? */
void train_sparse_pack(run_ctx *r, float *grad);     /* before the exchange */
void train_sparse_unpack(run_ctx *r, float *grad);   /* after it */

/* ---- train_sync.c: --sync and the workers' squared norms ---- */
int train_sync_setup(run_ctx *r);       /* after train_dp_setup */
int train_sync_start(run_ctx *r);       /* after the exchange exists: bucketed's thread */
void train_sync_teardown(run_ctx *r);
/* Worker k's backward: its gradient into the rank's sum (and its squared norm); the
 * last worker's under bucketed starts the buckets as the backward readies them. */
void train_sync_backward(run_ctx *r, int Tw, int k);
/* Bucketed, where the backward is charged and not run: this step's buckets started at
 * once, cut as a run backward cuts them (the simulation times each one's readiness). */
void train_sync_start_charged(run_ctx *r);
/* P > 1: the gradient summed over ranks (bucketed: the wait for its buckets). */
void train_sync_exchange(run_ctx *r, float *grad);
/* Bucketed: the wait for this step's buckets (before any other MPI call). */
void train_sync_wait(run_ctx *r);

/* ---- train_log.c ---- */
/* Before any work: a new --log's folder checked; --resume's existing log opened (a
 * regular file only) and locked for the run's life (refused, naming the holder, while
 * another run writes it).  0, or -1 (rs_lasterr). */
int train_log_lock(run_ctx *r);
int train_log_open(run_ctx *r);   /* --log: new, or (--resume) cut back to the checkpoint */
void train_log_row(run_ctx *r, const eval_row *w);
void train_log_close(run_ctx *r);

/* ---- train_report.c ---- */
void train_print_header(const run_ctx *r);
void train_print_final(const run_ctx *r, const eval_result *valid, const eval_result *test);
int train_summary(const run_ctx *r, const eval_result *valid, const eval_result *test);
/* The model configuration's cells of a row (the table starts with TRAIN_CONFIG_COLS). */
void train_set_config_cells(rs_table *t, int row, const run_ctx *r);
/* Metadata, print (unless quiet) and --csv / --json.  0, or -1 (rs_lasterr). */
int train_write_table(const run_ctx *r, rs_table *t, const char *cols);

#define TRAIN_CONFIG_COLS                                                                  \
    {"model", RS_STR, 0}, {"layers", RS_INT, 0}, {"hidden", RS_INT, 0}, {"embed", RS_INT, 0}, \
        {"vocab", RS_INT, 0}, {"batch", RS_INT, 0}, {"bptt", RS_INT, 0}, {"threads", RS_INT, 0}, \
        {"classes", RS_INT, 0}

/* ---- train_bench.c: exit codes as train_run ---- */
int train_bench(run_ctx *r);
int train_pipeline(run_ctx *r);

#endif
