/* compose_facts.c — what the composition study's points measured, read back through
 * the project's CSV reader: compute, optimizer and GFLOP/s per per-node batch over the
 * repeats (points/compute-bB-rK/bench.csv), each optimizer's time (opt-NAME), one
 * evaluation (eval), the simulated allreduces (exchange-ALGO: study simulate's CSV), the
 * simulated trainer (check-nN-ALGO: train-sim's), the tensors (compose_preset.txt) and the
 * convergence study's best point per (N, b) (scaling_convergence.csv).  Point folders
 * are read in name order; a failed attempt kept aside (NAME.attempt-K) is not a result. */
#include <dirent.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compose_study.h"
#include "fsio.h"

/* Column COL of row ROW as a number; NAN when empty or absent. */
static double num(const rs_table *t, int row, const char *col)
{
    char buf[128];
    study_cell_at(t, row, col, buf, sizeof buf);
    return buf[0] ? strtod(buf, NULL) : NAN;
}

static void *grow(void *p, int n, size_t size)
{
    p = realloc(p, (size_t)(n + 1) * size);
    RS_ASSERT(p != NULL);
    return p;
}

static void add_compute(compose_facts *f, const rs_table *t, int row, const char *point)
{
    (void)point;
    double b = num(t, row, "batch"), ms = num(t, row, "compute_ms"), opt = num(t, row, "optimizer_ms"),
           gflop = num(t, row, "gflop_per_step"), gflops = num(t, row, "gflops"),
           params = num(t, row, "params"), bptt = num(t, row, "bptt");
    if (isnan(b) || isnan(ms) || isnan(opt) || isnan(gflop) || isnan(gflops) || isnan(params) || isnan(bptt))
        return;
    int i = 0;
    while (i < f->nbatch && f->batch[i].batch != b)
        i++;
    if (i == f->nbatch) {
        f->batch = grow(f->batch, f->nbatch++, sizeof *f->batch);
        f->batch[i] = (compose_batch){.batch = b, .ms_min = ms, .ms_max = ms, .opt_min = opt,
                                      .gflops_max = gflops};
    }
    compose_batch *x = &f->batch[i];
    x->repeats++;
    if (ms <= x->ms_min)
        study_cell_at(t, row, "gemm", x->gemm, sizeof x->gemm);
    x->ms_min = ms < x->ms_min ? ms : x->ms_min;
    x->ms_max = ms > x->ms_max ? ms : x->ms_max;
    x->opt_min = opt < x->opt_min ? opt : x->opt_min;
    x->gflops_max = gflops > x->gflops_max ? gflops : x->gflops_max;
    x->gflop = gflop;
    f->params = params;
    f->bptt = bptt;
}

static void add_opt(compose_facts *f, const rs_table *t, int row, const char *point)
{
    const char *name = point + strlen("opt-");
    int i = 0;
    while (i < f->nopt && strcmp(f->opt[i].name, name) != 0)
        i++;
    if (i == f->nopt) {
        f->opt = grow(f->opt, f->nopt++, sizeof *f->opt);
        snprintf(f->opt[i].name, sizeof f->opt[i].name, "%s", name);
    }
    f->opt[i].ms = num(t, row, "optimizer_ms");
}

static void add_eval(compose_facts *f, const rs_table *t, int row, const char *point)
{
    (void)point;
    f->eval_ms = num(t, row, "eval_ms");
    f->have_eval = !isnan(f->eval_ms);
}

static void add_exchange(compose_facts *f, const rs_table *t, int row, const char *point)
{
    compose_exchange x = {.p = num(t, row, "p"), .bytes = num(t, row, "bytes"), .us = num(t, row, "p50_us")};
    study_cell_at(t, row, "algo", x.algo, sizeof x.algo);
    if (strcmp(point, "exchange-hier-g16") == 0)   /* hier's other group size, told apart */
        snprintf(x.algo, sizeof x.algo, "hier-g16");
    if (strncmp(point, "exchange-platform-", 18) == 0)   /* the platform's band: smpi:ompi@bw2 */
        snprintf(x.algo + strlen(x.algo), sizeof x.algo - strlen(x.algo), "@%.8s", point + 18);
    if (isnan(x.p) || isnan(x.bytes) || isnan(x.us))
        return;
    f->x = grow(f->x, f->nx, sizeof *f->x);
    f->x[f->nx++] = x;
}

static void add_check(compose_facts *f, const rs_table *t, int row, const char *point)
{
    (void)point;
    compose_check c = {.nodes = num(t, row, "workers"), .step_ms = num(t, row, "step_ms_median"),
                       .compute_ms = num(t, row, "compute_ms"),
                       .exchange_ms = num(t, row, "exchange_exposed_ms"),
                       .optimizer_ms = num(t, row, "optimizer_ms")};
    study_cell_at(t, row, "allreduce", c.allreduce, sizeof c.allreduce);
    study_cell_at(t, row, "compute", c.compute, sizeof c.compute);
    if (isnan(c.nodes))
        return;
    f->check = grow(f->check, f->ncheck, sizeof *f->check);
    f->check[f->ncheck++] = c;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* FILE's rows of every point folder whose name matches PATTERN, in name order. */
static void each_row(const study_run *r, const char *pattern, const char *file, compose_facts *f,
                     void (*fn)(compose_facts *, const rs_table *, int, const char *))
{
    char dir[2300];
    snprintf(dir, sizeof dir, "%s/points", r->dir);
    DIR *d = opendir(dir);
    char **names = NULL;
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        if (fnmatch(pattern, e->d_name, FNM_PERIOD) == 0 && !strstr(e->d_name, ".attempt-")) {
            names = grow(names, n, sizeof *names);
            names[n] = strdup(e->d_name);
            RS_ASSERT(names[n] != NULL);
            n++;
        }
    if (d)
        closedir(d);
    if (n > 0)
        qsort(names, (size_t)n, sizeof *names, by_name);
    for (int i = 0; i < n; i++) {
        rs_table *t = study_point_csv(r, names[i], file);
        for (int row = 0; t && row < rs_table_nrows(t); row++)
            fn(f, t, row, names[i]);
        if (t)
            rs_table_free(t);
        free(names[i]);
    }
    free(names);
}

/* The convergence study's best point per (N, b) that reached the target. */
static void read_conv(const study_run *r, compose_facts *f)
{
    char path[2300], best[32], steps[64];
    snprintf(path, sizeof path, "%s/scaling_convergence.csv", r->dir);
    FILE *exists = rs_fopen_read(path);
    if (!exists)
        return;
    fclose(exists);
    rs_table *t = rs_table_read_csv(path);
    for (int row = 0; t && row < rs_table_nrows(t); row++) {
        if (strcmp(study_cell_at(t, row, "best", best, sizeof best), "1") != 0 ||
            !*study_cell_at(t, row, "steps_to_target", steps, sizeof steps))
            continue;
        compose_conv_point c = {.nodes = num(t, row, "N"), .b = num(t, row, "b"), .steps = strtod(steps, NULL)};
        study_cell_at(t, row, "b", c.b_text, sizeof c.b_text);
        study_cell_at(t, row, "optimizer", c.optimizer, sizeof c.optimizer);
        f->conv = grow(f->conv, f->nconv, sizeof *f->conv);
        f->conv[f->nconv++] = c;
    }
    if (t)
        rs_table_free(t);
}

/* The regime study's best rate per (target, optimizer, N), seed 1, where it reached the
 * target (regime_steps.csv). */
static void read_regime(const study_run *r, compose_facts *f)
{
    char path[2300], v[4][64];
    snprintf(path, sizeof path, "%s/regime_steps.csv", r->dir);
    rs_table *t = access(path, R_OK) == 0 ? rs_table_read_csv(path) : NULL;
    for (int row = 0; t && row < rs_table_nrows(t); row++) {
        if (strcmp(study_cell_at(t, row, "seed", v[0], sizeof v[0]), "1") != 0 ||
            strcmp(study_cell_at(t, row, "reached", v[1], sizeof v[1]), "1") != 0)
            continue;
        double N = num(t, row, "N"), B = num(t, row, "global_batch");
        compose_conv_point c = {.nodes = N, .b = B / N, .steps = num(t, row, "steps")};
        snprintf(c.b_text, sizeof c.b_text, "%g", c.b);
        study_cell_at(t, row, "optimizer", c.optimizer, sizeof c.optimizer);
        study_cell_at(t, row, "target", c.target, sizeof c.target);
        study_cell_at(t, row, "best_optimizer", c.cost_opt, sizeof c.cost_opt);
        if (!c.cost_opt[0])   /* a regime_steps.csv from before the column */
            snprintf(c.cost_opt, sizeof c.cost_opt, "%s", c.optimizer);
        f->conv = grow(f->conv, f->nconv, sizeof *f->conv);
        f->conv[f->nconv++] = c;
    }
    if (t)
        rs_table_free(t);
}

int compose_facts_read(const study_run *r, compose_facts *f)
{
    memset(f, 0, sizeof *f);
    each_row(r, "compute-b*-r*", "bench.csv", f, add_compute);
    each_row(r, "opt-*", "bench.csv", f, add_opt);
    each_row(r, "eval", "bench.csv", f, add_eval);
    each_row(r, "exchange-*", "exchange.csv", f, add_exchange);
    each_row(r, "check-*", "check.csv", f, add_check);
    read_conv(r, f);
    read_regime(r, f);
    f->ntensor = compose_preset_bytes(r, f->tensor, 64);
    return f->ntensor < 0 ? -1 : 0;
}

void compose_facts_free(compose_facts *f)
{
    free(f->batch);
    free(f->opt);
    free(f->x);
    free(f->check);
    free(f->conv);
    memset(f, 0, sizeof *f);
}
