/* regime_collect.h — the Sunway regime study's results in memory, shared by its collect
 * (regime_collect.c) and its report section (regime_report.c). */
#ifndef REGIME_COLLECT_H
#define REGIME_COLLECT_H

#include "batch_stats.h"
#include "conv_fit.h"
#include "regime_study.h"

#define REGIME_MAX_SEEDS 8

typedef struct {
    const study_run *r;
    regime_targets t;
    regime_grid *g;
    long N[64];
    int nN;
    const char *opt[8];   /* OPT_LIST's, then "any" (the best of them at each N) */
    int nopt;
    char optbuf[1024];
} regime_results;

/* At (target, optimizer, N): the best seed-1 point and the steps of its seeds. */
typedef struct {
    long N, B, cap;
    const regime_point *best;   /* NULL: none ran */
    int n;
    long seed[REGIME_MAX_SEEDS];
    double steps[REGIME_MAX_SEEDS];   /* 0: not reached within the cap */
    const regime_point *pt[REGIME_MAX_SEEDS];   /* each seed's own point */
} regime_cell;

/* One target's and optimizer's fit and claim. */
typedef struct {
    int n, censored, fitted, bsimple_N;
    double batch[512], steps[512];
    conv_fit fit;
    conv_fit_ci ci;
    char why[200];
    double small, big, ratio, claim_cap, bsimple, bsimple_at;
    conv_range measured, hull;   /* the counts' model-free interval (both: the verdict's) */
    const char *verdict;
} regime_fit;

/* The cells of every N of N_LIST: how many. */
int regime_cells(const regime_results *R, int k, const char *opt, regime_cell *cells);
void regime_fit_of(const regime_results *R, int k, const char *opt, regime_fit *F);
/* The counts of every N of N_LIST over their seeds, model-free (batch_stats.h). */
void regime_counts(const regime_results *R, int k, const char *opt, bs_counts *out);
/* study advise's prediction against the counts (regime_advise.c). */
void regime_advise_table(FILE *out, const regime_results *R);
/* The tuning table (regime_tuning.c). */
void regime_tuning_table(FILE *out, const regime_results *R);
/* The report section (regime_report.c): 0, or -1. */
int regime_report(const regime_results *R, FILE *out);

#endif
