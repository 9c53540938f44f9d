/* train.h — rnn-train's options (one struct, one comment per field), the training
 * run and the throughput benchmark.  train_cli.c fills the options from flags; the
 * tests fill them directly. */
#ifndef RS_MODELS_TRAIN_H
#define RS_MODELS_TRAIN_H

#include <stdint.h>

#include "corpus.h"
#include "dp_comm.h"
#include "model.h"
#include "optim.h"

/* --lr-scale: the learning rate against the global batch B and --base-batch B0. */
typedef enum { LR_SCALE_NONE, LR_SCALE_LINEAR, LR_SCALE_SQRT } lr_scale_kind;

typedef struct {
    model_cfg cfg;           /* --model --layers --hidden --embed --batch --bptt --classes; vocab
                                comes from the corpus (--vocab is the cap below) */
    int vocab_cap;           /* --vocab: most ids, <unk>/<eos> included (0: all) */
    int vocab_explicit;      /* --vocab was given: too large is an error */
    corpus_level level;      /* --level word|char */
    const char *corpus;      /* --corpus mobydick|FILE */
    optim_kind optim;        /* --optimizer */
    double lr;               /* --lr (< 0: the optimizer's default) */
    lr_scale_kind lr_scale;  /* --lr-scale: lr x B/B0 (linear) or x sqrt(B/B0) (sqrt) */
    long base_batch;         /* --base-batch B0 (0: the global batch, no change) */
    double momentum;         /* --momentum */
    double clip;             /* --clip: max global gradient norm, 0 off */
    sched_kind sched;        /* --schedule */
    long warmup;             /* --warmup steps */
    long steps;              /* --steps: stop after this step (absolute; 0: no limit) */
    long epochs;             /* --epochs: stop after this many passes (0: no limit) */
    double target_ppl;       /* --target-ppl: stop at the first evaluation reaching it */
    double diverge_ppl;      /* --diverge-ppl: a valid ppl above it counts as diverged (0:
                                only a non-finite one) */
    double max_seconds;      /* --max-seconds: stop once the training time (evaluations
                                excluded) reaches it, a fixed-time budget (0: none) */
    long eval_every;         /* --eval-every steps (0: once per epoch) */
    int eval_async;          /* --eval-async: score a snapshot on a spare thread while training
                                goes on; the schedule takes it one evaluation late */
    long eval_streams;       /* --eval-streams E: valid/test as E streams whatever the
                                batch, so runs of any batch are scored alike (0: N x b) */
    double eval_growth;      /* --eval-growth G: the evaluations' interval grows by G of the
                                step (0: every eval_every steps) */
    long eval_tokens;        /* --eval-tokens T: the evaluations during training score the
                                first T valid tokens, the final valid and test all (0: all) */
    double eval_gate;        /* --eval-gate X: an evaluation scores each stream's first
                                window, and the rest only when that ppl is <= X (0: off) */
    const char *ckpt_dir;    /* --checkpoint DIR */
    long ckpt_every;         /* --checkpoint-every steps (0: at each evaluation) */
    int resume;              /* --resume: continue from the newest checkpoint in DIR */
    uint64_t seed;           /* --seed */
    int threads;             /* --threads */
    const char *gemm;        /* --gemm: "auto" or NULL (the default: per product shape the
                                fastest checked backend, matmul.h), or one backend's name */
    const char *log;         /* --log FILE: the evaluation log (CSV) */
    long bench;              /* --bench N: time N training steps instead of training */
    int completion;          /* --completion N: the sentence completion test with N questions
                                (completion.h) after training; 0 off */
    long pipeline;           /* --pipeline: time this many windows' forward in the sequential
                                and the two-stage pipelined order (pipeline.h); 0 off */
    const char *csv, *json;  /* --csv / --json: the summary (or benchmark) table */
    int workers;             /* --workers N: synchronous workers, N/P per rank (0: P) */
    const char *sync;        /* --sync: the gradient exchange (fused, bucketed, per-tensor) */
    const char *embed_exchange;   /* --embed-exchange: dense, or sparse (touched rows) */
    double bucket_mib;       /* --bucket-mib: bucketed's bucket size, MiB (> 0) */
    int shard_update;        /* --shard-update: each rank updates its block of the
                                parameters between the reduce-scatter and the allgather */
    dp_exchange_opts exchange; /* --allreduce, --group-size, --group-max, --inner */
    int quiet;               /* no stdout (tests) */
    int argc;                /* for the tables' metadata */
    char **argv;
} train_opts;

void train_opts_defaults(train_opts *o);

/* ---- the starting learning rate (train_lr.c) ---- */
int lr_scale_from_name(const char *name, lr_scale_kind *out);   /* 0, -1 unknown */
const char *lr_scale_name(lr_scale_kind k);
/* The global batch B = workers x --batch (workers 0, not yet resolved to P: 1). */
long train_global_batch(const train_opts *o);
long train_base_batch(const train_opts *o);   /* B0: --base-batch, or B */
double train_base_lr(const train_opts *o);    /* --lr, or the optimizer's default */
double train_lr(const train_opts *o);         /* the base lr scaled by --lr-scale */

/* Train (or benchmark) as the options say.  Returns the exit code: RS_EXIT_OK,
 * RS_EXIT_WRONG (loss not finite), RS_EXIT_USAGE (bad input: rs_lasterr has the one
 * line), RS_EXIT_INTR / RS_EXIT_TERM (SIGINT / SIGTERM between steps, after writing a
 * checkpoint; in other phases the signal handler exits at once, see train.c). */
int train_run(const train_opts *o);
/* --check-args: every check train_run makes before reading the corpus (GEMM name or
 * plan, --sync/--allreduce names, the corpus found, the outputs new and writable),
 * nothing read or written.  RS_EXIT_OK or RS_EXIT_USAGE (rs_lasterr). */
int train_check_only(const train_opts *o);

/* --model kn3 (kn3.c): count the interpolated Kneser-Ney trigram on the train split
 * of the same corpus, report valid and test perplexity (table, --csv, --json).
 * Same exit codes as train_run. */
int kn3_run(const train_opts *o);

/* rnn-train's command line (train_cli.c): flags to options, then train_run, kn3_run
 * or train_check_only under the hooks set (train_hooks.h).  The exit code; main.c's
 * main and rnn-train-smpi's (scaling/sim/train_smpi.c) call it. */
int train_cli_main(int argc, char **argv);

/* ---- evaluation (eval.c) ---- */
typedef struct {
    double loss;       /* mean -log p per token (nats) */
    double ppl;        /* exp(loss) */
    double bits;       /* loss / ln 2: bits per token (bits per character at char level) */
    long tokens;
} eval_result;

/* Loss over a whole split: B streams, windows of T, state carried from zero; the
 * training state (state_h, state_c) is saved and restored around it. */
void eval_split(model *m, const int *data, long n, eval_result *r);
/* The same over G*B streams laid as --batch G*B lays them, scored B at a time (the
 * data-parallel run's G workers): eval_split is G = 1. */
void eval_split_groups(model *m, const int *data, long n, int G, eval_result *r);
/* Groups [g0, g1) of that layout alone: the sum of their token losses and the tokens
 * scored (a rank's shard; the sums over all shards give eval_split_groups's result).
 * windows > 0: each stream's first `windows` windows only (0: all). */
void eval_groups_partial(model *m, const int *data, long n, int G, int g0, int g1, int windows,
                         double *sum, long *tokens);
/* The same run whatever the numbers (eval_groups_partial skips it where they mean
 * nothing): for a simulation that measures its time. */
void eval_groups_score(model *m, const int *data, long n, int G, int g0, int g1, int windows,
                       double *sum, long *tokens);
/* A check made between windows while scoring: when it returns non-zero the scoring
 * stops there and its sums are NaN (an --eval-ranks rank told its evaluation is
 * abandoned).  NULL (the default): none. */
void eval_set_abandon_check(int (*abandoned)(void));
/* FLOPs of the GEMMs of scoring groups [g0, g1) (forward only). */
double eval_groups_flops(const model_cfg *c, long n, int G, int g0, int g1, int windows);
void eval_result_set(eval_result *r, double sum, long tokens);   /* mean, ppl, bits */

#endif
