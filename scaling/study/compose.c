/* compose.c — the composition study: weak and strong scaling and time to target on a
 * convergence study's run folder (`make scaling` runs it after study run converge;
 * study run compose RUN alone, to resume or redo it).  The step at N nodes is composed:
 *   T(N) = compute(b) + optimizer + exchange(N) + evaluation / eval_every
 * compute and the optimizer measured on this machine's core (rnn-train --bench, one
 * thread, the study's MODEL, the fastest of REPEATS interleaved repeats) or charged to a
 * node of stated speed (NODE_GFLOPS); the exchange simulated under SMPI on the TaihuLight
 * model (study simulate) for the model's own gradient and tensors.  Points:
 *   compute-bB-rK   rnn-train --bench at per-node batch B (the study's b and STRONG_B / N,
 *                   or the largest divisor of it up to COMPUTE_MAX_B, whose time adds up),
 *                   REPEATS times, interleaved (repeat K of every B, then K + 1)
 *   opt-NAME        the optimizer's time of each optimizer the study ran
 *   eval            one evaluation of the validation split (EVAL_STREAMS streams)
 *   exchange-rdb    the gradient and each tensor under SMPI's rdb (train-sim's library)
 *   exchange-hier   the gradient under hier
 *   exchange-platform-V  the gradient as Open MPI would choose it at the largest N, on the
 *                   platform with bandwidths (bw2, bwhalf) or latencies (lat2, lathalf)
 *                   off by 2x: the efficiencies' band
 *   check-nN-ALGO   study train-sim at CHECK_N (flops mode at NODE_GFLOPS)
 * The plan: compose_plan.c; the tables: compose_tables.c (from compose_facts.c);
 * figures and report section: compose_report.c. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compose_study.h"
#include "fsio.h"
#include "proc.h"
#include "smpi_launch.h"

#define DEFAULT_WHY                                                                          \
    "the default: an SW26010, the platform's node, 3060 GFLOP/s peak, at 3.3%, the fraction " \
    "of peak the trainer's step reached on this core at b = 4 (2.4% and 3.9% measured under load)"

/* NODE_GFLOPS_WHY, NODE_PEAK_GFLOPS and GAMMA_GBYTES_PER_S are derived (prepare), the
 * others checked in check(): their messages say what each must be. */
static const study_setting settings[] = {
    {"STRONG_B", "8000", NULL, SET_TEXT, NULL},
    /* a per-node batch larger than this is measured as groups of a divisor at most this
     * (rnn-train --workers runs the groups one after another: the time adds up) */
    {"COMPUTE_MAX_B", "800", NULL, SET_TEXT, NULL},
    {"NODE_GFLOPS", "100", NULL, SET_TEXT, NULL},
    {"NODE_GFLOPS_WHY", "", NULL, SET_TEXT, NULL},
    {"NODE_PEAK_GFLOPS", "", NULL, SET_TEXT, NULL},
    {"EVAL_EVERY", "50", NULL, SET_TEXT, NULL},
    {"EVAL_ASYNC", "0", NULL, SET_TEXT, NULL},
    {"BENCH_STEPS", "20", "10", SET_TEXT, NULL},
    {"REPEATS", "3", "2", SET_TEXT, NULL},
    {"CHECK_N", "16 100 800", "4 16 64", SET_TEXT, NULL},
    {"CHECK_ALGOS", "library hier", NULL, SET_TEXT, NULL},
    {"GAMMA_GBYTES_PER_S", "", NULL, SET_TEXT, NULL},
};

#define V(name) study_value(r, name)

/* A setting saved in RUN/<study>_settings.txt, read once ("" if absent). */
static const char *saved(const study_run *r, const char *study, const char *name)
{
    static struct {
        char key[64];
        char *value;
    } seen[48];
    static int nseen;
    char key[64];
    snprintf(key, sizeof key, "%s %s", study, name);
    for (int i = 0; i < nseen; i++)
        if (strcmp(seen[i].key, key) == 0)
            return seen[i].value ? seen[i].value : "";
    char file[2300];
    snprintf(file, sizeof file, "%s/%s_settings.txt", r->dir, study);
    char *v = study_saved_value(file, name);
    if (nseen < 48) {
        snprintf(seen[nseen].key, sizeof seen[nseen].key, "%s", key);
        seen[nseen++].value = v;
    }
    return v ? v : "";
}

const char *compose_conv(const study_run *r, const char *name)
{
    return saved(r, "converge", name);
}

const char *compose_regime(const study_run *r, const char *name)
{
    return saved(r, "regime", name);
}

long compose_measured_batch(long b, long most)
{
    long g = b < most ? b : most;
    while (g > 1 && b % g != 0)
        g--;
    return g;
}

int compose_preset_bytes(const study_run *r, double *bytes, int most)
{
    char path[2300], line[1024];
    snprintf(path, sizeof path, "%s/compose_preset.txt", r->dir);
    FILE *f = rs_fopen_read(path);
    RS_CHECK(f, "%s missing: run study run compose %s", path, r->dir);
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "#\n")] = 0;   /* NAME FLOATS 1; the header and bptt lines aside */
        char a[256], b[256], c[256];
        if (sscanf(line, "%255s %255s %255s", a, b, c) == 3 && n < most)
            bytes[n++] = strtod(b, NULL) * 4;
    }
    fclose(f);
    return n;
}

static int have_programs(void)
{
    char rnn[4200], gen[4200];
    snprintf(rnn, sizeof rnn, "%s/build/bin/rnn-train", study_root());
    snprintf(gen, sizeof gen, "%s/build/bin/platform-gen", study_root());
    RS_CHECK(access(rnn, X_OK) == 0 && access(gen, X_OK) == 0, "build/bin/rnn-train or platform-gen missing: run make");
    return 0;
}

/* The TaihuLight platform's node peak and reduction rate, as platform-gen states them. */
static int platform(char *peak, char *gamma, size_t len)
{
    char gen[4200], out[8192];
    snprintf(gen, sizeof gen, "%s/build/bin/platform-gen", study_root());
    char *argv[] = {gen, "--platform", "taihulight", "--describe", NULL};
    int prc = proc_capture(argv, 0, out, sizeof out);
    RS_CHECK(prc >= 0, "cannot run build/bin/platform-gen: run make");
    char key[128], val[128], *save = NULL;
    peak[0] = gamma[0] = 0;
    for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        if (sscanf(line, "%127s %127s", key, val) == 2) {
            if (strcmp(key, "host_gflops") == 0)
                snprintf(peak, len, "%s", val);
            if (strcmp(key, "reduce_gbytes_per_s") == 0)
                snprintf(gamma, len, "%s", val);
        }
    RS_CHECK(prc == 0 && peak[0] && gamma[0],
             "build/bin/platform-gen --describe gave no host_gflops or reduce_gbytes_per_s: run make");
    return 0;
}

/* A new folder: the derived settings.  A resumed one: NODE_GFLOPS=auto, which the plan
 * replaced in the folder by the speed it measured, is the same setting. */
static int prepare(study_run *r, int saved)
{
    const char *g = getenv("NODE_GFLOPS");
    if (saved) {
        char file[2300];
        snprintf(file, sizeof file, "%s/compose_settings.txt", r->dir);
        char *why = study_saved_value(file, "NODE_GFLOPS_WHY");
        if (g && strcmp(g, "auto") == 0 && why && strncmp(why, "auto:", 5) == 0)
            unsetenv("NODE_GFLOPS");
        free(why);
        return 0;
    }
    char peak[128], gamma[128];
    if (have_programs() != 0 || platform(peak, gamma, sizeof peak) != 0)
        return -1;
    setenv("NODE_GFLOPS_WHY", g && *g ? "set by NODE_GFLOPS" : DEFAULT_WHY, 1);
    setenv("NODE_PEAK_GFLOPS", peak, 1);
    setenv("GAMMA_GBYTES_PER_S", gamma, 1);
    return 0;
}

static int is_pos_int(const char *s) { return *s && s[strspn(s, "0123456789")] == 0 && atol(s) > 0; }

static int check(study_run *r)
{
    char file[2300];
    snprintf(file, sizeof file, "%s/compose_settings.txt", r->dir);
    /* CHECK_N="" asks for no train-sim check, where the driver would take the default */
    if (access(file, F_OK) != 0 && getenv("CHECK_N") && !*getenv("CHECK_N"))
        study_set_value(r, "CHECK_N", "");
    snprintf(file, sizeof file, "%s/converge_settings.txt", r->dir);
    const char *only = getenv("STUDY_CHECK");
    RS_CHECK((only && *only) || access(file, R_OK) == 0,
             "%s missing: run study run converge on %s first", file, r->dir);
    if (have_programs() != 0 || smpi_run_ok(r->dir) != 0)   /* its exchange points run smpirun */
        return -1;
    static const char *const ints[] = {"STRONG_B", "COMPUTE_MAX_B", "EVAL_EVERY", "BENCH_STEPS", "REPEATS"};
    for (int i = 0; i < 5; i++)
        RS_CHECK(is_pos_int(V(ints[i])), "%s=%s: expected a positive integer", ints[i], V(ints[i]));
    char list[1024], *save;
    snprintf(list, sizeof list, "%s", V("CHECK_N"));
    for (char *t = strtok_r(list, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        RS_CHECK(is_pos_int(t), "CHECK_N=%s: '%s' is not a positive integer", V("CHECK_N"), t);
    const char *g = V("NODE_GFLOPS");
    char *end;
    double gf = strtod(g, &end);
    RS_CHECK(strcmp(g, "auto") == 0 || (*g && !*end && isfinite(gf) && gf > 0 && gf <= 1e9),
             "NODE_GFLOPS=%s: expected auto or a speed in GFLOP/s, > 0 and at most 1e9", g);
    snprintf(list, sizeof list, "%s", V("CHECK_ALGOS"));
    for (char *t = strtok_r(list, " \t", &save); t; t = strtok_r(NULL, " \t", &save))
        RS_CHECK(strcmp(t, "library") == 0 || strcmp(t, "hier") == 0,
                 "CHECK_ALGOS=%s: '%s' is not library or hier", V("CHECK_ALGOS"), t);
    RS_CHECK(strcmp(V("EVAL_ASYNC"), "0") == 0 || strcmp(V("EVAL_ASYNC"), "1") == 0,
             "EVAL_ASYNC=%s: expected 0 (evaluation exposed) or 1 (not)", V("EVAL_ASYNC"));
    return 0;
}

static int collect(study_run *r)
{
    int rc = compose_tables(r);
    return rc != 0 ? rc : compose_report(r);
}

/* a folder made before COMPUTE_MAX_B measured every per-node batch whole */
static const char *const absent[] = {"COMPUTE_MAX_B=1000000000", NULL};

const study_def compose_study = {
    .name = "compose",
    .settings = settings,
    .nsettings = (int)(sizeof settings / sizeof settings[0]),
    .absent = absent,
    .jobs = 1,
    .prepare = prepare,
    .check = check,
    .plan = compose_plan,
    .collect = collect,
};
