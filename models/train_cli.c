/* train_cli.c — `rnn-train`'s command line (train_cli_main, train.h): RNN
 * language-model training, in one process or data-parallel under mpirun (--workers,
 * dp_comm.h).  rnn-train's main (main.c) and rnn-train-smpi's (scaling/sim/train_smpi.c,
 * after setting its hooks) both run it.
 *
 *   rnn-train --model lstm --hidden 512 --bptt 35 --batch 32 --corpus mobydick --epochs 2
 *   rnn-train --model lstm --hidden 512 --vocab 10000 --bench 20 --csv bench.csv
 *   rnn-train --model lstm --hidden 512 --pipeline  (two-stage pipeline vs sequential)
 *   rnn-train --model kn3                 (the Kneser-Ney trigram baseline's perplexity)
 *
 * Flags are parsed from one table (common/opts.h, numeric ranges declared there) into
 * train_opts (train.h), one field per flag; the sizes they imply are checked next,
 * before anything is read or written; --check-args stops after every check.
 * Exit: 0 done, 1 the loss diverged (NaN/inf, or valid ppl > --diverge-ppl), 2 bad usage
 * or input (one line on stderr), 130 / 143 interrupted by SIGINT / SIGTERM (between
 * training steps after writing a checkpoint; in any other phase at once). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "checkpoint.h"
#include "dp_comm.h"
#include "fsio.h"
#include "opts.h"
#include "train.h"

static const char usage[] =
    "usage: rnn-train [options]\n"
    "Train an RNN language model (Elman or LSTM, 1-4 layers, full or class-factorized\n"
    "softmax) on real text with truncated BPTT; or, with --bench N, time N training steps;\n"
    "or, with --pipeline, time the two-stage pipelined forward; or, with --model kn3, score\n"
    "the Kneser-Ney trigram baseline on the same split.\n";

/* The flags that are converted before they reach train_opts (names to enums, longs to
 * ints); the others are parsed straight into it. */
typedef struct {
    const char *model, *level, *optim, *sched, *lr_scale;
    long base_batch;
    long hidden, layers, embed, bptt, batch, classes, vocab, completion, seed, threads;
    long workers, group_size, group_max, eval_ranks;
    int pipeline, check_args, resume_if_any;
    rs_common_opts co;
} flag_values;

/* The flags' starting values are train_opts_defaults's: one set of defaults. */
static void flags_from_defaults(const train_opts *o, flag_values *f)
{
    memset(f, 0, sizeof *f);
    f->model = model_cell(o->cfg.cell)->name;
    f->level = o->level == LEVEL_WORD ? "word" : "char";
    f->optim = optim_name(o->optim);
    f->sched = sched_name(o->sched);
    f->lr_scale = lr_scale_name(o->lr_scale);
    f->hidden = o->cfg.hidden;
    f->layers = o->cfg.layers;
    f->embed = 0;   /* 0: = --hidden */
    f->bptt = o->cfg.bptt;
    f->batch = o->cfg.batch;
    f->classes = o->cfg.classes;
    f->vocab = 0;   /* 0: the level's default */
    f->completion = o->completion;
    f->seed = (long)o->seed;
    f->threads = o->threads;
}

/* 0, 1 after --help, -1 on a bad flag (rs_lasterr). */
static int parse_flags(int argc, char **argv, train_opts *o, flag_values *f)
{
    const rs_opt opts[] = {
        {"model", RS_OPT_STR, &f->model, "NAME", "elman, lstm, or kn3 (Kneser-Ney trigram baseline) [lstm]", 0, 0},
        {"hidden", RS_OPT_INT, &f->hidden, "N", "hidden units per layer [512]", 1, 65536},
        {"layers", RS_OPT_INT, &f->layers, "N", "recurrent layers [1]", 1, MODEL_MAX_LAYERS},
        {"embed", RS_OPT_INT, &f->embed, "N", "embedding width [= --hidden]", 1, 65536},
        {"bptt", RS_OPT_INT, &f->bptt, "T", "truncated-BPTT window, steps [35]", 1, 10000},
        {"batch", RS_OPT_INT, &f->batch, "B", "parallel streams per step [32]", 1, 65536},
        {"classes", RS_OPT_INT, &f->classes, "N", "class-factorized softmax with N classes by unigram frequency (RNNLM) [0: full softmax]", 0, 1 << 24},
        {"vocab", RS_OPT_INT, &f->vocab, "N", "vocabulary cap incl. <unk>/<eos> [10000 words; all chars]", 2, 1 << 24},
        {"level", RS_OPT_STR, &f->level, "LEVEL", "word or char [word]", 0, 0},
        {"corpus", RS_OPT_STR, &o->corpus, "NAME", "mobydick, kjv (King James Bible), sotu (State of the Union addresses), big (10.9 M tokens: models/fetch_big.sh) or a text FILE [mobydick]", 0, 0},
        {"optimizer", RS_OPT_STR, &f->optim, "NAME", "sgd, momentum, nesterov, adam, lars (layer-wise trust ratio on momentum) or lamb (on adam) [sgd]", 0, 0},
        {"lr", RS_OPT_DBL_GT, &o->lr, "X", "learning rate [sgd 1, momentum/nesterov 0.1, adam 0.002, lars 10, lamb 0.1]", 0, 1e30},
        {"lr-scale", RS_OPT_STR, &f->lr_scale, "NAME", "scale --lr with the global batch B: none, linear (x B/B0) or sqrt (x sqrt(B/B0)); --warmup stays in steps (LEGW) [none]", 0, 0},
        {"base-batch", RS_OPT_INT, &f->base_batch, "B0", "the batch --lr was tuned for [= --batch]", 1, 1e9},
        {"momentum", RS_OPT_DBL, &o->momentum, "X", "momentum / nesterov coefficient [0.9]", 0, 1},
        {"clip", RS_OPT_DBL, &o->clip, "X", "clip the global gradient norm at X, 0 = off [5]", 0, 1e12},
        {"schedule", RS_OPT_STR, &f->sched, "NAME", "const, linear, cosine or plateau (RNNLM halving) [plateau]", 0, 0},
        {"warmup", RS_OPT_INT, &o->warmup, "N", "linear learning-rate warmup, steps [0]", 0, 1e12},
        {"steps", RS_OPT_INT, &o->steps, "N", "stop after step N (counted from the start of the run) [one epoch]", 1, 1e15},
        {"epochs", RS_OPT_INT, &o->epochs, "N", "stop after N passes over the train split", 1, 1e9},
        {"target-ppl", RS_OPT_DBL, &o->target_ppl, "X", "stop at the first evaluation with valid ppl <= X; report steps/tokens/seconds to it", 1, 1e12},
        {"diverge-ppl", RS_OPT_DBL, &o->diverge_ppl, "X", "a logged evaluation with valid ppl > X ends the run as diverged (exit 1), as a NaN or inf does, keeping only checkpoints of earlier steps; the vocabulary size is a uniform guess's ppl [0: only NaN or inf]", 0, 1e300},
        {"max-seconds", RS_OPT_DBL, &o->max_seconds, "S", "a fixed-time budget: stop after the step that brings the training time (evaluations excluded) to S seconds, or at --steps/--epochs if sooner (one epoch when neither is given); one process only [0: none]", 0, 1e12},
        {"eval-every", RS_OPT_INT, &o->eval_every, "N", "evaluate on valid every N steps [once per epoch]; with --bench, time N-step intervals with and without evaluation", 1, 1e15},
        {"eval-async", RS_OPT_FLAG, &o->eval_async, NULL, "evaluate a snapshot of the parameters on a spare thread (1 OpenMP thread) while training goes on; the row of step s is logged when ready, and the schedule and --target-ppl react one evaluation late (step s's result is applied at the next evaluation, a checkpoint or the end)", 0, 0},
        {"eval-ranks", RS_OPT_INT, &f->eval_ranks, "K", "under mpirun -np P: the last K ranks score parameter snapshots (sharded among themselves) while the other P - K train, as a run of P - K ranks would; rows, schedule and --target-ppl as --eval-async's (one evaluation late); the final valid/test are sharded over the training ranks [0: off]", 0, 1 << 20},
        {"eval-gate", RS_OPT_DBL, &o->eval_gate, "X", "the evaluations during training score each evaluation stream's first window (bptt tokens, same layout) first, and go on to all of --eval-tokens only when that perplexity is <= X: set X well above the easiest target a run is counted against; a row above X is logged with its first-window ppl (eval_tokens says how many it scored) and neither the schedule nor --target-ppl takes it; synchronous evaluation only [0: off]", 0, 1e300},
        {"eval-growth", RS_OPT_DBL, &o->eval_growth, "G", "evaluate at --eval-every E, then each time the step has grown by G of itself (at least E): every step counted to within G, ~ln(steps/E)/G evaluations (0.05: 5%) [0: every E]", 0, 10},
        {"eval-tokens", RS_OPT_INT, &o->eval_tokens, "T", "the evaluations during training (the log, --target-ppl, the schedule) score the first T valid tokens, a cheaper sample; the final valid and test score all; kn3 reports its perplexity on them as eval_ppl [0: all]", 1, 1L << 40},
        {"eval-streams", RS_OPT_INT, &o->eval_streams, "E", "score valid/test as E streams (a multiple of --batch) whatever --workers, so runs of different global batches are scored on the same layout [workers x batch]", 1, 1 << 20},
        {"checkpoint", RS_OPT_STR, &o->ckpt_dir, "DIR", "write checkpoints into DIR (atomically) every K steps and at exit", 0, 0},
        {"checkpoint-every", RS_OPT_INT, &o->ckpt_every, "K", "checkpoint every K steps [at each evaluation]", 1, 1e15},
        {"resume", RS_OPT_FLAG, &o->resume, NULL, "continue from the newest checkpoint in --checkpoint DIR (bit-identical)", 0, 0},
        {"resume-if-any", RS_OPT_FLAG, &f->resume_if_any, NULL, "--resume when --checkpoint DIR holds a checkpoint, else start: one command line for a job a stop may cut (a study's points)", 0, 0},
        {"seed", RS_OPT_INT, &f->seed, "N", "random seed: initial weights [1]", 0, 4.6e18},
        {"threads", RS_OPT_INT, &f->threads, "N", "threads for GEMM and the softmax [all CPUs]", 1, 1024},
        {"gemm", RS_OPT_STR, &o->gemm, "NAME", "GEMM backend: auto (each product shape on the fastest of the backends that load and pass the reference check, timed at start-up; a resume reuses the checkpoint's picks), openblas, blis, onednn, blocked or naive, or a plan an earlier run recorded (its summary.json's gemm_plan, 'auto:other=blis;512x140x128:TN=onednn;...': the same dispatch, no timing) [auto]", 0, 0},
        {"completion", RS_OPT_INT, &f->completion, "N", "after training, an MSR-style sentence completion test of N held-out test sentences (one word blanked, 4 impostors of similar frequency); accuracy [0: off]", 0, 1000000},
        {"log", RS_OPT_STR, &o->log, "FILE", "evaluation log, CSV: step,tokens,seconds,train_loss,valid_ppl,lr,b_simple,eval_seconds,eval_exposed_seconds", 0, 0},
        {"bench", RS_OPT_INT, &o->bench, "N", "time N training steps: tokens_per_s, gflops, frac_of_peak", 1, 1e9},
        {"workers", RS_OPT_INT, &f->workers, "N", "data-parallel: N synchronous workers of --batch streams each, N/P per MPI rank (run under mpirun -np P); the same data as --batch N*B [P]", 1, 1 << 20},
        {"sync", RS_OPT_STR, &o->sync, "MODE", "gradient exchange: fused (one allreduce of the whole gradient per step), bucketed (buckets of --bucket-mib summed on a communication thread while the backward goes on) or per-tensor (one allreduce per tensor per unrolled step, the Caffe-style baseline) [fused]", 0, 0},
        {"embed-exchange", RS_OPT_STR, &o->embed_exchange, "MODE", "the embedding's gradient: dense (all V rows) or sparse (the rows some worker's window touched, their union found by a V-bit OR over the ranks; per step, when that moves fewer bytes); the same sums as dense where the allreduce's order does not depend on position (ordered, P = 2) [dense]", 0, 0},
        {"shard-update", RS_OPT_FLAG, &o->shard_update, NULL, "weight-update sharding (--sync fused, dense embedding, sgd/momentum/nesterov/adam): each rank clips and updates only its block of the summed gradient, between the allreduce's reduce-scatter and its allgather, which then spreads parameters; the optimizer's work per rank falls as 1/P; the parameters are the replicated update's bit for bit where both exchanges sum in one order (P = 2, --allreduce ordered), else a rounding apart near block edges", 0, 0},
        {"bucket-mib", RS_OPT_DBL_GT, &o->bucket_mib, "M", "--sync bucketed: bucket size in MiB, > 0 (fractions allowed) and <= 4096 [25]", 0, 4096},
        {"allreduce", RS_OPT_STR, &o->exchange.algo, "NAME", "the exchange's algorithm, any of allreduce-bench's (library = MPI_Allreduce, ring, hier, ..., library:K; ordered: the workers' one summation order at any P) [library]", 0, 0},
        {"group-size", RS_OPT_INT, &f->group_size, "G", "hier: ranks per group (default: the node); torus2d: row length", 1, 1 << 20},
        {"group-max", RS_OPT_INT, &f->group_max, "G", "hier: cut unequal or larger groups into equal ones of at most G ranks", 1, 1 << 20},
        {"inner", RS_OPT_STR, &o->exchange.inner, "NAME", "hier: allreduce among groups [rabenseifner]", 0, 0},
        {"exchange-timeout", RS_OPT_DBL, &o->exchange.timeout_s, "S", "under mpirun: a rank that waits more than S seconds in one collective (an exchange, an agreement, a gather) ends the run with one line (a peer, or the network to it, is gone; the last checkpoint resumes); S must exceed rank 0's longest evaluation or checkpoint write, which the others wait for; 0 waits for ever [600]", 0, 1e7},
        {"check-args", RS_OPT_FLAG, &f->check_args, NULL, "check every flag, the corpus name, the GEMM name or plan and the output files as a run would, then exit 0 (or 2 with the one line) without reading the corpus or writing anything", 0, 0},
        {"pipeline", RS_OPT_FLAG, &f->pipeline, NULL, "time the forward with the output layer of step t overlapping the recurrence of t+1 (2 threads) against the sequential order; --bench N windows [10]", 0, 0},
        RS_COMMON_OPTS(f->co),
    };
    return rs_opts_parse(argc, argv, opts, RS_ARRAY_LEN(opts), usage, NULL, NULL);
}

/* The names given to --model, --level, --optimizer, --schedule, and the flags that
 * exclude each other.  0, or -1 (rs_lasterr). */
static int check_names(const flag_values *f, train_opts *o, int kn3)
{
    RS_CHECK(kn3 || model_cell_from_name(f->model, &o->cfg.cell) == 0,
          "--model: unknown model '%s' (expected elman, lstm or kn3)", f->model);
    if (strcmp(f->level, "word") == 0)
        o->level = LEVEL_WORD;
    else if (strcmp(f->level, "char") == 0)
        o->level = LEVEL_CHAR;
    else
        RS_CHECK(0, "--level: unknown level '%s' (expected word or char)", f->level);
    RS_CHECK(optim_from_name(f->optim, &o->optim) == 0, "--optimizer: unknown optimizer '%s' "
          "(expected sgd, momentum, nesterov, adam, lars or lamb)", f->optim);
    RS_CHECK(lr_scale_from_name(f->lr_scale, &o->lr_scale) == 0, "--lr-scale: unknown scaling "
          "'%s' (expected none, linear or sqrt)", f->lr_scale);
    RS_CHECK(sched_from_name(f->sched, &o->sched) == 0, "--schedule: unknown schedule '%s' "
          "(expected const, linear, cosine or plateau)", f->sched);
    RS_CHECK(!(f->pipeline && f->classes), "--pipeline times the full-softmax output layer: drop "
          "--classes");
    RS_CHECK(!o->resume || o->ckpt_dir, "--resume needs --checkpoint DIR (the folder to resume "
          "from)");
    RS_CHECK(!f->resume_if_any || o->ckpt_dir, "--resume-if-any needs --checkpoint DIR (the "
          "folder to resume from)");
    RS_CHECK(!(f->resume_if_any && o->resume), "--resume and --resume-if-any: give one");
    char newest[4200];
    if (f->resume_if_any)
        o->resume = ckpt_latest(o->ckpt_dir, newest, sizeof newest) == 0;
    RS_CHECK(o->eval_gate <= 0 || !f->eval_ranks, "--eval-gate decides between its two scorings "
          "at once, which --eval-ranks cannot: drop one");
    RS_CHECK(!f->eval_ranks || dp_comm_active(), "--eval-ranks %ld needs ranks to set aside: run "
          "under mpirun -np P with P > %ld", f->eval_ranks, f->eval_ranks);
    RS_CHECK(f->eval_ranks < dp_comm_size(), "--eval-ranks %ld leaves none of the %d ranks to "
          "train (use K < P, e.g. mpirun -np %ld)", f->eval_ranks, dp_comm_size(), f->eval_ranks + 1);
    RS_CHECK(!f->eval_ranks || !o->eval_async, "--eval-ranks and --eval-async both evaluate "
          "beside training: choose one");
    /* ranks time their steps apart, so each would stop at its own step */
    RS_CHECK(!(o->max_seconds > 0 && dp_comm_size() > 1), "--max-seconds: one process only "
          "(ranks would stop at different steps); under mpirun use --steps");
    RS_CHECK(!o->bench || o->eval_every <= o->bench, "--bench %ld with --eval-every %ld: no "
          "block of %ld steps to time (use --bench %ld or more)", o->bench, o->eval_every,
          o->eval_every, o->eval_every);
    return 0;
}

/* The converted flags into train_opts; --quick's smoke run. */
static void apply_flags(const flag_values *f, train_opts *o)
{
    o->cfg.hidden = (int)f->hidden;
    o->cfg.layers = (int)f->layers;
    o->cfg.embed = (int)(f->embed > 0 ? f->embed : f->hidden);
    o->cfg.bptt = (int)f->bptt;
    o->cfg.batch = (int)f->batch;
    o->base_batch = f->base_batch;
    o->cfg.classes = (int)f->classes;
    o->completion = (int)f->completion;
    o->vocab_explicit = f->vocab > 0;
    if (o->vocab_explicit)
        o->vocab_cap = (int)f->vocab;
    else if (o->level != LEVEL_WORD)
        o->vocab_cap = 0;   /* every character */
    o->seed = (uint64_t)f->seed;
    o->workers = (int)f->workers;
    o->exchange.group_size = (int)f->group_size;
    o->exchange.group_max = (int)f->group_max;
    o->threads = (int)f->threads;
    o->pipeline = f->pipeline ? (o->bench ? o->bench : f->co.quick ? 3 : 10) : 0;
    o->csv = f->co.csv;
    o->json = f->co.json;
    if (f->co.quick && !o->steps && !o->bench) {   /* a smoke run: 20 steps, evaluated twice */
        o->steps = 20;
        if (!o->eval_every)
            o->eval_every = 10;
    }
}

/* The sizes the flags imply, before anything is read: with the vocabulary's cap (the
 * corpus can only give fewer ids); set-up checks again with the real vocabulary. */
static int check_sizes(const train_opts *o)
{
    model_cfg c = o->cfg;
    c.vocab = o->vocab_cap > 0 ? o->vocab_cap : 256;   /* char level: every byte */
    return model_cfg_check(&c, o->workers > 0 ? o->workers : dp_comm_size());
}

/* Under mpirun every rank reaches the same verdict: rank 0 alone says it.  After a
 * non-zero exit mpirun stops the ranks still finishing: they go quietly (an eval rank
 * too, whose own code is 0 when training rank 0 stopped on a signal). */
static int finish(int code)
{
    int speaker = dp_comm_rank() == 0 && dp_comm_eval_index() < 0;
    if (code != RS_EXIT_OK && speaker)
        fprintf(stderr, "%s: %s\n", rs_progname(), rs_lasterr());
    if ((code != RS_EXIT_OK || !speaker) && dp_comm_active()) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
    }
    dp_comm_finish();
    return code;
}

int train_cli_main(int argc, char **argv)
{
    rs_set_progname("rnn-train");
    if (dp_comm_start(&argc, &argv) != 0)
        rs_die(RS_EXIT_USAGE);
    rs_install_signal_handlers();
    train_opts o;
    train_opts_defaults(&o);
    flag_values f;
    flags_from_defaults(&o, &f);
    int rc = parse_flags(argc, argv, &o, &f);
    if (rc == 1)
        return finish(RS_EXIT_OK);
    if (rc != 0)
        return finish(RS_EXIT_USAGE);
    int kn3 = strcmp(f.model, "kn3") == 0;
    if (check_names(&f, &o, kn3) != 0)
        return finish(RS_EXIT_USAGE);
    apply_flags(&f, &o);
    if (!kn3 && check_sizes(&o) != 0)
        return finish(RS_EXIT_USAGE);
    if (dp_comm_split_eval((int)f.eval_ranks) != 0)
        return finish(RS_EXIT_USAGE);
    o.argc = argc;
    o.argv = argv;
    if (f.check_args)
        rc = train_check_only(&o);
    else
        rc = kn3 ? kn3_run(&o) : train_run(&o);
    return finish(rc);
}
