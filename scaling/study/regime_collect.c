/* regime_collect.c — the Sunway regime study's results (the driver calls it last;
 * `build/bin/study collect regime RUN` redoes them):
 *   regime_points.csv   one row per point: its settings, the steps to every target
 *   regime_steps.csv    per target, optimizer (and "any") and N: the best rate's steps,
 *                       seed 1 and the others at that rate
 *   regime_scaling.csv  per target, optimizer and N: the counts' mean and bounds over the
 *                       seeds, the data cost E(B) / E(B0) and the local exponent to the
 *                       next N, each with its interval (batch_stats.h); the figures' data
 *   regime_bsimple.csv  b_simple over training, each optimizer's best run at every N > 1
 *   regime_fit.json     per target and optimizer: S = S_min + E_min / B with its
 *                       intervals and residuals (scaling/study/fit/conv_fit.h), the claim
 *                       S(N = 1) / S(N = CLAIM_N) and its verdict, B_simple against B_crit
 *   regime_report.md    the section, also in scaling_report.md (regime_report.c)
 * Earlier files are moved to RUN/old-K/ first. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsio.h"
#include "json.h"
#include "regime_collect.h"

static void csv_num(FILE *f, double v, const char *sep)
{
    if (isfinite(v))
        fprintf(f, "%.6g%s", v, sep);
    else
        fprintf(f, "%s", sep);
}

static int write_points(FILE *f, void *ctx)
{
    const regime_results *R = ctx;
    fprintf(f, "point,N,b,global_batch,optimizer,rule,lr,warmup,schedule,clip,seed,role,steps_cap,steps_run,"
               "min_valid_ppl,seconds,status");
    for (int k = 0; k < R->t.n; k++)
        fprintf(f, ",steps_%s", R->t.name[k]);
    fprintf(f, "\n");
    for (int i = 0; i < R->g->n; i++) {
        const regime_point *p = &R->g->p[i];
        fprintf(f, "%s,%ld,%ld,%ld,%s,%s,%.4g,%ld,%s,%g,%ld,%s,%ld,", p->point, p->N, p->b, p->B, p->opt, p->rule,
                p->lr, p->warmup, p->sched, p->clip, p->seed, p->role, p->cap);
        csv_num(f, p->ran ? p->steps_run : NAN, ",");
        csv_num(f, p->min_ppl, ",");
        csv_num(f, p->seconds, ",");
        fprintf(f, "%s", !p->ran ? "not run" : p->diverged ? "diverged" : "ran");
        for (int k = 0; k < R->t.n; k++) {
            fputc(',', f);
            csv_num(f, p->steps[k] > 0 ? p->steps[k] : NAN, "");
        }
        fprintf(f, "\n");
    }
    return ferror(f) ? -1 : 0;
}

/* The cell of (target k, optimizer o, N): the best seed-1 point and its seeds. */
static void fill_cell(const regime_results *R, int k, const char *opt, long N, regime_cell *c)
{
    memset(c, 0, sizeof *c);
    c->N = N;
    c->best = regime_best(R->g, N, strcmp(opt, "any") == 0 ? NULL : opt, k);
    if (!c->best)
        return;
    c->B = c->best->B;
    c->cap = c->best->cap;
    for (int i = 0; i < R->g->n && c->n < REGIME_MAX_SEEDS; i++) {
        const regime_point *p = &R->g->p[i];
        if (p->N == N && regime_same_setting(p, c->best) && strcmp(p->opt, c->best->opt) == 0 && p->ran &&
            (p == c->best || p->seed != 1)) {
            c->seed[c->n] = p->seed;
            c->pt[c->n] = p;
            c->steps[c->n++] = p->steps[k];   /* 0: not reached within its cap */
        }
    }
}

int regime_cells(const regime_results *R, int k, const char *opt, regime_cell *cells)
{
    for (int i = 0; i < R->nN; i++)
        fill_cell(R, k, opt, R->N[i], &cells[i]);
    return R->nN;
}

static int write_steps(FILE *f, void *ctx)
{
    const regime_results *R = ctx;
    fprintf(f, "target,target_ppl,optimizer,N,global_batch,lr,rule,seed,steps,reached,steps_cap,b_simple,"
               "best_optimizer\n");
    for (int k = 0; k < R->t.n; k++)
        for (int o = 0; o < R->nopt; o++) {
            regime_cell cells[64];
            int n = regime_cells(R, k, R->opt[o], cells);
            for (int i = 0; i < n; i++)
                for (int s = 0; s < cells[i].n; s++) {
                    const regime_cell *c = &cells[i];
                    fprintf(f, "%s,%.2f,%s,%ld,%ld,%.4g,%s,%ld,", R->t.name[k], R->t.ppl[k], R->opt[o], c->N, c->B,
                            c->best->lr, c->best->rule, c->seed[s]);
                    csv_num(f, c->steps[s] > 0 ? c->steps[s] : NAN, ",");
                    fprintf(f, "%d,%ld,", c->steps[s] > 0, c->pt[s]->cap);
                    csv_num(f, c->pt[s]->bsimple[k], ",");
                    fprintf(f, "%s\n", c->best->opt);   /* "any"'s: the optimizer that did best */
                }
        }
    return ferror(f) ? -1 : 0;
}

void regime_counts(const regime_results *R, int k, const char *opt, bs_counts *out)
{
    regime_cell cells[64];
    int n = regime_cells(R, k, opt, cells);
    long b = atol(study_value(R->r, "B"));
    for (int i = 0; i < n; i++) {
        bs_counts_init(&out[i], (double)(cells[i].N * b));
        for (int s = 0; s < cells[i].n; s++)
            bs_counts_add(&out[i], cells[i].steps[s], cells[i].pt[s]->prev[k], (double)cells[i].pt[s]->cap);
    }
}

static int write_scaling(FILE *f, void *ctx)
{
    const regime_results *R = ctx;
    fprintf(f, "target,target_ppl,optimizer,N,global_batch,seeds,censored,steps,steps_lo,steps_hi,data_cost,"
               "data_cost_lo,data_cost_hi,exponent,exponent_lo,exponent_hi,bend\n");
    for (int k = 0; k < R->t.n; k++)
        for (int o = 0; o < R->nopt; o++) {
            bs_counts c[64];
            regime_counts(R, k, R->opt[o], c);
            int side;
            double bend = bs_bend(c, R->nN, &side);   /* only where it lies inside the grid */
            for (int i = 0; i < R->nN; i++) {
                if (c[i].n + c[i].censored == 0)
                    continue;
                conv_range r, e = {NAN, NAN};
                double cost = bs_data_cost(&c[i], &c[0], &r), x = NAN;
                if (i + 1 < R->nN && c[i + 1].n + c[i + 1].censored > 0)
                    x = bs_exponent(&c[i], &c[i + 1], &e);
                fprintf(f, "%s,%.2f,%s,%ld,%.0f,%d,%d,", R->t.name[k], R->t.ppl[k], R->opt[o], R->N[i], c[i].batch,
                        c[i].n, c[i].censored);
                double v[] = {c[i].mean, c[i].lo, c[i].hi, cost, r.lo, r.hi, x, e.lo, e.hi, side ? NAN : bend};
                for (int j = 0; j < 10; j++)
                    csv_num(f, v[j], j < 9 ? "," : "\n");
            }
        }
    return ferror(f) ? -1 : 0;
}

/* regime_bsimple.csv: b_simple over training in each optimizer's best run at every N > 1
 * (seed 1, fewest steps to the hard target). */
static int write_bsimple(FILE *f, void *ctx)
{
    const regime_results *R = ctx;
    int hard = R->t.have_hard ? R->t.n - 1 : -1;
    fprintf(f, "optimizer,N,global_batch,point,step,tokens,valid_ppl,b_simple\n");
    for (int o = 0; o < R->nopt; o++)
        for (int i = 0; i < R->nN && strcmp(R->opt[o], "any") != 0; i++) {
            const regime_point *p = R->N[i] > 1 ? regime_best(R->g, R->N[i], R->opt[o], hard) : NULL;
            rs_table *log = p ? study_point_csv(R->r, p->point, "log.csv") : NULL;
            for (int j = 0; log && j < rs_table_nrows(log); j++) {
                char s[64], t[64], v[64], b[64];
                study_cell_at(log, j, "step", s, sizeof s);
                study_cell_at(log, j, "tokens", t, sizeof t);
                study_cell_at(log, j, "valid_ppl", v, sizeof v);
                if (*study_cell_at(log, j, "b_simple", b, sizeof b))
                    fprintf(f, "%s,%ld,%ld,%s,%s,%s,%s,%s\n", R->opt[o], R->N[i], p->B, p->point, s, t, v, b);
            }
            if (log)
                rs_table_free(log);
        }
    return ferror(f) ? -1 : 0;
}

void regime_fit_of(const regime_results *R, int k, const char *opt, regime_fit *F)
{
    memset(F, 0, sizeof *F);
    regime_cell cells[64];
    bs_counts counts[64];
    int n = regime_cells(R, k, opt, cells), one = -1, big = -1;
    regime_counts(R, k, opt, counts);
    long b = atol(study_value(R->r, "B")), claim = atol(study_value(R->r, "CLAIM_N"));
    for (int i = 0; i < n; i++) {
        one = cells[i].N == 1 ? i : one, big = cells[i].N == claim ? i : big;
        for (int s = 0; s < cells[i].n; s++) {
            double S = cells[i].steps[s];
            if (!(S > 0)) {   /* not reached within its cap: S > cap */
                F->censored++;
                if (cells[i].N == claim && (F->claim_cap == 0 || cells[i].pt[s]->cap < F->claim_cap))
                    F->claim_cap = (double)cells[i].pt[s]->cap;
                continue;
            }
            F->batch[F->n] = (double)cells[i].B;
            F->steps[F->n++] = S;
        }
    }
    F->small = (double)b, F->big = (double)(b * claim);
    F->fitted = conv_fit_points(F->batch, F->steps, F->n, &F->fit) == 0;
    if (F->fitted)
        conv_fit_interval(F->batch, F->steps, F->n, &F->fit, F->small, F->big, &F->ci);
    else
        snprintf(F->why, sizeof F->why, "%s", rs_lasterr());
    /* the verdict rests on the counts alone: every seed's crossing within its evaluations
     * (batch_stats.h), a seed past its cap opening its side; the fit only describes */
    F->ratio = NAN;
    F->measured = (conv_range){NAN, NAN};
    if (one >= 0 && big >= 0)
        F->ratio = bs_ratio(&counts[one], &counts[big], &F->measured);
    F->hull = F->measured;
    F->verdict = conv_claim_verdict(F->hull, F->small, F->big);
    /* B_simple from the cheapest run that has it: the smallest N > 1, up to this target */
    F->bsimple = F->bsimple_at = NAN;
    for (int i = 0; i < n && isnan(F->bsimple); i++)
        if (cells[i].N > 1 && cells[i].best && cells[i].best->steps[k] > 0) {
            F->bsimple = cells[i].best->bsimple[k], F->bsimple_N = cells[i].N;
            F->bsimple_at = cells[i].best->bsimple_at[k];
        }
}

static void write_fit(rs_jw *w, const regime_results *R, int k, const char *opt)
{
    regime_fit F;
    regime_fit_of(R, k, opt, &F);
    rs_jw_obj_begin(w);
    rs_jw_kstr(w, "target", R->t.name[k]);
    rs_jw_kdbl(w, "target_ppl", R->t.ppl[k]);
    rs_jw_kstr(w, "optimizer", opt);
    rs_jw_kint(w, "points", F.n);
    rs_jw_kint(w, "not_reached", F.censored);
    if (F.fitted) {
        rs_jw_kdbl(w, "s_min", F.fit.s_min);
        rs_jw_kdbl(w, "e_min", F.fit.e_min);
        rs_jw_kdbl(w, "b_crit", F.fit.b_crit);
        conv_range_write(w, "b_crit_95", F.ci.b_crit);
        rs_jw_kstr(w, "b_crit_95_method", "percentile bootstrap of the relative residuals, n points, n - 2 "
                   "degrees of freedom");
        rs_jw_kdbl(w, "r2", F.fit.r2);
        rs_jw_kdbl(w, "relative_residual_max", F.fit.rel_max);
        rs_jw_key(w, "form_describes_points");
        rs_jw_bool(w, F.fit.describes);
        rs_jw_key(w, "residuals");
        rs_jw_arr_begin(w);
        for (int i = 0; i < F.n; i++) {
            rs_jw_obj_begin(w);
            rs_jw_kdbl(w, "global_batch", F.batch[i]);
            rs_jw_kdbl(w, "steps", F.steps[i]);
            rs_jw_kdbl(w, "relative_residual", F.steps[i] / conv_fit_steps(&F.fit, F.batch[i]) - 1);
            rs_jw_obj_end(w);
        }
        rs_jw_arr_end(w);
    } else
        rs_jw_kstr(w, "no_fit", F.why);
    rs_jw_key(w, "claim");
    rs_jw_obj_begin(w);
    rs_jw_kdbl(w, "small", F.small);
    rs_jw_kdbl(w, "big", F.big);
    rs_jw_kdbl(w, "ratio", F.ratio);
    conv_range_write(w, "ratio_measured", F.measured);
    if (F.fitted)
        conv_range_write(w, "ratio_fit_95", F.ci.ratio);
    conv_range_write(w, "ratio_interval", F.hull);
    rs_jw_kstr(w, "ratio_interval_method", "the counts alone: each seed's crossing between the evaluation before "
               "its count and its count; a seed past its cap opens its side");
    rs_jw_kstr(w, "verdict", F.verdict);
    rs_jw_kdbl(w, "b_crit_needed", conv_bcrit_for_ratio(F.small, F.big, CONV_CLAIM_FRACTION * F.big / F.small));
    rs_jw_obj_end(w);
    rs_jw_kdbl(w, "b_simple", F.bsimple);
    rs_jw_kint(w, "b_simple_from_N", F.bsimple_N);
    rs_jw_kdbl(w, "b_simple_at_crossing", F.bsimple_at);
    if (F.fitted)
        rs_jw_kdbl(w, "b_simple_over_b_crit", F.bsimple / F.fit.b_crit);
    rs_jw_obj_end(w);
}

static int write_json(FILE *f, void *ctx)
{
    const regime_results *R = ctx;
    rs_jw w;
    rs_jw_init(&w, f);
    rs_jw_obj_begin(&w);
    rs_jw_kstr(&w, "study", "regime");
    rs_jw_kdbl(&w, "kn3_valid_ppl", R->t.kn3);
    rs_jw_kdbl(&w, "kn3_eval_ppl", R->t.kn3_eval);
    rs_jw_kdbl(&w, "train_tokens", R->t.ntrain);
    rs_jw_kdbl(&w, "claim_fraction", CONV_CLAIM_FRACTION);
    rs_jw_key(&w, "fits");
    rs_jw_arr_begin(&w);
    for (int k = 0; k < R->t.n; k++)
        for (int o = 0; o < R->nopt; o++)
            write_fit(&w, R, k, R->opt[o]);
    rs_jw_arr_end(&w);
    rs_jw_obj_end(&w);
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

static int report_writer(FILE *out, void *ctx) { return regime_report(ctx, out); }

int regime_collect(study_run *r)
{
    regime_results R;
    memset(&R, 0, sizeof R);
    R.r = r;
    if (regime_targets_read(r, &R.t) != 0) {
        fprintf(stderr, "regime: %s\n", rs_lasterr());
        return 1;
    }
    R.g = regime_grid_read(r, &R.t);
    if (!R.g || R.g->n == 0) {
        fprintf(stderr, "regime: no training point in %s/regime_grid.csv: nothing to tabulate\n", r->dir);
        regime_grid_free(R.g);
        return 1;
    }
    char list[1024], *w;
    snprintf(list, sizeof list, "%s", study_value(r, "N_LIST"));
    for (w = strtok(list, " "); w && R.nN < 64; w = strtok(NULL, " "))
        R.N[R.nN++] = atol(w);
    snprintf(R.optbuf, sizeof R.optbuf, "%s any", study_value(r, "OPT_LIST"));
    for (w = strtok(R.optbuf, " "); w && R.nopt < 8; w = strtok(NULL, " "))
        R.opt[R.nopt++] = w;
    static const char *const files[] = {"regime_points.csv", "regime_steps.csv", "regime_scaling.csv",
                                        "regime_bsimple.csv", "regime_fit.json", "regime_report.md"};
    int status = 0;
    for (int i = 0; i < 6 && status == 0; i++)
        status = study_keep_aside(r, files[i]) != 0;
    static rs_writer_fn const writers[] = {write_points,  write_steps, write_scaling,
                                           write_bsimple, write_json,  report_writer};
    for (int i = 0; i < 5 && status == 0; i++) {
        char path[2600];
        snprintf(path, sizeof path, "%s/%s", r->dir, files[i]);
        status = rs_write_atomic(path, writers[i], &R) != 0;
    }
    if (status == 0)   /* the figures first: the report shows those that were drawn */
        status = regime_draw(r) != 0;
    if (status == 0) {
        char path[2600];
        snprintf(path, sizeof path, "%s/%s", r->dir, files[5]);
        status = rs_write_atomic(path, writers[5], &R) != 0;
    }
    if (status == 0)
        status = study_report_first(r, "regime", "regime_report.md") != 0;
    if (status)
        fprintf(stderr, "regime: %s\n", rs_lasterr());
    else
        printf("regime: report %s/regime_report.md\n", r->dir);
    regime_grid_free(R.g);
    return status;
}
