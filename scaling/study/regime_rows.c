/* regime_rows.c — what the Sunway regime study's points measured (regime_study.h): kn3's
 * baseline and the targets (regime_targets.csv: name,ppl, written once the hard target
 * is set), and each point's steps to every target, read from its evaluation log: the
 * first evaluation at or under the target (one log, every target). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"
#include "regime_study.h"

static double num(const rs_table *t, int row, const char *col)
{
    char buf[64];
    study_cell_at(t, row, col, buf, sizeof buf);
    return buf[0] ? atof(buf) : NAN;
}

int regime_targets_read(const study_run *r, regime_targets *t)
{
    memset(t, 0, sizeof *t);
    rs_table *k = study_point_csv(r, "regime-kn3", "summary.csv");
    if (k && rs_table_nrows(k) > 0) {
        t->kn3 = num(k, 0, "valid_ppl");
        t->kn3_eval = num(k, 0, "eval_ppl");
        t->ntrain = num(k, 0, "tokens");
        if (isnan(t->kn3_eval))
            t->kn3_eval = t->kn3;   /* EVAL_TOKENS past the split: all of it */
    }
    if (k)
        rs_table_free(k);
    if (!(t->kn3 > 0 && t->ntrain > 0)) {
        study_point_failed(r, "regime-kn3");   /* says why */
        return -1;
    }
    char path[2600];
    snprintf(path, sizeof path, "%s/regime_targets.csv", r->dir);
    rs_table *saved = access(path, F_OK) == 0 ? rs_table_read_csv_text(path) : NULL;
    if (saved) {
        for (int i = 0; i < rs_table_nrows(saved) && t->n < REGIME_MAX_TARGETS; i++) {
            study_cell_at(saved, i, "name", t->name[t->n], sizeof t->name[0]);
            t->ppl[t->n++] = num(saved, i, "ppl");
        }
        rs_table_free(saved);
        t->have_hard = t->n > 0 && strcmp(t->name[t->n - 1], "best") == 0;
        return 0;
    }
    double x[REGIME_MAX_TARGETS];
    char list[1024];
    snprintf(list, sizeof list, "%s", study_value(r, "TARGETS_X"));
    for (char *w = strtok(list, " "); w && t->n < REGIME_MAX_TARGETS - 1; w = strtok(NULL, " "))
        x[t->n++] = atof(w);
    for (int i = 0; i < t->n; i++)   /* easiest (largest) first */
        for (int j = i + 1; j < t->n; j++)
            if (x[j] > x[i]) {
                double s = x[i];
                x[i] = x[j], x[j] = s;
            }
    for (int i = 0; i < t->n; i++) {
        snprintf(t->name[i], sizeof t->name[i], "%gx_kn3", x[i]);
        t->ppl[i] = round(x[i] * t->kn3_eval * 100) / 100;
    }
    return 0;
}

static int write_targets(FILE *f, void *ctx)
{
    const regime_targets *t = ctx;
    fprintf(f, "name,ppl\n");
    for (int i = 0; i < t->n; i++)
        fprintf(f, "%s,%.2f\n", t->name[i], t->ppl[i]);
    return ferror(f) ? -1 : 0;
}

int regime_targets_settle(const study_run *r, regime_targets *t)
{
    if (t->have_hard)
        return 0;
    regime_grid *g = regime_grid_read(r, t);
    double best = INFINITY;
    for (int i = 0; g && i < g->n; i++)
        if (g->p[i].N == 1 && g->p[i].seed == 1 && g->p[i].ran && !g->p[i].diverged && g->p[i].min_ppl < best)
            best = g->p[i].min_ppl;
    regime_grid_free(g);
    RS_CHECK(isfinite(best), "no N = 1 point logged a perplexity: no hard target (their logs: %s/points/n1-*/)",
             r->dir);
    double hard = round(best * (1 + atof(study_value(r, "BEST_WITHIN"))) * 100) / 100;
    int k = 0;
    for (int i = 0; i < t->n; i++)
        if (t->ppl[i] > hard)   /* a kn3 multiple under the hard target is dropped */
            t->ppl[k] = t->ppl[i], memmove(t->name[k++], t->name[i], sizeof t->name[0]);
        else
            printf("regime: target %s (%.2f) is under the hard one (%.2f): dropped\n", t->name[i], t->ppl[i], hard);
    t->n = k;
    snprintf(t->name[t->n], sizeof t->name[0], "best");
    t->ppl[t->n++] = hard;
    t->have_hard = 1;
    printf("regime: the lowest valid ppl an N = 1 run reached is %.2f: hard target %.2f (%s above)\n", best, hard,
           study_value(r, "BEST_WITHIN"));
    char path[2600];
    snprintf(path, sizeof path, "%s/regime_targets.csv", r->dir);
    return rs_write_atomic(path, write_targets, t);
}

void regime_point_results(const study_run *r, const regime_targets *t, regime_point *p)
{
    char path[2600];
    int rc = -1;
    snprintf(path, sizeof path, "%s/points/%.160s/rc", r->dir, p->point);
    FILE *f = rs_fopen_read(path);
    if (f && fscanf(f, "%d", &rc) != 1)
        rc = -1;
    if (f)
        fclose(f);
    p->ran = rc == 0 || rc == 1;   /* 1: rnn-train's diverged; another code crashed: not a result */
    p->min_ppl = INFINITY;
    p->diverged = p->ran && study_point_says(r->dir, p->point, "diverg");
    /* worse than a uniform guess at some evaluation: blown up, though it came back */
    double uniform = atof(study_value(r, "VOCAB"));
    rs_table *log = p->ran ? study_point_csv(r, p->point, "log.csv") : NULL;
    int n = log ? rs_table_nrows(log) : 0;
    double bs_sum = 0;
    int bs_n = 0;
    p->gate_ratio = NAN;
    int gated = 0;   /* a gated row since the last full one */
    double last = 0, bs_last = NAN;   /* the previous row's step; the latest b_simple */
    for (int i = 0; i < n; i++) {
        double step = num(log, i, "step"), ppl = num(log, i, "valid_ppl"), bs = num(log, i, "b_simple");
        double before = last;
        last = step;
        double first = num(log, i, "first_window_ppl");   /* NaN: no gate */
        if (first == ppl)   /* gated: the first windows' score is the row's */
            gated = 1;
        else if (gated && first > 0) {
            gated = 0;
            p->gate_ratio = first / ppl > p->gate_ratio || isnan(p->gate_ratio) ? first / ppl : p->gate_ratio;
        }
        if (isfinite(bs))
            bs_sum += bs, bs_n++, bs_last = bs;
        p->steps_run = step;
        p->diverged |= ppl > uniform;
        if (!(ppl < p->min_ppl))
            continue;
        p->min_ppl = ppl;
        for (int k = 0; k < t->n; k++)
            if (p->steps[k] == 0 && ppl <= t->ppl[k]) {
                p->steps[k] = step;
                p->prev[k] = before;
                p->ppl_at[k] = ppl;
                p->bsimple_at[k] = bs_last;
                p->bsimple[k] = bs_n ? bs_sum / bs_n : NAN;   /* the mean up to the crossing */
            }
    }
    if (log)
        rs_table_free(log);
    rs_table *s = p->ran ? study_point_csv(r, p->point, "summary.csv") : NULL;
    p->seconds = s && rs_table_nrows(s) > 0 ? num(s, rs_table_nrows(s) - 1, "seconds") : NAN;
    if (s)
        rs_table_free(s);
}
