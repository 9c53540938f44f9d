/* main.c — `rnn-train`: RNN language-model training in one process.
 *
 *   rnn-train --model lstm --hidden 512 --bptt 35 --batch 32 --corpus mobydick --epochs 2
 *   rnn-train --model lstm --hidden 512 --vocab 10000 --bench 20 --csv bench.csv
 *   rnn-train --model lstm --hidden 512 --pipeline  (two-stage pipeline vs sequential)
 *   rnn-train --model kn3                 (the Kneser-Ney trigram baseline's perplexity)
 *
 * Flags are parsed from one table (common/opts.h) into train_opts (train.h), one
 * field per flag.  Exit: 0 done, 1 the loss diverged (NaN/inf), 2 bad usage or input
 * (one line on stderr), 130 interrupted (after writing a checkpoint). */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "fsio.h"
#include "opts.h"
#include "train.h"

static const char usage[] =
    "usage: rnn-train [options]\n"
    "Train an RNN language model (Elman or LSTM, 1-4 layers, full or class-factorized\n"
    "softmax) on real text with truncated BPTT; or, with --bench N, time N training steps;\n"
    "or, with --pipeline, time the two-stage pipelined forward; or, with --model kn3, score\n"
    "the Kneser-Ney trigram baseline on the same split.\n";

int main(int argc, char **argv)
{
    rs_set_progname("rnn-train");
    rs_install_signal_handlers();
    train_opts o;
    train_opts_defaults(&o);
    const char *model = "lstm", *level = "word", *optim = "sgd", *sched = "plateau";
    long hidden = 512, layers = 1, embed = -1, bptt = 35, batch = 32, vocab = -1;
    long steps = 0, epochs = 0, eval_every = 0, ckpt_every = 0, seed = 1, threads = 0;
    long warmup = 0, bench = 0;
    int pipeline = 0;
    long classes = 0, completion = 0;
    double lr = -1, momentum = 0.9, clip = 5.0, target = 0;
    rs_common_opts co = {0};
    const rs_opt opts[] = {
        {"model", RS_OPT_STR, &model, "NAME", "elman, lstm, or kn3 (Kneser-Ney trigram baseline) [lstm]", 0, 0},
        {"hidden", RS_OPT_INT, &hidden, "N", "hidden units per layer [512]", 1, 65536},
        {"layers", RS_OPT_INT, &layers, "N", "recurrent layers [1]", 1, MODEL_MAX_LAYERS},
        {"embed", RS_OPT_INT, &embed, "N", "embedding width [= --hidden]", 1, 65536},
        {"bptt", RS_OPT_INT, &bptt, "T", "truncated-BPTT window, steps [35]", 1, 10000},
        {"batch", RS_OPT_INT, &batch, "B", "parallel streams per step [32]", 1, 65536},
        {"classes", RS_OPT_INT, &classes, "N", "class-factorized softmax with N classes by unigram frequency (RNNLM) [0: full softmax]", 0, 1 << 24},
        {"vocab", RS_OPT_INT, &vocab, "N", "vocabulary cap incl. <unk>/<eos> [10000 words; all chars]", 2, 1 << 24},
        {"level", RS_OPT_STR, &level, "LEVEL", "word or char [word]", 0, 0},
        {"corpus", RS_OPT_STR, &o.corpus, "NAME", "mobydick, kjv (King James Bible) or a text FILE [mobydick]", 0, 0},
        {"optimizer", RS_OPT_STR, &optim, "NAME", "sgd, momentum, nesterov or adam [sgd]", 0, 0},
        {"lr", RS_OPT_DBL, &lr, "X", "learning rate [sgd 1, momentum/nesterov 0.1, adam 0.002]", 0, 1e30},
        {"momentum", RS_OPT_DBL, &momentum, "X", "momentum / nesterov coefficient [0.9]", 0, 1},
        {"clip", RS_OPT_DBL, &clip, "X", "clip the global gradient norm at X, 0 = off [5]", 0, 1e12},
        {"schedule", RS_OPT_STR, &sched, "NAME", "const, linear, cosine or plateau (RNNLM halving) [plateau]", 0, 0},
        {"warmup", RS_OPT_INT, &warmup, "N", "linear learning-rate warmup, steps [0]", 0, 1e12},
        {"steps", RS_OPT_INT, &steps, "N", "stop after step N (counted from the start of the run) [one epoch]", 1, 1e15},
        {"epochs", RS_OPT_INT, &epochs, "N", "stop after N passes over the train split", 1, 1e9},
        {"target-ppl", RS_OPT_DBL, &target, "X", "stop at the first evaluation with valid ppl <= X; report steps/tokens/seconds to it", 1, 1e12},
        {"eval-every", RS_OPT_INT, &eval_every, "N", "evaluate on valid every N steps [once per epoch]", 1, 1e15},
        {"checkpoint", RS_OPT_STR, &o.ckpt_dir, "DIR", "write checkpoints into DIR (atomically) every K steps and at exit", 0, 0},
        {"checkpoint-every", RS_OPT_INT, &ckpt_every, "K", "checkpoint every K steps [at each evaluation]", 1, 1e15},
        {"resume", RS_OPT_FLAG, &o.resume, NULL, "continue from the newest checkpoint in --checkpoint DIR (bit-identical)", 0, 0},
        {"seed", RS_OPT_INT, &seed, "N", "random seed: initial weights [1]", 0, 4.6e18},
        {"threads", RS_OPT_INT, &threads, "N", "threads for GEMM and the softmax [all CPUs]", 1, 1024},
        {"gemm", RS_OPT_STR, &o.gemm, "NAME", "GEMM backend: auto (each product shape on the fastest of the backends that load and pass the reference check, timed at start-up; a resume reuses the checkpoint's picks), openblas, blis, onednn, blocked or naive [auto]", 0, 0},
        {"completion", RS_OPT_INT, &completion, "N", "after training, an MSR-style sentence completion test of N held-out test sentences (one word blanked, 4 impostors of similar frequency); accuracy [0: off]", 0, 1000000},
        {"log", RS_OPT_STR, &o.log, "FILE", "evaluation log, CSV: step,tokens,seconds,train_loss,valid_ppl,lr", 0, 0},
        {"bench", RS_OPT_INT, &bench, "N", "time N training steps: tokens_per_s, gflops, frac_of_peak", 1, 1e9},
        {"pipeline", RS_OPT_FLAG, &pipeline, NULL, "time the forward with the output layer of step t overlapping the recurrence of t+1 (2 threads) against the sequential order; --bench N windows [10]", 0, 0},
        RS_COMMON_OPTS(co),
    };
    int rc = rs_opts_parse(argc, argv, opts, RS_ARRAY_LEN(opts), usage, NULL, NULL);
    if (rc == 1)
        return RS_EXIT_OK;
    if (rc != 0)
        rs_die(RS_EXIT_USAGE);

    int kn3 = strcmp(model, "kn3") == 0;
    if (!kn3 && model_cell_from_name(model, &o.cfg.cell) != 0)
        rs_fatal(RS_EXIT_USAGE, "--model: unknown model '%s' (expected elman, lstm or kn3)", model);
    if (strcmp(level, "word") == 0)
        o.level = LEVEL_WORD;
    else if (strcmp(level, "char") == 0)
        o.level = LEVEL_CHAR;
    else
        rs_fatal(RS_EXIT_USAGE, "--level: unknown level '%s' (expected word or char)", level);
    if (optim_from_name(optim, &o.optim) != 0)
        rs_fatal(RS_EXIT_USAGE, "--optimizer: unknown optimizer '%s' (expected sgd, momentum, "
                                "nesterov or adam)", optim);
    if (sched_from_name(sched, &o.sched) != 0)
        rs_fatal(RS_EXIT_USAGE, "--schedule: unknown schedule '%s' (expected const, linear, "
                                "cosine or plateau)", sched);
    if (pipeline && classes)
        rs_fatal(RS_EXIT_USAGE, "--pipeline times the full-softmax output layer: drop --classes");
    if (o.resume && !o.ckpt_dir)
        rs_fatal(RS_EXIT_USAGE, "--resume needs --checkpoint DIR (the folder to resume from)");
    o.cfg.hidden = (int)hidden;
    o.cfg.layers = (int)layers;
    o.cfg.embed = (int)(embed > 0 ? embed : hidden);
    o.cfg.bptt = (int)bptt;
    o.cfg.batch = (int)batch;
    o.cfg.classes = (int)classes;
    o.completion = (int)completion;
    o.vocab_explicit = vocab > 0;
    o.vocab_cap = vocab > 0 ? (int)vocab : o.level == LEVEL_WORD ? 10000 : 0;
    o.lr = lr;
    o.momentum = momentum;
    o.clip = clip;
    o.warmup = warmup;
    o.steps = steps;
    o.epochs = epochs;
    o.target_ppl = target;
    o.eval_every = eval_every;
    o.ckpt_every = ckpt_every;
    o.seed = (uint64_t)seed;
    o.threads = (int)threads;
    o.bench = bench;
    o.pipeline = pipeline ? (bench ? bench : co.quick ? 3 : 10) : 0;
    o.csv = co.csv;
    o.json = co.json;
    if (co.quick && !steps && !bench) {   /* a smoke run: 20 steps, evaluated twice */
        o.steps = 20;
        if (!eval_every)
            o.eval_every = 10;
    }
    o.argc = argc;
    o.argv = argv;
    rc = kn3 ? kn3_run(&o) : train_run(&o);
    if (rc != RS_EXIT_OK)
        rs_die(rc);
    return RS_EXIT_OK;
}
