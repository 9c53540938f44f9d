/* compose_study.h — the composition study's parts: compose.c (settings, checks),
 * compose_plan.c (its points), compose_facts.c (what its points measured, read back),
 * compose_tables.c (the step at N nodes composed into the four tables) and
 * compose_report.c (figures and the report section).
 * T(N) = compute(b) + optimizer + exchange(N) + evaluation / eval_every. */
#ifndef COMPOSE_STUDY_H
#define COMPOSE_STUDY_H

#include "study_def.h"

extern const study_def compose_study;

/* The points (study_def's plan). */
int compose_plan(study_run *r);
/* The convergence study's setting NAME, from RUN/converge_settings.txt ("" if absent). */
const char *compose_conv(const study_run *r, const char *name);
/* The regime study's setting NAME, from RUN/regime_settings.txt ("" where it did not run
 * here): its per-node batch B is measured and tabled too, and its corpus is the data the
 * step is measured on (the two studies share the model; the corpus sets the class sizes). */
const char *compose_regime(const study_run *r, const char *name);
/* The model's tensors in RUN/compose_preset.txt, in layout order: their sizes in bytes
 * (up to `most`); the count, or -1 (rs_lasterr) when the file cannot be read. */
int compose_preset_bytes(const study_run *r, double *bytes, int most);
/* The per-node batch measured for b: b itself up to most, else its largest divisor up to
 * most (b / it groups of it run one after another, their times adding up). */
long compose_measured_batch(long b, long most);

/* ---- the facts: every point's result, as the tables need it ---- */
typedef struct {
    double batch;              /* per-node batch b */
    int repeats;
    double ms_min, ms_max;     /* compute_ms over the repeats */
    double opt_min;            /* optimizer_ms, the fastest repeat */
    double gflops_max;         /* this core's GFLOP/s, the fastest repeat */
    double gflop;              /* the step's GFLOP (the last repeat read) */
    char gemm[512];            /* the fastest repeat's GEMM plan (bench.csv's gemm) */
} compose_batch;

typedef struct {
    char name[64];
    double ms;                 /* NAN: its point wrote no optimizer_ms */
} compose_opt;

typedef struct {
    char algo[32];
    double p, bytes, us;       /* study simulate: nodes, message bytes, p50_us */
} compose_exchange;

typedef struct {
    double nodes;
    char allreduce[32], compute[64];
    double step_ms, compute_ms, exchange_ms, optimizer_ms;   /* train-sim's */
} compose_check;

typedef struct {
    double nodes, b, steps;    /* the convergence study's best point per (N, b), or the
                                  regime study's best rate per (target, optimizer, N) */
    char b_text[32], optimizer[32];
    char target[32];           /* the regime study's target ("": the convergence study's) */
    char cost_opt[32];         /* the optimizer whose update the step pays: optimizer, or for
                                  the regime's "any" the one that did best there */
} compose_conv_point;

typedef struct {
    compose_batch *batch;
    int nbatch;
    compose_opt *opt;
    int nopt;
    int have_eval;
    double eval_ms;
    double tensor[64];         /* bytes, compose_preset.txt's order */
    int ntensor;
    compose_exchange *x;
    int nx;
    compose_check *check;
    int ncheck;
    compose_conv_point *conv;
    int nconv;
    double params, bptt;       /* of the last compute point read (0: none) */
} compose_facts;

int compose_facts_read(const study_run *r, compose_facts *f);   /* 0, or -1 (rs_lasterr) */
/* The regime study's time to target per target and optimizer against N (compose_regime.c). */
void compose_regime_table(FILE *f, const rs_table *t, const char *gflops);
void compose_facts_free(compose_facts *f);

/* scaling_weak.csv, scaling_strong.csv, scaling_time_to_target.csv and
 * scaling_compose_check.csv (earlier ones moved to old-K/): 0, 1 a file failed, -1 bad
 * input (rs_lasterr). */
int compose_tables(const study_run *r);
/* The figures and the section "Weak and strong scaling, time to target" from the
 * tables: 0, or 1 (a figure or the section failed). */
int compose_report(const study_run *r);

#endif
