/* regime_study.h — the Sunway regime study's parts: regime.c (settings, checks, the
 * plan's stages), regime_grid.c (the learning-rate rules and the points), regime_rows.c
 * (each point's steps to every target, read from its log; the best per batch),
 * regime_collect.c (the tables, fits and verdict) and regime_report.c (the section). */
#ifndef REGIME_STUDY_H
#define REGIME_STUDY_H

#include <stdio.h>

#include "study_def.h"

extern const study_def regime_study;

#define REGIME_MAX_TARGETS 12
#define REGIME_GROWTH 0.05   /* --eval-growth: every step count read to within 5% */

/* The targets, easiest first; the last is the hard one ("best"), set from the N = 1
 * runs once they ran (regime_targets.csv keeps them, so a resumed study keeps them). */
typedef struct {
    double kn3, kn3_eval, ntrain;   /* kn3's valid ppl on all / on the evaluated prefix */
    int n;                          /* targets known (the hard one included once set) */
    int have_hard;
    char name[REGIME_MAX_TARGETS][32];
    double ppl[REGIME_MAX_TARGETS];
} regime_targets;

/* One point of the grid and what it measured.  Its setting: the rate, the warmup, the
 * schedule (const, or cosine to the point's cap) and the gradient clip (0: none); a
 * grid point (roles grid, widenK) has the study's default for its N and optimizer, a
 * tuning point (tune) differs in one of the last three, and a seed or long-cap run
 * (seed, long) repeats a setting. */
typedef struct {
    char point[160], opt[16], rule[16], role[16], sched[16];
    long N, b, B, warmup, seed, eval_every, cap;
    double lr, clip;
    /* results: ran (an rc file), steps to each target (0: not reached), the lowest
     * valid ppl logged, steps run, b_simple averaged up to each target */
    /* ran: its rc is 0 or 1 (diverged); a crashed run did not.  diverged: NaN, or a
     * valid ppl above the vocabulary size (worse than a uniform guess) at some evaluation */
    int ran, diverged;
    double steps[REGIME_MAX_TARGETS], bsimple[REGIME_MAX_TARGETS];
    double prev[REGIME_MAX_TARGETS];     /* the evaluation before the crossing (0: none) */
    double bsimple_at[REGIME_MAX_TARGETS];   /* b_simple logged at (or last before) it */
    double ppl_at[REGIME_MAX_TARGETS];   /* the valid ppl of the crossing row (ties) */
    double min_ppl, steps_run, seconds;
    /* --eval-gate's check: first-window / full ppl at each full evaluation that follows
     * gated ones, the largest (NaN: none).  A gated row's first windows are above the
     * gate, EVAL_GATE x the easiest target; its full ppl is above that target while this
     * ratio, which grows as training uses more context, stays under EVAL_GATE. */
    double gate_ratio;
} regime_point;

typedef struct {
    int n;
    regime_point *p;
} regime_grid;

/* Widening rounds at most: EXTEND's, then the ones that only go down (regime.c). */
#define REGIME_MAX_WIDEN 9

/* ---- regime_grid.c ---- */
/* The optimizers the study knows and their centre learning rate at b = 80 sequences. */
int regime_optimizer_known(const char *name);
/* The points file's rows: regime_grid.csv read and each point's results (NULL, rs_lasterr). */
regime_grid *regime_grid_read(const study_run *r, const regime_targets *t);
void regime_grid_free(regime_grid *g);
/* The best point (seed 1, not diverged) at (N, opt; NULL: any): fewest steps to target
 * (-1: none, the lowest valid ppl), ties to the lower ppl at the crossing; NULL if none. */
const regime_point *regime_best(const regime_grid *g, long N, const char *opt, int target);
/* The same among the grid's points (roles grid and widenK): the rate the grid chose. */
const regime_point *regime_best_rate(const regime_grid *g, long N, const char *opt, int target);
/* a and b train with the same setting (rate, warmup, schedule, clip). */
int regime_same_setting(const regime_point *a, const regime_point *b);
/* Adds the kn3 point, the GEMM plan points, and each stage's training points. */
int regime_add_kn3(study_run *r);
int regime_add_gemm(study_run *r);
/* stage: "grid" (N = 1: the centre x LR_FACTORS, to REF_EPOCHS, no target; N > 1: the
 * centres), "others" (N > 1: the rest of each grid, capped at the centre's steps to the
 * hard target), "widen" (the next rate out where the best is at an edge), "tune" (at
 * TUNE_N: the best rate with a cosine schedule, with TUNE_WARMUP of its cap as warmup, and
 * with the other clip), "seeds" (SEEDS at SEED_N and, at every N, for the optimizer
 * that did best there; at N >= LONG_N to the hard target or LONG_EPOCHS).
 * n1: the N = 1 phase or the N > 1 one. */
int regime_add_stage(study_run *r, const regime_targets *t, const char *stage, int n1);
/* The widening rounds the grid holds for the N = 1 phase or the N > 1 one (roles
 * widenK; "widen", from before rounds were counted, is round 1). */
int regime_widen_rounds(const study_run *r, const regime_targets *t, int n1);

/* ---- regime_rows.c ---- */
/* kn3's baseline and the saved targets: 0, or -1 (rs_lasterr). */
int regime_targets_read(const study_run *r, regime_targets *t);
/* The hard target from the N = 1 points, written once to regime_targets.csv. */
int regime_targets_settle(const study_run *r, regime_targets *t);
/* The point's results from RUN/points/NAME/ (log.csv, summary.csv, rc). */
void regime_point_results(const study_run *r, const regime_targets *t, regime_point *p);

/* ---- regime_collect.c ---- */
int regime_collect(study_run *r);

/* ---- regime_figures.c ---- */
/* plot/regime_*.gp's values from DIR/regime_scaling.csv, regime_bsimple.csv (figures.h). */
int regime_figure_vars(const char *dir, const char *name, char *buf, size_t len);
/* RUN/figures/regime_*.png, where gnuplot is installed: 0, or 1 one failed. */
int regime_draw(const study_run *r);

#endif
