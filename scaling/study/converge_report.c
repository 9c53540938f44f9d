/* converge_report.c — the convergence study's report section (scaling_report.md), from
 * RUN/scaling_convergence.csv (the cells as written) and RUN/scaling_fit.json: the best point per (b, N) with the fit's regime, the
 * (N, b) that missed the target, the optimizers side by side, the learning rate's
 * scaling rule, the Sunway TaihuLight study's claim and the fit.  The fit's numbers are
 * used as scaling_fit.txt shows them (4 significant digits), so table and text agree. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "converge_study.h"
#include "json.h"
#include "fsio.h"

#define MOST 4096

/* A line of a table and the numbers it sorts by (then the line itself, bytewise). */
typedef struct {
    double k[3];
    char line[1024];
} sorted_line;

static int by_keys(const void *a, const void *b)
{
    const sorted_line *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x->k[i] != y->k[i])
            return x->k[i] < y->k[i] ? -1 : 1;
    return strcmp(x->line, y->line);
}

int conv_read_fits(const char *dir, conv_fit_row *f, int most)
{
    char path[2600];
    snprintf(path, sizeof path, "%s/scaling_fit.txt", dir);
    if (access(path, F_OK) != 0)
        return 0;
    snprintf(path, sizeof path, "%s/scaling_fit.json", dir);
    rs_json *j = access(path, F_OK) == 0 ? rs_json_load(path) : NULL;
    const rs_json *fits = j ? rs_json_get(j, "fits") : NULL;
    int n = 0;
    for (int i = 0; fits && fits->type == RS_JARR && i < fits->n && n < most; i++) {
        const rs_json *g = fits->items[i], *s = rs_json_get(g, "s_min"), *ratio = rs_json_path(g, "claim.ratio");
        const rs_json *b = rs_json_get(g, "b"), *e = rs_json_get(g, "e_min"), *c = rs_json_get(g, "b_crit");
        if (!s || !b || b->type != RS_JNUM || s->type != RS_JNUM || !e || e->type != RS_JNUM)
            continue;
        snprintf(f[n].b, sizeof f[n].b, "%g", b->num);
        snprintf(f[n].s, sizeof f[n].s, "%.4g", s->num);
        snprintf(f[n].e, sizeof f[n].e, "%.4g", e->num);
        snprintf(f[n].c, sizeof f[n].c, c && c->type == RS_JNUM ? "%.4g" : "inf", c ? c->num : 0);
        snprintf(f[n].ratio, sizeof f[n].ratio, ratio && ratio->type == RS_JNUM ? "%.4g" : "nan",
                 ratio ? ratio->num : 0);
        n++;
    }
    rs_json_free(j);
    return n;
}

static const conv_fit_row *fit_of(const conv_fit_row *f, int n, const char *b)
{
    for (int i = 0; i < n; i++)
        if (atof(f[i].b) == atof(b))
            return &f[i];
    return NULL;
}

/* A number as awk prints it: whole ones as integers, others in 6 digits. */
static void awk_num(double x, char *buf, size_t len)
{
    snprintf(buf, len, x == floor(x) && fabs(x) < 1e15 ? "%.0f" : "%.6g", x);
}

static void print_sorted(FILE *out, sorted_line *l, int n)
{
    qsort(l, (size_t)n, sizeof *l, by_keys);
    for (int i = 0; i < n; i++)
        fprintf(out, "%s\n", l[i].line);
}

/* The best point per (b, N), with the fit's steps and regime. */
static void best_table(FILE *out, const rs_table *t, const conv_fit_row *f, int nf, sorted_line *l)
{
    int n = 0;
    fprintf(out, "| b | N | global batch | optimizer | lr | warmup | steps to target | tokens | epochs | fit | regime |\n"
                 "| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (int i = 0; i < rs_table_nrows(t) && n < MOST; i++) {
        if (!conv_is_one(t, i, "best"))
            continue;
        const char *b = conv_cell(t, i, "b");
        const conv_fit_row *fr = fit_of(f, nf, b);
        double B = atof(conv_cell(t, i, "global_batch"));
        char fit[64] = "", Bt[64];
        const char *regime = "";
        if (fr) {
            double C = atof(fr->c);
            snprintf(fit, sizeof fit, "%.0f", atof(fr->s) + atof(fr->e) / B);
            regime = B <= C / 10 ? "perfect" : B >= C * 10 ? "maximal" : "diminishing";
        }
        awk_num(B, Bt, sizeof Bt);
        l[n] = (sorted_line){{atof(b), atof(conv_cell(t, i, "N")), 0}, ""};
        snprintf(l[n++].line, sizeof l->line, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", b,
                 conv_cell(t, i, "N"), Bt, conv_cell(t, i, "optimizer"), conv_cell(t, i, "lr"), conv_cell(t, i, "warmup"),
                 conv_cell(t, i, "steps_to_target"), conv_cell(t, i, "tokens"), conv_cell(t, i, "epochs"), fit, regime);
    }
    print_sorted(out, l, n);
}

/* Rows i and j are of the same (b, N). */
static int same_bn(const rs_table *t, int i, int j)
{
    return strcmp(conv_cell(t, i, "b"), conv_cell(t, j, "b")) == 0 && strcmp(conv_cell(t, i, "N"), conv_cell(t, j, "N")) == 0;
}

/* Each (b, N) without a best point, then the count of points by outcome. */
static void misses(FILE *out, const rs_table *t, sorted_line *l)
{
    int n = 0, nr = rs_table_nrows(t), reached = 0, div = 0, inf = 0, other = 0;
    for (int i = 0; i < nr && n < MOST; i++) {
        int first = 1, got = 0, tried = 0;
        const char *why = "";
        for (int j = 0; j < nr && first; j++)
            first = j >= i || !same_bn(t, i, j);
        for (int j = i; j < nr && first; j++) {
            if (!same_bn(t, i, j))
                continue;
            if (conv_is_one(t, j, "best"))
                got = 1;
            else if (strcmp(conv_cell(t, j, "status"), "reached") != 0) {
                tried++;
                why = conv_cell(t, j, "status");
            }
        }
        if (!first || got)
            continue;
        l[n] = (sorted_line){{atof(conv_cell(t, i, "b")), atof(conv_cell(t, i, "N")), 0}, ""};
        snprintf(l[n++].line, sizeof l->line, "- b = %s, N = %s: no point reached the target (%d tried; last: %s)",
                 conv_cell(t, i, "b"), conv_cell(t, i, "N"), tried, why);
    }
    print_sorted(out, l, n);
    for (int i = 0; i < nr; i++) {
        const char *st = conv_cell(t, i, "status");
        reached += strcmp(st, "reached") == 0;
        div += strcmp(st, "diverged") == 0;
        inf += strncmp(st, "infeasible", 10) == 0;
    }
    other = nr - reached - div - inf;
    fprintf(out, "\nPoints: %d; %d reached the target, %d diverged, %d infeasible, %d other (not reached within "
            "the cap, failed).\n", nr, reached, div, inf, other);
}

/* Where more than one optimizer ran at a (b, N): each one's best point. */
static int optimizers(const rs_table *t, sorted_line *l)
{
    int n = 0, nr = rs_table_nrows(t);
    for (int i = 0; i < nr && n < MOST; i++) {
        if (!conv_is_one(t, i, "best_of_optimizer"))
            continue;
        int other = 0;
        for (int j = 0; j < nr && !other; j++)
            other = same_bn(t, i, j) && strcmp(conv_cell(t, i, "optimizer"), conv_cell(t, j, "optimizer")) != 0;
        if (!other)
            continue;
        l[n] = (sorted_line){{atof(conv_cell(t, i, "b")), atof(conv_cell(t, i, "N")), atof(conv_cell(t, i, "steps_to_target"))}, ""};
        snprintf(l[n++].line, sizeof l->line, "| %s | %s | %s | %s | %s | %s | %s |", conv_cell(t, i, "b"),
                 conv_cell(t, i, "N"), conv_cell(t, i, "global_batch"), conv_cell(t, i, "optimizer"), conv_cell(t, i, "lr"),
                 conv_cell(t, i, "warmup"), conv_cell(t, i, "steps_to_target"));
    }
    return n;
}

/* Per b, the least-squares slope of log lr against log B over the best momentum point
 * per B (0.5: the square-root rule, 1: the linear rule); b and B ascending. */
static void lr_rule(FILE *out, const rs_table *t, sorted_line *l)
{
    int n = 0, nr = rs_table_nrows(t);
    for (int i = 0; i < nr && n < MOST; i++) {   /* one line per (b, B): the fewest steps */
        if (strcmp(conv_cell(t, i, "optimizer"), "momentum") != 0 || !*conv_cell(t, i, "steps_to_target"))
            continue;
        int k = 0;
        while (k < n && !(atof(conv_cell(t, i, "b")) == l[k].k[0] && strcmp(conv_cell(t, i, "b"), l[k].line) == 0 &&
                          strcmp(conv_cell(t, i, "global_batch"), l[k].line + 32) == 0))
            k++;
        double s = atof(conv_cell(t, i, "steps_to_target"));
        if (k < n && s >= l[k].k[2])
            continue;
        if (k == n) {
            l[n++] = (sorted_line){{atof(conv_cell(t, i, "b")), atof(conv_cell(t, i, "global_batch")), 0}, ""};
            snprintf(l[k].line, 32, "%s", conv_cell(t, i, "b"));
            snprintf(l[k].line + 32, 32, "%s", conv_cell(t, i, "global_batch"));
        }
        l[k].k[2] = s;
        snprintf(l[k].line + 64, 64, "%s", conv_cell(t, i, "lr"));
    }
    for (int i = 0; i < n; i++)   /* sort by b, then B: the steps key is not needed */
        l[i].k[2] = 0;
    qsort(l, (size_t)n, sizeof *l, by_keys);
    for (int i = 0; i < n;) {
        int j = i;
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        char pts[4096] = "";
        for (; j < n && strcmp(l[j].line, l[i].line) == 0; j++) {
            double X = log(l[j].k[1]), Y = log(atof(l[j].line + 64));
            sx += X, sy += Y, sxx += X * X, sxy += X * Y;
            snprintf(pts + strlen(pts), sizeof pts - strlen(pts), " %g:%g", l[j].k[1], atof(l[j].line + 64));
        }
        double m = j - i, d = m * sxx - sx * sx;
        if (m >= 2 && d > 0)
            fprintf(out, "- b = %s: best momentum lr ~ B^%.2f over B = %s (B:lr)\n", l[i].line, (m * sxy - sx * sy) / d, pts);
        i = j;
    }
}

/* RUN/FILE exists. */
static int exists(const char *dir, const char *file)
{
    char path[2600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return access(path, F_OK) == 0;
}

/* RUN/FILE's bytes to out. */
static void copy_file(FILE *out, const char *dir, const char *file)
{
    char path[2600], buf[8192];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = rs_fopen_read(path);
    size_t k;
    while (f && (k = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, k, out);
    if (f)
        fclose(f);
}

static void claim(FILE *out, const conv_fit_row *f, int nf, const char *target_x)
{
    for (int i = 0; i < nf; i++) {
        double b = atof(f[i].b), s = atof(f[i].s), e = atof(f[i].e);
        if (strcmp(f[i].ratio, "nan") == 0)
            fprintf(out, "- b = %s: not measured (N = 1 or N = 100 has no point that reached the target)\n", f[i].b);
        else
            fprintf(out, "- b = %s: steps(N = 1) / steps(N = 100) = %s (perfect scaling: 100; the fit predicts %.3g) "
                    "at %s x kn3\n", f[i].b, f[i].ratio, (s + e / b) / (s + e / (100 * b)), target_x);
    }
}

int conv_report(const study_run *r, FILE *out)
{
    char path[2600];
    snprintf(path, sizeof path, "%s/scaling_convergence.csv", r->dir);
    rs_table *t = rs_table_read_csv_text(path);
    if (!t)
        return -1;
    static conv_fit_row fits[256];
    static sorted_line lines[MOST];
    int nf = conv_read_fits(r->dir, fits, 256);
#define S(name) study_value(r, name)
    char others[2048] = "";
    if (*S("OPT_N"))
        snprintf(others, sizeof others, " (plus %s at N = %s)", S("OPT_LIST"), S("OPT_N"));
    char corpus[1024], used[512] = "", bl[1024], *bw[256];
    conv_model_flag(S("MODEL"), "--corpus", "mobydick", corpus, sizeof corpus);
    snprintf(bl, sizeof bl, "%s", S("B_LIST"));
    for (int i = 0, nb = conv_words(bl, bw, 256); i < nb; i++) {   /* the streams the points scored */
        long b = atol(bw[i]), es = (atol(S("EVAL_STREAMS")) + b - 1) / b * b;
        snprintf(used + strlen(used), sizeof used - strlen(used), "%s%ld at b = %ld", i ? ", " : "", es, b);
    }
    /* the regime study's section leads the report where it ran here */
    if (exists(r->dir, "regime_report.md")) {
        char md[2600];
        snprintf(md, sizeof md, "%s/regime_report.md", r->dir);
        study_put_section(out, "regime", md);
        fprintf(out, "\n");
    }
    fprintf(out, "## Secondary: steps to target against batch size at small per-worker batches\n\n"
            "Model: `rnn-train %s` on the corpus %s; N synchronous\n"
            "workers of b streams each (`--workers N --batch b`, global batch B = N b sequences of\n"
            "bptt tokens), momentum SGD%s, constant learning rate\n"
            "over a grid of %s x a centre that follows sqrt(B), seed %s.\n"
            "Target: valid ppl %s = %s x the Kneser-Ney trigram's on the same split\n"
            "(valid scored as %s streams at every B, `--eval-streams`: EVAL_STREAMS=%s made a multiple of b).\n"
            "Steps to target is the\n"
            "first evaluation at or under it; evaluations every ~1/20 of the fewest steps it could take,\n"
            "and a point whose interval came out over 1/11 of its steps is rerun with a finer one, so\n"
            "every count is within 10%% of the crossing (`resolved` = 1 in scaling_convergence.csv).\n\n",
            S("MODEL"), corpus, others, S("LR_FACTORS"), S("SEED"), rs_table_nrows(t) ? conv_cell(t, 0, "target_ppl") : "",
            S("TARGET_X"), used, S("EVAL_STREAMS"));
    best_table(out, t, fits, nf, lines);
    fprintf(out, "\n");
    misses(out, t, lines);
    fprintf(out, "\n");
    int no = optimizers(t, lines);
    if (no > 0) {
        fprintf(out, "### Optimizers at the large end (the best point of each)\n\n"
                     "| b | N | global batch | optimizer | lr | warmup | steps to target |\n"
                     "| ---: | ---: | ---: | --- | ---: | ---: | ---: |\n");
        print_sorted(out, lines, no);
        fprintf(out, "\n");
    }
    fprintf(out, "### The learning rate against the batch\n\n");
    lr_rule(out, t, lines);
    fprintf(out, "\n### The Sunway TaihuLight study's claim: ~100x fewer steps at N = 100 than at N = 1\n\n");
    claim(out, fits, nf, S("TARGET_X"));
#undef S
    fprintf(out, "\n### Fit S = S_min + E_min / B (per b, the best momentum point per N)\n\n"
                 "The fit follows momentum SGD, the optimizer run at every N; the other optimizers,\n"
                 "tried at the large end only, are in the table above and as open marks in the figure.\n\n");
    if (exists(r->dir, "scaling_fit.txt")) {
        fprintf(out, "```\n");
        copy_file(out, r->dir, "scaling_fit.txt");
        fprintf(out, "```\n");
    }
    fprintf(out, "\nB_crit = E_min / S_min. Regimes: perfect scaling for B <= B_crit / 10 (steps within\n"
                 "10%% of E_min / B), maximal data parallelism for B >= 10 B_crit (steps within 10%% of\n"
                 "S_min), diminishing returns between. Residuals, R^2 and the median b_simple (where the\n"
                 "trainer logs it): scaling_fit.json. claim_ratio: steps at N = 1 over steps at N = 100\n"
                 "for the same b (the Sunway TaihuLight study's ~100x); perfect scaling would give 100.\n\n");
    if (exists(r->dir, "figures/scaling_convergence.png"))
        fprintf(out, "![steps to target against the global batch](figures/scaling_convergence.png)\n");
    if (exists(r->dir, "figures/scaling_convergence_lr.png"))
        fprintf(out, "\n![best learning rate against the global batch](figures/scaling_convergence_lr.png)\n");
    if (exists(r->dir, "figures/scaling_bsimple.png"))
        fprintf(out, "\n![B_simple over training, the best point of each N](figures/scaling_bsimple.png)\n");
    /* the other studies' sections, where they ran here, in make scaling's order: a
     * collect of this study alone keeps them (the regime's went first) */
    static const char *const parts[][2] = {{"scaling_compose", "scaling_compose.md"},
                                           {"scaling_models", "scaling_models.md"}};
    for (int i = 0; i < 2; i++)
        if (exists(r->dir, parts[i][1])) {
            char md[2600];
            snprintf(md, sizeof md, "%s/%s", r->dir, parts[i][1]);
            fprintf(out, "\n");
            study_put_section(out, parts[i][0], md);
        }
    rs_table_free(t);
    return ferror(out) ? -1 : 0;
}
