/* train_sim_opts.c — the options of `study train-sim` (study train-sim --help): read
 * as given by common/opts.c from one table (--opt VALUE or --opt=VALUE, rnn-train's
 * flags after --), then every value checked in the order study train-sim has always
 * reported them, before anything runs.  A bad value is one line (rs_lasterr); the
 * caller exits 2. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "opts.h"
#include "study_def.h"
#include "train_sim.h"

static const char usage[] =
    "usage: study train-sim [options] [-- rnn-train flags]   (a training step under SimGrid SMPI)\n"
    "rnn-train's own defaults are the LSTM-512 step (vocabulary 10k, batch 32, bptt 35), with\n"
    "--gemm blocked unless a --gemm is given (a library backend describes itself from a\n"
    "forked child once per rank: 800 forks of the simulation); the corpus must give every\n"
    "worker's streams a window (N x 32 x 36 train tokens at N nodes).";

int ts_words(const char *list, char *buf, size_t len, char **words, int most)
{
    char *save;
    int n = 0;
    snprintf(buf, len, "%s", list);
    for (char *w = strtok_r(buf, ", \t\n", &save); w && n < most; w = strtok_r(NULL, ", \t\n", &save))
        words[n++] = w;
    return n;
}

/* Digits only: its value (-1 when not, or too large). */
static long long count(const char *s)
{
    if (!*s || s[strspn(s, "0123456789")] != 0)
        return -1;
    errno = 0;
    long long v = strtoll(s, NULL, 10);
    return errno ? -1 : v;
}

static int is_count(const char *s) { return count(s) >= 1; }

/* GF of flops:GF: a number's characters and a value above 0 */
static int is_speed(const char *s)
{
    return *s && s[strspn(s, "0123456789.eE+-")] == 0 && strtod(s, NULL) > 0;
}

static int check_compute(const ts_opts *o)
{
    const char *c = o->compute;
    if (strcmp(c, "run") == 0 || strcmp(c, "sample") == 0)
        return 0;
    if (strncmp(c, "sample:", 7) == 0) {
        RS_CHECK(is_count(c + 7), "--compute %s: K is not a count >= 1 (e.g. sample:3)", c);
        return 0;
    }
    if (strncmp(c, "flops:", 6) == 0) {
        RS_CHECK(is_speed(c + 6), "--compute %s: GF is not a speed in GFLOP/s > 0 (e.g. flops:100)", c);
        return 0;
    }
    rs_seterr("--compute: unknown mode '%s' (expected flops:GF, sample:K or run)", c);
    return -1;
}

static int check(ts_opts *o)
{
    const char *p = o->platform, *f = o->fold;
    RS_CHECK(!strcmp(p, "taihulight") || !strcmp(p, "fattree") || !strcmp(p, "torus"),
             "--platform: unknown platform '%s' (expected taihulight, fattree or torus)", p);
    RS_CHECK(!strcmp(f, "auto") || !strcmp(f, "yes") || !strcmp(f, "no"), "--fold: '%s' (expected auto, yes or no)", f);
    if (check_compute(o) != 0)
        return -1;
    RS_CHECK(strcmp(o->sync, "bucketed") != 0 || strncmp(o->compute, "flops:", 6) == 0,
             "--sync bucketed needs --compute flops:GF (its overlap is the backward's charge in flops)");
    RS_CHECK(is_count(o->bench), "--bench: '%s' is not a count of steps >= 1", o->bench);
    RS_CHECK(is_count(o->hier_max), "--hier-max-group: '%s' is not a positive integer", o->hier_max);
    if (o->eval_every) {
        RS_CHECK(is_count(o->eval_every), "--eval-every: '%s' is not a count of steps >= 1", o->eval_every);
        RS_CHECK(count(o->bench) >= count(o->eval_every),
                 "--eval-every %s: more than --bench %s (use --bench %s or more)", o->eval_every, o->bench,
                 o->eval_every);
    }
    RS_CHECK(count(o->eval_ranks) >= 0, "--eval-ranks: '%s' is not a count of ranks >= 0", o->eval_ranks);
    char buf[4096], *nodes[1024];
    int n = ts_words(o->nodes, buf, sizeof buf, nodes, 1024);
    for (int i = 0; i < n; i++) {
        RS_CHECK(is_count(nodes[i]), "--nodes: '%s' is not a node count >= 1 (e.g. --nodes 16,256,800)", nodes[i]);
        RS_CHECK(count(o->eval_ranks) < count(nodes[i]),
                 "--eval-ranks %s leaves none of the %s nodes to train (use fewer)", o->eval_ranks, nodes[i]);
    }
    if (o->csv) {
        RS_CHECK(access(o->csv, F_OK) != 0, "%s exists; results are never overwritten (choose another name)", o->csv);
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", o->csv);
        char *slash = strrchr(dir, '/');
        if (slash)
            slash == dir ? (void)(dir[1] = 0) : (void)(*slash = 0);
        else
            snprintf(dir, sizeof dir, ".");
        RS_CHECK(access(dir, W_OK | X_OK) == 0, "cannot write %s (no such folder, or not writable)", o->csv);
    }
    study_program(o->train, sizeof o->train, "RS_SMPI_TRAIN", "build/bin/rnn-train-smpi");
    study_program(o->gen, sizeof o->gen, "RS_PLATFORM_GEN", "build/bin/platform-gen");
    study_program(o->foldlib, sizeof o->foldlib, "RS_SMPI_FOLDLIB", "build/lib/rs-smpi-fold.so");
    const char *e = getenv("SMPIRUN");
    snprintf(o->smpirun, sizeof o->smpirun, "%s", e && *e ? e : "smpirun");
    RS_CHECK(access(o->train, X_OK) == 0, "%s is missing: build it with 'make' (needs libsimgrid-dev: make deps)",
             o->train);
    RS_CHECK(access(o->gen, X_OK) == 0, "%s is missing: build it with 'make'", o->gen);
    RS_CHECK(access(o->foldlib, F_OK) == 0, "%s is missing: build it with 'make'", o->foldlib);
    RS_CHECK(study_runnable(o->smpirun), "%s not found (make deps installs libsimgrid-dev)", o->smpirun);
    RS_CHECK(access("/usr/bin/time", X_OK) == 0,
             "/usr/bin/time is missing (Debian package time): it measures wall time and memory");
    return 0;
}

int ts_opts_parse(ts_opts *o, int argc, char **argv)
{
    memset(o, 0, sizeof *o);
    *o = (ts_opts){.platform = "taihulight", .nodes = "16", .algos = "library", .sync = "fused",
                   .compute = "flops:100", .fold = "auto", .bench = "1", .hier_max = "32", .eval_ranks = "0"};
    /* every value as given (text: check() says what is wrong with it) */
    const rs_opt options[] = {
        {"platform", RS_OPT_STR, &o->platform, "NAME", "taihulight (default), fattree or torus "
         "(scaling/sim/platforms/README.md)", 0, 0},
        {"nodes", RS_OPT_STR, &o->nodes, "LIST", "node counts, one rank and one worker per node (default 16)", 0, 0},
        {"allreduce", RS_OPT_STR, &o->algos, "LIST", "the exchange's algorithms, rnn-train --allreduce names "
         "(default library, SMPI's rdb; hier gets equal groups of at most --hier-max-group ranks)", 0, 0},
        {"sync", RS_OPT_STR, &o->sync, "MODE", "rnn-train --sync (default fused); bucketed needs flops:GF (its "
         "buckets are summed while an actor on the rank's host charges the backward)", 0, 0},
        {"compute", RS_OPT_STR, &o->compute, "MODE", "how forward + backward costs simulated time "
         "(RS_SMPI_COMPUTE): flops:GF charges model_step_flops / GF GFLOP/s, deterministic (default flops:100); "
         "sample:K runs it K times in all, then charges the mean measured here; run runs and times every step "
         "(small P)", 0, 0},
        {"fold", RS_OPT_STR, &o->fold, "WHEN", "auto (default: above 16 nodes), yes or no: big buffers folded "
         "(shared garbage: timings only; scaling/sim/smpi_fold.c)", 0, 0},
        {"bench", RS_OPT_STR, &o->bench, "N", "timed steps per run (default 1; with sample or run, two untimed "
         "ones come first)", 0, 0},
        {"eval-every", RS_OPT_STR, &o->eval_every, "K", "an evaluation on valid every K steps (rnn-train "
         "--eval-every; --bench N/K blocks of K steps with and without): the eval_* columns", 0, 0},
        {"eval-ranks", RS_OPT_STR, &o->eval_ranks, "K", "the last K of the nodes' ranks evaluate (rnn-train "
         "--eval-ranks): the other nodes train, one worker each", 0, 0},
        {"platform-args", RS_OPT_STR, &o->platform_args, "\"ARGS\"", "more platform-gen options (e.g. "
         "\"--node-gbytes-per-s 8\"; words split at blanks)", 0, 0},
        {"hier-max-group", RS_OPT_STR, &o->hier_max, "N", "hier's groups (default 32, as study simulate)", 0, 0},
        {"csv", RS_OPT_STR, &o->csv, "FILE", "write the rows as CSV (never overwrites; default: print them)", 0, 0},
        {"keep", RS_OPT_STR, &o->keep, "DIR", "keep the work folder (platforms, logs) in DIR, a new or empty folder", 0, 0},
    };
    int rest = argc, rc = rs_opts_parse_rest(argc, argv, options, RS_ARRAY_LEN(options), usage, NULL, NULL, &rest);
    if (rc < 0) {
        /* "unknown option '--lr' (see --help; rnn-train's flags go after --)" */
        char why[1024];
        snprintf(why, sizeof why, "%s", rs_lasterr());
        size_t n = strlen(why), tail = strlen(" (see --help)");
        if (n > tail && strcmp(why + n - tail, " (see --help)") == 0)
            rs_seterr("%.*s (see --help; rnn-train's flags go after --)", (int)(n - tail), why);
        return -1;
    }
    if (rc != 0)
        return rc;
    o->train_args = argv + rest;
    o->ntrain = argc - rest;
    return check(o);
}
