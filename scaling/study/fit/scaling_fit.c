/* scaling_fit.c — build/bin/scaling-fit: the fit of steps-to-target against the global
 * batch over a convergence study's best points, one fit per per-worker batch b, into
 * scaling_fit.json; a table for people on stdout.
 *
 *   scaling-fit --rows scaling_convergence.csv --json scaling_fit.json [--claim-n 100]
 *
 * Rows used: best = 1 (or --best-col's column) and steps_to_target set, of --optimizer
 * where given (columns N, b, global_batch, steps_to_target, best; b_simple where
 * present).  A batch may have several rows (seeds): each is a point of the fit.  Per b:
 * S_min, E_min, B_crit with its bootstrap and leave-one-out intervals, R^2, every point's
 * fitted steps, residual and regime, whether the form describes the points (conv_fit.h),
 * the median b_simple, and the claim: steps(N = 1) / steps(N = claim-n), measured (the
 * seeds' range) and under the fit (its interval), with the verdict and the B_crit it
 * needs.  A best row without steps_to_target (it did not reach the target within its
 * cap) cannot be a point: it is listed as censored (JSON and table), since the fit then
 * lacks its batch, where the true curve lies above the cap.
 * Exit: 0 ok, 2 bad input (one line). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "conv_fit.h"
#include "fsio.h"
#include "json.h"
#include "opts.h"
#include "record.h"

#define MAX_POINTS 1024
#define MAX_B 64

static struct {
    const char *rows, *json, *optimizer, *best_col;
    long claim_n;
} opt = {.claim_n = 100, .best_col = "best"};

static const rs_opt options[] = {
    {"rows", RS_OPT_STR, &opt.rows, "FILE", "the study's points, CSV (required)", 0, 0},
    {"json", RS_OPT_STR, &opt.json, "FILE", "write the fits as JSON (never overwrites)", 0, 0},
    {"claim-n", RS_OPT_INT, &opt.claim_n, "N", "the claim's ratio: steps at N = 1 over N = this [100]", 2, 1e9},
    {"optimizer", RS_OPT_STR, &opt.optimizer, "NAME", "only the rows of this optimizer [all]", 0, 0},
    {"best-col", RS_OPT_STR, &opt.best_col, "NAME", "the column flagging the rows to fit [best]", 0, 0},
};

static const char usage[] =
    "usage: scaling-fit --rows scaling_convergence.csv [--json FILE] [--claim-n N]\n"
    "                   [--optimizer NAME] [--best-col NAME]\n"
    "Fits S = S_min + E_min / B over the best points of each per-worker batch b.\n"
    "Exit: 0 ok, 2 bad input.";

/* One per-worker batch's best points and fit. */
typedef struct {
    double b;
    int n;
    double N[MAX_POINTS], batch[MAX_POINTS], steps[MAX_POINTS], bsimple[MAX_POINTS];
    int ncens;             /* best rows that never reached the target: their N and batch */
    double cens_N[MAX_POINTS], cens_batch[MAX_POINTS];
    int fitted;            /* the fit succeeded (three or more batches) */
    conv_fit fit;
    conv_fit_ci ci;
    char why[200];         /* why there is no fit */
} b_group;

typedef struct {
    b_group *g;
    int ng;
} fits;

/* The column's index, or -1 (rs_lasterr) when the CSV lacks it. */
static int need_col(const rs_table *t, const char *name)
{
    int c = rs_table_col_index(t, name);
    RS_CHECK(c >= 0, "%s: no column '%s' (expected study run converge's scaling_convergence.csv)",
             opt.rows, name);
    return c;
}

static double num(const rs_table *t, int row, int col)
{
    if (col < 0 || !rs_cell_isset(t, row, col) || rs_table_col(t, col)->type != RS_DBL)
        return NAN;
    return rs_cell_dbl(t, row, col);
}

static b_group *group_of(fits *F, double b)
{
    for (int i = 0; i < F->ng; i++)
        if (F->g[i].b == b)
            return &F->g[i];
    if (F->ng == MAX_B)
        return NULL;
    b_group *g = &F->g[F->ng++];
    memset(g, 0, sizeof *g);
    g->b = b;
    return g;
}

/* The best rows with a step count, grouped by b. */
static int collect(const rs_table *t, fits *F)
{
    int cN = need_col(t, "N"), cb = need_col(t, "b"), cB = need_col(t, "global_batch");
    int cS = need_col(t, "steps_to_target"), cbest = need_col(t, opt.best_col);
    int copt = opt.optimizer ? need_col(t, "optimizer") : -1;
    if (cN < 0 || cb < 0 || cB < 0 || cS < 0 || cbest < 0 || (opt.optimizer && copt < 0))
        return -1;
    int cbs = rs_table_col_index(t, "b_simple");
    for (int r = 0; r < rs_table_nrows(t); r++) {
        if (num(t, r, cbest) != 1)
            continue;
        if (opt.optimizer && (!rs_cell_isset(t, r, copt) || rs_table_col(t, copt)->type != RS_STR ||
                              strcmp(rs_cell_str(t, r, copt), opt.optimizer) != 0))
            continue;
        double b = num(t, r, cb), B = num(t, r, cB), S = num(t, r, cS);
        if (isnan(S)) {   /* censored: no point, but named */
            b_group *g = b > 0 ? group_of(F, b) : NULL;
            if (g && g->ncens < MAX_POINTS)
                g->cens_N[g->ncens] = num(t, r, cN), g->cens_batch[g->ncens++] = B;
            continue;
        }
        RS_CHECK(b > 0 && B > 0 && S > 0, "%s: row %d: b %g, global_batch %g, steps_to_target %g "
                 "must all be numbers > 0", opt.rows, r + 2, b, B, S);
        b_group *g = group_of(F, b);
        RS_CHECK(g && g->n < MAX_POINTS, "%s: more than %d values of b or %d points", opt.rows,
                 MAX_B, MAX_POINTS);
        g->N[g->n] = num(t, r, cN);
        g->batch[g->n] = B;
        g->steps[g->n] = S;
        g->bsimple[g->n] = num(t, r, cbs);
        g->n++;
    }
    int reached = 0;
    for (int i = 0; i < F->ng; i++)
        reached += F->g[i].n;
    RS_CHECK(reached > 0, "%s: no %s point%s%s reached the target (nothing to fit)", opt.rows,
             opt.best_col, opt.optimizer ? " of " : "", opt.optimizer ? opt.optimizer : "");
    return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of the finite values (NAN if none). */
static double median(const double *v, int n)
{
    double *s = malloc((size_t)(n > 0 ? n : 1) * sizeof *s);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (isfinite(v[i]))
            s[k++] = v[i];
    qsort(s, (size_t)k, sizeof *s, cmp_dbl);
    double m = k == 0 ? NAN : k % 2 ? s[k / 2] : 0.5 * (s[k / 2 - 1] + s[k / 2]);
    free(s);
    return m;
}

/* The mean of the steps at N (its seeds), and their least and most: NAN if none. */
static double steps_at_n(const b_group *g, double N, double *lo, double *hi)
{
    double sum = 0;
    int k = 0;
    *lo = *hi = NAN;
    for (int i = 0; i < g->n; i++)
        if (g->N[i] == N) {
            sum += g->steps[i];
            *lo = k == 0 || g->steps[i] < *lo ? g->steps[i] : *lo;
            *hi = k == 0 || g->steps[i] > *hi ? g->steps[i] : *hi;
            k++;
        }
    return k ? sum / k : NAN;
}

/* The claim's ratio S(N = 1) / S(N = claim-n): measured (mean, and the range over seeds)
 * and the verdict over the hull of that range and the fit's interval. */
typedef struct {
    double s1, sn, ratio;
    conv_range measured, hull;
    const char *verdict;
} claim;

static claim claim_of(const b_group *g)
{
    claim c;
    double l1, h1, ln, hn;
    c.s1 = steps_at_n(g, 1, &l1, &h1);
    c.sn = steps_at_n(g, (double)opt.claim_n, &ln, &hn);
    c.ratio = c.s1 / c.sn;
    c.measured = (conv_range){l1 / hn, h1 / ln};
    c.hull = c.measured;
    if (g->fitted) {
        c.hull.lo = isnan(c.hull.lo) || g->ci.ratio.lo < c.hull.lo ? g->ci.ratio.lo : c.hull.lo;
        c.hull.hi = isnan(c.hull.hi) || g->ci.ratio.hi > c.hull.hi ? g->ci.ratio.hi : c.hull.hi;
    }
    c.verdict = conv_claim_verdict(c.hull, g->b, g->b * (double)opt.claim_n);
    return c;
}

static void write_group(rs_jw *w, const b_group *g)
{
    rs_jw_obj_begin(w);
    rs_jw_kdbl(w, "b", g->b);
    rs_jw_kint(w, "points", g->n);
    if (g->fitted) {
        rs_jw_kdbl(w, "s_min", g->fit.s_min);
        rs_jw_kdbl(w, "e_min", g->fit.e_min);
        rs_jw_kdbl(w, "b_crit", g->fit.b_crit);
        conv_range_write(w, "b_crit_95", g->ci.b_crit);
        conv_range_write(w, "b_crit_leave_one_out", g->ci.b_crit_loo);
        rs_jw_kdbl(w, "r2", g->fit.r2);
        rs_jw_kdbl(w, "relative_residual_rms", g->fit.rel_rms);
        rs_jw_kdbl(w, "relative_residual_max", g->fit.rel_max);
        rs_jw_key(w, "form_describes_points");
        rs_jw_bool(w, g->fit.describes);
        rs_jw_kdbl(w, "perfect_scaling_below", g->fit.b_crit / CONV_REGIME_SPAN);
        rs_jw_kdbl(w, "maximal_parallelism_above", g->fit.b_crit * CONV_REGIME_SPAN);
    } else {
        rs_jw_kstr(w, "no_fit", g->why);
    }
    rs_jw_kdbl(w, "b_simple_median", median(g->bsimple, g->n));
    claim c = claim_of(g);
    rs_jw_key(w, "claim");
    rs_jw_obj_begin(w);
    rs_jw_kint(w, "n", opt.claim_n);
    rs_jw_kdbl(w, "ideal", (double)opt.claim_n);
    rs_jw_kdbl(w, "steps_n1", c.s1);
    rs_jw_kdbl(w, "steps_n", c.sn);
    rs_jw_kdbl(w, "ratio", c.ratio);
    conv_range_write(w, "ratio_measured", c.measured);
    if (g->fitted)
        conv_range_write(w, "ratio_fit_95", g->ci.ratio);
    conv_range_write(w, "ratio_interval", c.hull);
    rs_jw_kstr(w, "verdict", c.verdict);
    rs_jw_kdbl(w, "holds_at", CONV_CLAIM_FRACTION * (double)opt.claim_n);
    rs_jw_kdbl(w, "b_crit_needed", conv_bcrit_for_ratio(g->b, g->b * (double)opt.claim_n,
                                                        CONV_CLAIM_FRACTION * (double)opt.claim_n));
    rs_jw_obj_end(w);
    rs_jw_key(w, "residuals");
    rs_jw_arr_begin(w);
    for (int i = 0; i < g->n; i++) {
        rs_jw_obj_begin(w);
        rs_jw_kdbl(w, "N", g->N[i]);
        rs_jw_kdbl(w, "global_batch", g->batch[i]);
        rs_jw_kdbl(w, "steps", g->steps[i]);
        rs_jw_kdbl(w, "b_simple", g->bsimple[i]);
        if (g->fitted) {
            double s = conv_fit_steps(&g->fit, g->batch[i]);
            rs_jw_kdbl(w, "fit", s);
            rs_jw_kdbl(w, "residual", g->steps[i] - s);
            rs_jw_kdbl(w, "relative_residual", (g->steps[i] - s) / s);
            rs_jw_kstr(w, "regime", conv_fit_regime(&g->fit, g->batch[i]));
        }
        rs_jw_obj_end(w);
    }
    rs_jw_arr_end(w);
    rs_jw_key(w, "censored");
    rs_jw_arr_begin(w);
    for (int i = 0; i < g->ncens; i++) {
        rs_jw_obj_begin(w);
        rs_jw_kdbl(w, "N", g->cens_N[i]);
        rs_jw_kdbl(w, "global_batch", g->cens_batch[i]);
        rs_jw_obj_end(w);
    }
    rs_jw_arr_end(w);
    rs_jw_obj_end(w);
}

static int write_json(FILE *f, void *ctx)
{
    const fits *F = ctx;
    rs_jw w;
    rs_jw_init(&w, f);
    rs_jw_obj_begin(&w);
    rs_jw_kstr(&w, "study", "scaling_fit");
    rs_jw_kstr(&w, "model", "S = s_min + e_min / B, B = global batch in sequences; "
               "b_crit = e_min / s_min; least squares on the relative residuals (weights 1/S^2)");
    rs_jw_kdbl(&w, "form_tolerance", CONV_FORM_TOL);
    rs_jw_kint(&w, "bootstrap_resamples", CONV_BOOTSTRAP);
    rs_jw_kstr(&w, "rows", opt.rows);
    rs_jw_kstr(&w, "fitted", opt.best_col);
    rs_jw_kstr(&w, "optimizer", opt.optimizer ? opt.optimizer : "all");
    rs_jw_key(&w, "fits");
    rs_jw_arr_begin(&w);
    for (int i = 0; i < F->ng; i++)
        write_group(&w, &F->g[i]);
    rs_jw_arr_end(&w);
    rs_jw_obj_end(&w);
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

static void print_table(const fits *F)
{
    printf("%6s %6s %10s %12s %10s %21s %8s %8s %10s %19s %s\n", "b", "points", "S_min", "E_min", "B_crit",
           "B_crit_95", "R^2", "rel_max", "ratio", "ratio_interval", "verdict");
    for (int i = 0; i < F->ng; i++) {
        const b_group *g = &F->g[i];
        claim c = claim_of(g);
        if (g->fitted)
            printf("%6g %6d %10.4g %12.4g %10.4g %10.4g-%-10.4g %8.4f %8.3f %10.4g %9.4g-%-9.4g %s%s\n", g->b, g->n,
                   g->fit.s_min, g->fit.e_min, g->fit.b_crit, g->ci.b_crit.lo, g->ci.b_crit.hi, g->fit.r2,
                   g->fit.rel_max, c.ratio, c.hull.lo, c.hull.hi, c.verdict,
                   g->fit.describes ? "" : " (the form does not describe the points)");
        else
            printf("%6g %6d  no fit: %s\n", g->b, g->n, g->why);
        for (int k = 0; k < g->ncens; k++)
            printf("%6g %6s  censored: the best point at N = %g (B = %g) did not reach the target within "
                   "its cap; left out of the fit\n", g->b, "", g->cens_N[k], g->cens_batch[k]);
    }
}

static int run(void)
{
    if (opt.json && rs_check_writable(opt.json) != 0)
        return -1;
    rs_table *t = rs_table_read_csv(opt.rows);
    if (!t)
        return -1;
    fits F = {calloc(MAX_B, sizeof(b_group)), 0};
    int rc = collect(t, &F);
    rs_table_free(t);
    int any = 0;
    for (int i = 0; rc == 0 && i < F.ng; i++) {
        b_group *g = &F.g[i];
        g->fitted = conv_fit_points(g->batch, g->steps, g->n, &g->fit) == 0;
        if (g->fitted)
            conv_fit_interval(g->batch, g->steps, g->n, &g->fit, g->b, g->b * (double)opt.claim_n, &g->ci);
        else
            snprintf(g->why, sizeof g->why, "%s", rs_lasterr());
        any |= g->fitted;
    }
    if (rc == 0 && !any) {
        rs_seterr("%s: b = %g: %s", opt.rows, F.g[0].b, F.g[0].why);
        rc = -1;
    }
    if (rc == 0) {
        print_table(&F);
        if (opt.json)
            rc = rs_write_atomic(opt.json, write_json, &F);
    }
    free(F.g);
    return rc;
}

int main(int argc, char **argv)
{
    rs_set_progname("scaling-fit");
    int rc = rs_opts_parse(argc, argv, options, RS_ARRAY_LEN(options), usage, NULL, NULL);
    if (rc == 1)
        return RS_EXIT_OK;
    if (rc == 0 && !opt.rows) {
        rs_seterr("--rows: missing (the study's scaling_convergence.csv)");
        rc = -1;
    }
    if (rc == 0) {
        rs_install_signal_handlers();
        rc = run();
    }
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", rs_progname(), rs_lasterr());
        return RS_EXIT_USAGE;
    }
    return RS_EXIT_OK;
}
