/* compose_plan.c — the composition study's points (compose.c lists them): compute at
 * every per-node batch, REPEATS times interleaved, the optimizers and one evaluation,
 * measured here; once the first compute point is done, the model's tensors
 * (compose_preset.txt, laid out by models/model_layout.c for the measured model and
 * checked against its gradient), NODE_GFLOPS=auto settled, and the simulated points:
 * the exchange under study simulate, the composition's check under study train-sim. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compose_study.h"
#include "fsio.h"
#include "model.h"

#define V(name) study_value(r, name)
#define C(name) compose_conv(r, name)

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The sorted distinct values of v[0..n): their count. */
static int distinct(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || v[i] != v[m - 1])
            v[m++] = v[i];
    return m;
}

static void bench_cmd(const study_run *r, const char *optimizer, study_argv *c)
{
    sa_add(c, "rnn-train");
    sa_words(c, C("MODEL"));
    sa_opt(c, "--threads", "%s", C("THREADS"));
    sa_opt(c, "--seed", "%s", C("SEED"));
    sa_opt(c, "--optimizer", "%s", optimizer);
    if (*compose_regime(r, "CORPUS")) {
        sa_opt(c, "--corpus", "%s", compose_regime(r, "CORPUS"));
        sa_opt(c, "--vocab", "%s", compose_regime(r, "VOCAB"));
    }
    sa_opt(c, "--bench", "%s", V("BENCH_STEPS"));
    sa_words(c, "--csv bench.csv");
}

/* compute at every per-node batch, the optimizers, the evaluation: measured here. */
static int plan_measured(study_run *r, long b0)
{
    char list[4096], *save;
    int steps = atoi(V("BENCH_STEPS")), nb = 0;
    long strong = atol(V("STRONG_B"));
    double batches[512];
    snprintf(list, sizeof list, "%s", C("B_LIST"));
    for (char *t = strtok_r(list, " \t", &save); t && nb < 256; t = strtok_r(NULL, " \t", &save))
        batches[nb++] = atol(t);
    snprintf(list, sizeof list, "%s", C("N_LIST"));
    for (char *t = strtok_r(list, " \t", &save); t && nb < 512; t = strtok_r(NULL, " \t", &save))
        if (atol(t) > 0 && strong % atol(t) == 0)
            batches[nb++] = (double)compose_measured_batch(strong / atol(t), atol(V("COMPUTE_MAX_B")));
    if (atol(compose_regime(r, "B")) > 0 && nb < 512)
        batches[nb++] = (double)compose_measured_batch(atol(compose_regime(r, "B")), atol(V("COMPUTE_MAX_B")));
    nb = distinct(batches, nb);
    /* interleaved, so that a change in the machine's load touches every b alike */
    for (int k = 1; k <= atoi(V("REPEATS")); k++)
        for (int i = 0; i < nb; i++) {
            long b = (long)batches[i];
            char name[64];
            snprintf(name, sizeof name, "compute-b%ld-r%d", b, k);
            study_argv c = {0};
            bench_cmd(r, "momentum", &c);
            sa_opt(&c, "--batch", "%ld", b);
            if (study_add(r, name, steps * (20 + b), "0", &c) != 0)
                return -1;
        }
    char seen[4096] = " momentum ";
    snprintf(list, sizeof list, "%s", *C("OPT_N") ? C("OPT_LIST") : "");
    for (char *o = strtok_r(list, " ", &save); o; o = strtok_r(NULL, " ", &save)) {
        char key[300], name[300];
        snprintf(key, sizeof key, " %s ", o);
        if (strstr(seen, key))
            continue;
        snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s ", o);
        snprintf(name, sizeof name, "opt-%s", o);
        study_argv c = {0};
        bench_cmd(r, o, &c);
        sa_opt(&c, "--batch", "%ld", b0);
        if (study_add(r, name, steps * (20 + b0), "0", &c) != 0)
            return -1;
    }
    long streams = atol(C("EVAL_STREAMS")), es = (streams + b0 - 1) / b0 * b0;
    study_argv c = {0};
    bench_cmd(r, "momentum", &c);
    sa_opt(&c, "--batch", "%ld", b0);
    sa_opt(&c, "--eval-streams", "%ld", es);
    sa_opt(&c, "--eval-every", "%d", steps / 2);
    return study_add(r, "eval", steps * (20 + b0) * 3, "0", &c);
}

/* 1 when some point of the points file is done. */
static int any_done(const study_run *r)
{
    char line[8192], name[256], rc[64];
    int done = 0;
    FILE *f = rs_fopen_read(r->points);
    while (f && !done && fgets(line, sizeof line, f))
        if (sscanf(line, "%255s %*s %63s", name, rc) == 2 && name[0] != '#' && strcmp(rc, "x") != 0)
            done = study_point_state(r, name) > 0;
    if (f)
        fclose(f);
    return done;
}

typedef struct {
    const rs_table *bench;
    const param_layout *lay;
} preset_ctx;

static int preset_writer(FILE *f, void *ctx)
{
    const preset_ctx *p = ctx;
    char v[6][64];
    static const char *const cols[] = {"model", "hidden", "layers", "embed", "vocab", "classes"};
    for (int i = 0; i < 6; i++)
        study_cell_at(p->bench, 0, cols[i], v[i], sizeof v[i]);
    fprintf(f, "# %s hidden %s layers %s embed %s vocab %s classes %s\n", v[0], v[1], v[2], v[3], v[4], v[5]);
    for (int i = 0; i < p->lay->n; i++)
        fprintf(f, "%-8s %ld 1\n", p->lay->t[i].name, p->lay->t[i].rows * p->lay->t[i].cols);
    fprintf(f, "bptt %s\n", study_cell_at(p->bench, 0, "bptt", v[0], sizeof v[0]));
    return ferror(f) ? -1 : 0;
}

/* compose_preset.txt: the model's tensors as rnn-train lays them out; their sum must be
 * the gradient the trainer measured (its params). */
static int write_preset(const study_run *r, const rs_table *bench, const char *params)
{
    char buf[64];
    model_cfg c = {
        .cell = strcmp(study_cell_at(bench, 0, "model", buf, sizeof buf), "lstm") == 0 ? CELL_LSTM : CELL_ELMAN,
        .layers = atoi(study_cell_at(bench, 0, "layers", buf, sizeof buf)),
        .hidden = atoi(study_cell_at(bench, 0, "hidden", buf, sizeof buf)),
        .embed = atoi(study_cell_at(bench, 0, "embed", buf, sizeof buf)),
        .vocab = atoi(study_cell_at(bench, 0, "vocab", buf, sizeof buf)),
        .classes = atoi(study_cell_at(bench, 0, "classes", buf, sizeof buf)),
    };
    param_layout lay;
    RS_CHECK(c.layers >= 1 && c.layers <= MODEL_MAX_LAYERS, "rnn-train's bench.csv has layers '%s': "
             "cannot lay out the model's tensors (rebuild rnn-train)",
             study_cell_at(bench, 0, "layers", buf, sizeof buf));
    model_layout(&c, &lay);
    RS_CHECK(lay.total == atol(params), "the tensors sum to %ld floats, rnn-train has %s: cannot lay "
             "out the model's tensors (rebuild rnn-train)", lay.total, params);
    char path[2300];
    snprintf(path, sizeof path, "%s/compose_preset.txt", r->dir);
    preset_ctx ctx = {bench, &lay};
    return rs_write_atomic(path, preset_writer, &ctx);
}

/* NODE_GFLOPS=auto: the platform node's peak x the fraction of peak measured here. */
static int settle_auto(study_run *r, const rs_table *bench, const char *b0)
{
    char frac[64], g[64], why[1024];
    study_cell_at(bench, 0, "frac_of_peak", frac, sizeof frac);
    RS_CHECK(frac[0], "NODE_GFLOPS=auto: compute-b%s-r1 measured no frac_of_peak; set NODE_GFLOPS=G", b0);
    snprintf(g, sizeof g, "%.3g", strtod(V("NODE_PEAK_GFLOPS"), NULL) * strtod(frac, NULL));
    snprintf(why, sizeof why, "auto: the platform node's peak %s GFLOP/s x %s, the fraction of peak "
             "the step reached here at b = %s", V("NODE_PEAK_GFLOPS"), frac, b0);
    printf("compose: NODE_GFLOPS = %s (%s GFLOP/s x %s)\n", g, V("NODE_PEAK_GFLOPS"), frac);
    study_set_value(r, "NODE_GFLOPS", g);
    study_set_value(r, "NODE_GFLOPS_WHY", why);
    return study_save_settings(r);
}

/* The exchange, simulated; the composition check (train-sim). */
static int plan_simulated(study_run *r, const char *b0, const char *params)
{
    char root[4096], run[4096], list[4096], nodes[4096] = "", sizes[8192] = "", *save;
    RS_CHECK(realpath(study_root(), root) && realpath(r->dir, run), "cannot resolve %s's path", r->dir);
    snprintf(list, sizeof list, "%s", C("N_LIST"));
    long largest = 0;
    for (char *t = strtok_r(list, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        if (atol(t) >= 2) {
            snprintf(nodes + strlen(nodes), sizeof nodes - strlen(nodes), "%s%s", nodes[0] ? "," : "", t);
            largest = atol(t) > largest ? atol(t) : largest;
        }
    double bytes[65];
    int n = compose_preset_bytes(r, bytes, 64);
    if (n < 0)
        return -1;
    bytes[n++] = strtod(params, NULL) * 4;
    n = distinct(bytes, n);
    for (int i = 0; i < n; i++)
        snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%.0f", i ? "," : "", bytes[i]);
    /* rdb: train-sim's `library`; ompi and mpich: what those libraries choose (SMPI's
     * selectors), every tensor too for per-tensor; the other built-ins at the fused size
     * for the best per size; hier at the default group size and at 16 */
    double fused = strtod(params, NULL) * 4;
    /* rdb: train-sim's `library`; ompi and mpich: what those libraries choose (SMPI's
     * selectors), every tensor too for per-tensor; the other built-ins at the fused size
     * for the best per size; hier at the default group size and at 16 */
    static const struct {
        const char *name, *algos;
        int every_size, weight;
    } ex[] = {{"exchange-rdb", "smpi:rdb", 1, 400},
              {"exchange-library", "smpi:ompi,smpi:mpich", 1, 800},
              {"exchange-builtin", "smpi:rab1,smpi:rab_rdb,smpi:lr,smpi:smp_rsag,smpi:mvapich2", 0, 800},
              {"exchange-hier", "hier", 0, 400},
              {"exchange-hier-g16", "hier --hier-max-group 16", 0, 400}};
    for (int i = 0; nodes[0] && i < (int)(sizeof ex / sizeof ex[0]); i++) {
        study_argv c = {0};
        sa_add(&c, "%s", study_self());
        sa_words(&c, "simulate --platform taihulight");
        sa_opt(&c, "--nodes", "%s", nodes);
        sa_add(&c, "--algo");
        sa_words(&c, ex[i].algos);
        if (ex[i].every_size)
            sa_opt(&c, "--sizes", "%s", sizes);
        else
            sa_opt(&c, "--sizes", "%.0f", fused);
        sa_words(&c, "--csv exchange.csv");
        if (study_add(r, ex[i].name, ex[i].weight, "0", &c) != 0)
            return -1;
    }
    /* the headline's exchange (fused, as Open MPI would choose it) at the largest N again,
     * on the platform with its bandwidths and its latencies off by 2x each way: the band
     * beside the efficiencies there (compose_tables.c) */
    static const char *const band[][2] = {{"bw2", "--bandwidth-factor 2"}, {"bwhalf", "--bandwidth-factor 0.5"},
                                          {"lat2", "--latency-factor 2"}, {"lathalf", "--latency-factor 0.5"}};
    for (int i = 0; nodes[0] && i < 4; i++) {
        char name[64];
        snprintf(name, sizeof name, "exchange-platform-%s", band[i][0]);
        study_argv c = {0};
        sa_add(&c, "%s", study_self());
        sa_words(&c, "simulate --platform taihulight --algo smpi:ompi");
        sa_opt(&c, "--nodes", "%ld", largest);
        sa_opt(&c, "--sizes", "%.0f", fused);
        sa_opt(&c, "--platform-args", "%s", band[i][1]);
        sa_words(&c, "--csv exchange.csv");
        if (study_add(r, name, 800, "0", &c) != 0)
            return -1;
    }
    char algos[1024], *save2;
    snprintf(list, sizeof list, "%s", V("CHECK_N"));
    for (char *N = strtok_r(list, " \t", &save); N; N = strtok_r(NULL, " \t", &save)) {
        snprintf(algos, sizeof algos, "%s", V("CHECK_ALGOS"));
        for (char *a = strtok_r(algos, " \t", &save2); a; a = strtok_r(NULL, " \t", &save2)) {
            char name[256];
            snprintf(name, sizeof name, "check-n%s-%s", N, a);
            study_argv c = {0};
            if (study_train_sim_cmd(&c) != 0)
                return -1;
            sa_words(&c, "--platform taihulight");
            sa_opt(&c, "--nodes", "%s", N);
            sa_opt(&c, "--allreduce", "%s", a);
            sa_opt(&c, "--compute", "flops:%s", V("NODE_GFLOPS"));
            sa_opt(&c, "--csv", "%s/points/%s/check.csv", run, name);
            sa_add(&c, "--");
            sa_words(&c, C("MODEL"));
            sa_opt(&c, "--batch", "%s", b0);
            sa_words(&c, "--optimizer momentum");
            if (study_add(r, name, atol(N) * 4, "0", &c) != 0)
                return -1;
        }
    }
    return 0;
}

/* The measured points first; once the first compute point is done, the model's tensors
 * and (NODE_GFLOPS=auto) the node's speed are known, and the simulated points follow. */
int compose_plan(study_run *r)
{
    char b0[64] = "", first[128];
    sscanf(C("B_LIST"), "%63s", b0);
    RS_CHECK(atol(b0) > 0, "%s/converge_settings.txt: B_LIST=\"%s\" has no per-node batch", r->dir,
             C("B_LIST"));
    if (plan_measured(r, atol(b0)) != 0)
        return -1;
    snprintf(first, sizeof first, "compute-b%s-r1", b0);
    int st = study_point_state(r, first);
    if (st == 0)
        return 0;
    if (st < 0) {
        char why[2048];
        snprintf(why, sizeof why, "%s", rs_lasterr());
        if (any_done(r))
            rs_seterr("%s", why);
        else
            rs_seterr("every point failed (their logs: %s/points/*/stderr.txt); no table, report or "
                      "figure written", r->dir);
        return 1;
    }
    rs_table *bench = study_point_csv(r, first, "bench.csv");
    if (!bench) {
        rs_seterr("the point %s wrote no bench.csv (logs: %s/points/%s/); nothing more to run", first,
                  r->dir, first);
        return 1;
    }
    char params[64], path[2300];
    study_cell_at(bench, 0, "params", params, sizeof params);
    snprintf(path, sizeof path, "%s/compose_preset.txt", r->dir);
    int rc = 0;
    if (!params[0]) {
        rs_seterr("%s/points/%s/bench.csv has no params column (rebuild rnn-train)", r->dir, first);
        rc = -1;
    } else if (access(path, F_OK) != 0)
        rc = write_preset(r, bench, params);
    if (rc == 0 && strcmp(V("NODE_GFLOPS"), "auto") == 0)
        rc = settle_auto(r, bench, b0);
    rs_table_free(bench);
    return rc != 0 ? rc : plan_simulated(r, b0, params);
}

