/* converge_study.h — the convergence study's parts: converge.c (settings, checks, the
 * plan's stages), converge_grid.c (the grid's arithmetic and points), converge_rows.c
 * (one row per point, the best flags), converge_collect.c (tables, fit), converge_report.c
 * (the report section) and converge_figures.c (the figures and the values they take). */
#ifndef CONVERGE_STUDY_H
#define CONVERGE_STUDY_H

#include <stdio.h>

#include "study_def.h"

extern const study_def converge_study;

/* What the kn3 baseline sets, as its summary.csv wrote it. */
typedef struct {
    char kn3[64];      /* valid ppl */
    char ntrain[64];   /* training tokens */
    char target[64];   /* TARGET_X x kn3, two decimals: every point's --target-ppl */
} conv_base;

/* From RUN/points/kn3/summary.csv: 0, or -1 (rs_lasterr: no baseline). */
int conv_base_read(const study_run *r, conv_base *b);

/* ---- converge_grid.c: the points ---- */
/* GEMM=plan: one point gemm-bX per batch X the grid runs (X = K b, K the workers a
 * group runs as one), which tunes --gemm auto; the grid's points name its picks. */
int conv_gemm_points(study_run *r);
/* NAME is an optimizer the grid has a learning rate for. */
int conv_optimizer_known(const char *name);
/* The base grid (momentum at every N and b; OPT_LIST and the warmup where OPT_N and
 * WARMUP_N say): 0, 1 a GEMM plan point failed (rs_lasterr), -1 a file. */
int conv_base_grid(study_run *r, const conv_base *b);

/* ---- converge_rows.c: one row per point of the grid ---- */
enum {
    CR_POINT, CR_N, CR_B, CR_GB, CR_OPT, CR_LR, CR_WU, CR_EV, CR_STEPS, CR_RES, CR_TOK, CR_SEC,
    CR_EP, CR_PPL, CR_TARGET, CR_BS, CR_STATUS, CR_BEST, CR_BEST_OPT, CR_NCOLS
};
extern const char *const conv_columns[CR_NCOLS];

typedef struct {
    char f[CR_NCOLS][512];   /* the cells as text ("" empty) */
} conv_row;

typedef struct {
    int n;
    conv_row *row;
} conv_rows;

/* The grid's rows (a refined point in place of its coarse run once it ran), with the
 * best flags: NULL (rs_lasterr) when the grid cannot be read. */
conv_rows *conv_rows_read(const study_run *r, const conv_base *b);
void conv_rows_free(conv_rows *rows);

/* ---- converge_grid.c: what the rows ask for ---- */
/* Refinement: each coarse point whose evaluation interval was over 1/11 of its steps
 * runs again as NAME-fine, with one ~1/20 of them and the steps as its cap. */
int conv_refine(study_run *r, const conv_rows *rows);
/* Widening: where an (N, b, optimizer, warmup)'s best learning rate is its grid's
 * largest or smallest, the next one out (x2 or /2) joins; *listed: how many. */
int conv_widen(study_run *r, const conv_base *b, const conv_rows *rows, int *listed);

/* ---- converge_collect.c ---- */
int conv_collect(study_run *r);

/* argv run with stdout and stderr into the file out (inherited when NULL): its exit
 * status, 127 if it could not start. */
int conv_launch(char *const argv[], const char *out);

/* ---- converge_report.c: from RUN/scaling_convergence.csv and scaling_fit.json ---- */
typedef struct {
    char b[32], s[32], e[32], c[32], ratio[32];   /* as scaling_fit.txt prints them */
} conv_fit_row;
/* The fits per b that succeeded, where the run has scaling_fit.txt: how many. */
int conv_read_fits(const char *dir, conv_fit_row *f, int most);
/* The report section (scaling_report.md), the model-size section appended where the
 * folder has one: 0, or -1 (rs_lasterr). */
int conv_report(const study_run *r, FILE *out);

/* ---- converge_figures.c ---- */
/* The gnuplot -e assignments plot/scaling_convergence*.gp and scaling_bsimple.gp take:
 * 0, or -1 (rs_lasterr: no scaling_convergence.csv in dir). */
int conv_figure_vars(const char *dir, char *buf, size_t len);
/* The three figures, where the fit was written and gnuplot is here: 0, or 1. */
int conv_draw(const study_run *r);

/* ---- small helpers (converge_rows.c) ---- */
/* FILE of RUN/points/NAME/ as text cells (NULL if absent or malformed). */
rs_table *conv_point_text(const char *dir, const char *name, const char *file);
/* The text of column COL in the last row ("" if none). */
const char *conv_last(const rs_table *t, const char *col, char *buf, size_t len);
/* The number of words of a space-separated list, each into words[] (most at most). */
int conv_words(char *list, char **words, int most);
/* The value MODEL gives FLAG ("--corpus X" or "--corpus=X"), else def: the baseline
 * and the report take the corpus and vocabulary the points train on. */
const char *conv_model_flag(const char *model, const char *flag, const char *def, char *buf, size_t len);
/* A cell of row ROW as its text ("" when unset or no such column), and whether it is 1
 * (the best flags of scaling_convergence.csv). */
const char *conv_cell(const rs_table *t, int row, const char *col);
int conv_is_one(const rs_table *t, int row, const char *col);

#endif
