/* cmd_advise.c — `study advise`: how many nodes will pay off, known before the cluster
 * runs.  A short run on this machine (rnn-train with two workers, so the trainer logs
 * the gradient noise scale B_simple at every evaluation) gives B_simple at its current
 * loss and its trend, the step's compute and the gradient's size.  advise_model.h turns
 * them into the steps S(B) at every global batch and the time to target on N nodes of
 * a cluster the user describes (GFLOP/s a node, link latency and bandwidth), and the N
 * past which a doubling gains too little.  --from reads a short run already made. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "advise_model.h"
#include "check.h"
#include "fsio.h"
#include "json.h"
#include "opts.h"
#include "proc.h"
#include "record.h"
#include "study.h"
#include "study_def.h"

#define MOST_ARGS 96
#define MOST_ROWS 100000

static const char usage[] =
    "usage: study advise [OPTIONS] [-- RNN_TRAIN_ARGS]\n"
    "How many nodes pay off for a training run: a short run here (rnn-train with two workers, --minutes\n"
    "of training) measures the gradient noise scale B_simple, the step's compute and the gradient's\n"
    "size; then S(B) = S_min (1 + B_simple / B) (McCandlish et al.) and a ring allreduce give the time\n"
    "to target on N nodes of the cluster described.  RNN_TRAIN_ARGS: the model and data (default: the\n"
    "regime study's, LSTM 128 with 100 classes, b = 80, --corpus big, Adam 0.003).";

static const char *const default_args[] = {"--model", "lstm", "--hidden", "128", "--classes", "100", "--bptt",
                                           "35", "--corpus", "big", "--vocab", "10000", "--batch", "80",
                                           "--optimizer", "adam", "--lr", "0.003", NULL};

typedef struct {
    double minutes, nodes, gflops, latency_us, bandwidth_gbit, steps_at_b, gain;
    const char *out, *from;
} advise_opts;

static int has(char **argv, int argc, const char *flag)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], flag) == 0)
            return 1;
    return 0;
}

/* The short run in dir: rnn-train with the user's arguments, two workers, a constant
 * rate and an evaluation every 100 steps on 16,000 tokens (B_simple is logged there)
 * unless given, and the budget. */
static int short_run(const advise_opts *o, char **user, int nuser, const char *dir)
{
    char *argv[MOST_ARGS + 32], rnn[4200], secs[64], log[4300], json[4300], out[4300], err[4300];
    int n = 0;
    snprintf(rnn, sizeof rnn, "%s/build/bin/rnn-train", study_root());
    argv[n++] = rnn;
    for (int i = 0; i < nuser; i++)
        argv[n++] = user[i];
    if (!has(user, nuser, "--workers"))
        argv[n++] = "--workers", argv[n++] = "2";
    if (!has(user, nuser, "--eval-every"))
        argv[n++] = "--eval-every", argv[n++] = "100";
    if (!has(user, nuser, "--eval-tokens"))
        argv[n++] = "--eval-tokens", argv[n++] = "16000";
    if (!has(user, nuser, "--schedule"))   /* the plateau schedule would end a short run early */
        argv[n++] = "--schedule", argv[n++] = "const";
    snprintf(secs, sizeof secs, "%.0f", 60 * o->minutes);
    snprintf(log, sizeof log, "%s/log.csv", dir);
    snprintf(json, sizeof json, "%s/summary.json", dir);
    snprintf(out, sizeof out, "%s/stdout.txt", dir);
    snprintf(err, sizeof err, "%s/stderr.txt", dir);
    char *more[] = {"--max-seconds", secs, "--epochs", "1000", "--log", log, "--json", json, NULL};
    for (int i = 0; more[i]; i++)
        argv[n++] = more[i];
    argv[n] = NULL;
    printf("advise: a %.3g-minute run of rnn-train in %s ...\n", o->minutes, dir);
    fflush(stdout);
    int rc = proc_run(argv, NULL, out, err, 0, NULL);
    char last[512];
    study_last_line(err, last, sizeof last);
    if (rc != 0)
        rs_seterr("the short run failed (exit %d): %s (its output: %s)", rc, last, dir);
    return rc;   /* rnn-train's: 2 bad arguments, 128 + a signal */
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* What the short run measured. */
typedef struct {
    double bsimple, trend, tokens, step_s, gflops, params, batch, workers;
} measured;

static int read_run(const char *dir, measured *m)
{
    char path[4300], line[4096];
    snprintf(path, sizeof path, "%s/summary.json", dir);
    rs_json *j = rs_json_load(path);
    RS_CHECK(j, "%s: no summary (not a short run's folder: give --from the folder study advise wrote)", path);
    const rs_json *rows = rs_json_get(j, "rows");
    const rs_json *row = rows && rows->type == RS_JARR && rows->n > 0 ? rows->items[0] : NULL;
    double steps = rs_json_num(row, "steps", NAN), secs = rs_json_num(row, "seconds", NAN);
    m->batch = rs_json_num(row, "batch", NAN);
    m->gflops = rs_json_num(row, "gflop_per_token", NAN) * rs_json_num(row, "tokens_per_s", NAN);
    rs_json_free(j);
    snprintf(path, sizeof path, "%s/stdout.txt", dir);
    FILE *f = rs_fopen_read(path);
    m->params = m->workers = NAN;
    while (f && fgets(line, sizeof line, f)) {
        char *p = strstr(line, " parameters\n"), *w = strstr(line, "workers");
        if (p && strncmp(line, "model", 5) == 0) {
            *p = 0;
            m->params = atof(strrchr(line, ' ') + 1);
        }
        if (w && strncmp(line, "workers", 7) == 0)
            m->workers = atof(w + 7);
    }
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "%s/log.csv", dir);
    rs_table *t = rs_table_read_csv_text(path);
    RS_CHECK(t, "%s: no evaluation log", path);
    int n = rs_table_nrows(t), k = 0;
    double *x = calloc((size_t)n + 1, sizeof *x), *y = calloc((size_t)n + 1, sizeof *y);
    RS_ASSERT(x && y);
    char c[64];
    for (int i = 0; i < n && i < MOST_ROWS; i++) {
        x[k] = atof(study_cell_at(t, i, "tokens", c, sizeof c));
        y[k++] = *study_cell_at(t, i, "b_simple", c, sizeof c) ? atof(c) : NAN;
    }
    /* the estimate is a ratio of noisy averages, wild (even negative) where the big
     * batch's squared norm comes out near zero: the median over the run's second half */
    double *h = calloc((size_t)k + 1, sizeof *h);
    RS_ASSERT(h != NULL);
    int used = 0;
    for (int i = k / 2; i < k; i++)
        if (isfinite(y[i]))
            h[used++] = y[i];
    qsort(h, (size_t)used, sizeof *h, by_value);
    m->bsimple = used ? (used % 2 ? h[used / 2] : (h[used / 2 - 1] + h[used / 2]) / 2) : NAN;
    free(h);
    m->tokens = k ? x[k - 1] : 0;
    m->trend = adv_log_slope(x, y, k / 2, k);
    free(x), free(y);
    rs_table_free(t);
    if (!(m->workers >= 2))
        m->workers = 2;
    m->step_s = secs / steps / m->workers;   /* one node's compute at its batch b */
    RS_CHECK(isfinite(m->bsimple) && m->bsimple > 0, "%s: no usable B_simple (%d logged; it needs --workers 2 "
             "or more and evaluations, and a run long enough for its averages: give more --minutes)", path, used);
    RS_CHECK(m->step_s > 0 && m->params > 0 && m->batch > 0, "%s: the run's step time, batch or parameter "
             "count is missing", dir);
    return 0;
}

static void report(const advise_opts *o, const measured *m)
{
    double gflops = o->gflops > 0 ? o->gflops : m->gflops;
    adv_in in = {.b = m->batch, .bnoise = m->bsimple, .compute_s = m->step_s * m->gflops / gflops,
                 .bytes = 4 * m->params, .alpha_s = o->latency_us * 1e-6, .beta_Bps = o->bandwidth_gbit * 1e9 / 8};
    printf("measured  B_simple %.4g sequences, the median over the second half of the run's %.3g M tokens; over that "
           "half it grows as tokens^%.2f (it rises as the loss falls, so later in training larger batches pay)\n",
           m->bsimple, m->tokens / 1e6, m->trend);
    printf("          a step at b = %.0f: %.4g s on this machine (%.3g GFLOP/s); %.0f parameters, %.3g MB of "
           "gradient a step\n", m->batch, m->step_s, m->gflops, m->params, in.bytes / 1e6);
    printf("cluster   %.0f nodes at %.3g GFLOP/s each (%s), links of %.3g us and %.3g Gbit/s, a ring allreduce\n",
           o->nodes, gflops, o->gflops > 0 ? "--node-gflops" : "this machine's", o->latency_us, o->bandwidth_gbit);
    printf("\n%8s %10s %12s %12s %12s %10s %10s%s\n", "nodes", "B", "S(B)/S(b)", "step (s)", "exchange", "speedup",
           "efficiency", o->steps_at_b > 0 ? "   to target (h)" : "");
    long worth = adv_worth(&in, (long)o->nodes, o->gain);
    for (long N = 1;; N = 2 * N > o->nodes && N < o->nodes ? (long)o->nodes : 2 * N) {
        adv_row r = adv_at(&in, N);
        printf("%8ld %10.0f %12.4g %12.4g %12.4g %10.3g %10.2f", N, r.B, r.steps_ratio, r.step_s, r.exchange_s,
               r.speedup, r.efficiency);
        if (o->steps_at_b > 0)
            printf("   %14.3g", o->steps_at_b * r.steps_ratio * r.step_s / 3600);
        printf("%s\n", N == worth && worth < (long)o->nodes ? "   <- a doubling past this gains under --gain" : "");
        if (N >= o->nodes)
            break;
    }
    if (worth == 1)
        printf("\nadvice    a second node does not cut the time to target by %.0f%%: the exchange costs what the "
               "halved steps save. ", 100 * o->gain);
    else
        printf("\nadvice    up to %ld nodes (global batch %.0f) each doubling cuts the time to target by %.0f%% or "
               "more%s. ", worth, worth * m->batch, 100 * o->gain, worth >= (long)o->nodes ? ", to the last node given" : "");
    printf("At B = B_simple (%.4g sequences) the steps are twice their floor S_min and the data twice its floor "
           "E_min: B_crit under the form, where returns start to diminish.\n", m->bsimple);
}

int cmd_advise(int argc, char **argv)
{
    advise_opts o = {.minutes = 10, .nodes = 800, .latency_us = 1, .bandwidth_gbit = 100, .gain = 0.1};
    const rs_opt opts[] = {
        {"minutes", RS_OPT_DBL_GT, &o.minutes, "M", "the short run's training time [10]", 0, 600},
        {"out", RS_OPT_STR, &o.out, "DIR", "where the short run writes [a new /tmp/rnnscale-advise-* folder]", 0, 0},
        {"from", RS_OPT_STR, &o.from, "DIR", "no run: read a short run's folder (log.csv, summary.json, stdout.txt)",
         0, 0},
        {"nodes", RS_OPT_DBL, &o.nodes, "N", "the most nodes [800]", 1, 1e6},
        {"node-gflops", RS_OPT_DBL, &o.gflops, "G", "a node's GFLOP/s on this step [this machine's, measured]", 0,
         1e9},
        {"latency-us", RS_OPT_DBL, &o.latency_us, "US", "link latency, microseconds [1]", 0, 1e7},
        {"bandwidth-gbit", RS_OPT_DBL_GT, &o.bandwidth_gbit, "GBIT", "link bandwidth, Gbit/s [100]", 0, 1e6},
        {"steps-at-b", RS_OPT_DBL, &o.steps_at_b, "S", "steps one node needs to the target, for times in hours", 0,
         1e12},
        {"gain", RS_OPT_DBL_GT, &o.gain, "X", "a doubling pays while it cuts the time by this fraction [0.1]", 0,
         0.99},
    };
    int rest = argc;
    int rc = rs_opts_parse_rest(argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), usage, NULL, NULL, &rest);
    if (rc != 0) {
        if (rc < 0)
            fprintf(stderr, "study advise: %s\n", rs_lasterr());
        return rc > 0 ? 0 : 2;
    }
    char **user = argv + rest, dir[4200];
    int nuser = argc - rest;
    if (nuser == 0)
        user = (char **)default_args, nuser = (int)(sizeof default_args / sizeof default_args[0]) - 1;
    if (nuser > MOST_ARGS) {
        fprintf(stderr, "study advise: more than %d rnn-train arguments\n", MOST_ARGS);
        return 2;
    }
    measured m;
    if (o.from) {
        snprintf(dir, sizeof dir, "%s", o.from);
    } else {
        if (o.out) {
            char held[4300];
            snprintf(dir, sizeof dir, "%s", o.out);
            snprintf(held, sizeof held, "%s/summary.json", dir);
            if (access(held, F_OK) == 0) {
                fprintf(stderr, "study advise: --out %s already holds a short run: read it with --from %s, or give "
                        "a new folder\n", dir, dir);
                return 2;
            }
            if (study_path_ok("--out", dir) != 0 || rs_mkdir_p(dir) != 0) {
                fprintf(stderr, "study advise: %s\n", rs_lasterr());
                return 2;
            }
        } else if (snprintf(dir, sizeof dir, "/tmp/rnnscale-advise-XXXXXX") < 0 || !mkdtemp(dir)) {
            fprintf(stderr, "study advise: cannot create a folder under /tmp\n");
            return 2;
        }
        int run = short_run(&o, user, nuser, dir);
        if (run != 0) {
            fprintf(stderr, "study advise: %s\n", rs_lasterr());
            return run == 2 || run >= 128 ? run : 1;
        }
    }
    if (read_run(dir, &m) != 0) {
        fprintf(stderr, "study advise: %s\n", rs_lasterr());
        return 2;
    }
    report(&o, &m);
    return 0;
}
