/* converge_figures.c — the convergence study's figures: plot/scaling_convergence.gp,
 * scaling_convergence_lr.gp and scaling_bsimple.gp read the run's CSVs themselves
 * (gnuplot's own CSV reading); what they need computed from the run comes from here,
 * as gnuplot -e assignments (`study figure-vars RUN` for study figures):
 *   fb fs fe fc p1   per fitted b: b, S_min, E_min, B_crit (as scaling_fit.txt shows
 *                    them) and the best point's steps at N = 1 (0: none)
 *   bl               every b with a best point of its optimizer; base: the optimizer the
 *                    grid runs at every N; others: the other optimizers that reached
 *                    the target; xr: "lo hi", the x range around the best points
 *   series           "optimizer:b" of the learning-rate figure; first: "B lr", the base
 *                    optimizer's best point at the smallest B
 *   runs             "N:b" of scaling_bsimple.csv's runs */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "draw.h"
#include "converge_study.h"
#include "fsio.h"

/* " word" appended to the list, unless once is set and the list has it. */
static void add_word(char *list, size_t size, const char *word, int once)
{
    size_t n = strlen(list), w = strlen(word);
    char padded[1100];
    snprintf(padded, sizeof padded, " %s ", word);
    char *copy = malloc(n + 2);
    RS_ASSERT(copy != NULL);
    snprintf(copy, n + 2, "%s ", list);
    int have = strstr(copy, padded) != NULL;
    free(copy);
    if ((once && have) || n + 1 + w >= size)
        return;
    list[n] = ' ';
    memcpy(list + n + 1, word, w + 1);
}

/* RUN/FILE as text cells (NULL if absent). */
static rs_table *read_text(const char *dir, const char *file)
{
    char path[2600];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return access(path, F_OK) == 0 ? rs_table_read_csv_text(path) : NULL;
}

int conv_figure_vars(const char *dir, char *buf, size_t len)
{
    static conv_fit_row fits[256];
    char fb[1024] = "", fs[1024] = "", fe[1024] = "", fc[1024] = "", p1[1024] = "", bl[1024] = "";
    char others[1024] = "", series[4096] = "", runs[8192] = "", base[256] = "momentum";
    rs_table *t = read_text(dir, "scaling_convergence.csv"), *g = read_text(dir, "converge_grid.csv");
    RS_CHECK(t, "no %s/scaling_convergence.csv", dir);
    if (g && rs_table_nrows(g) > 0)   /* the base optimizer: the grid's first row's */
        snprintf(base, sizeof base, "%s", conv_cell(g, 0, "optimizer"));
    int nf = conv_read_fits(dir, fits, 256), nr = rs_table_nrows(t), any = 0, nfirst = 0;
    for (int i = 0; i < nf; i++) {
        const char *steps = "0";
        for (int k = 0; k < nr; k++)
            if (conv_is_one(t, k, "best") && atof(conv_cell(t, k, "N")) == 1 && atof(conv_cell(t, k, "b")) == atof(fits[i].b))
                steps = conv_cell(t, k, "steps_to_target");
        add_word(fb, sizeof fb, fits[i].b, 0);
        add_word(fs, sizeof fs, fits[i].s, 0);
        add_word(fe, sizeof fe, fits[i].e, 0);
        add_word(fc, sizeof fc, fits[i].c, 0);
        add_word(p1, sizeof p1, steps, 0);
    }
    double lo = 0, hi = 0, B0 = 1;
    const char *lr0 = "1";
    for (int k = 0; k < nr; k++) {
        double B = atof(conv_cell(t, k, "global_batch"));
        if (conv_is_one(t, k, "best")) {
            lo = !any || B < lo ? B : lo;
            hi = !any || B > hi ? B : hi;
            any = 1;
        }
        if (strcmp(conv_cell(t, k, "optimizer"), base) != 0 && *conv_cell(t, k, "steps_to_target"))
            add_word(others, sizeof others, conv_cell(t, k, "optimizer"), 1);
        if (!conv_is_one(t, k, "best_of_optimizer"))
            continue;
        char s[600];
        snprintf(s, sizeof s, "%s:%s", conv_cell(t, k, "optimizer"), conv_cell(t, k, "b"));
        add_word(bl, sizeof bl, conv_cell(t, k, "b"), 1);
        add_word(series, sizeof series, s, 1);
        if (strcmp(conv_cell(t, k, "optimizer"), base) == 0 && (!nfirst++ || B < B0)) {
            B0 = B;
            lr0 = conv_cell(t, k, "lr");
        }
    }
    rs_table *bs = read_text(dir, "scaling_bsimple.csv");
    for (int k = 0; bs && k < rs_table_nrows(bs); k++) {
        char s[600];
        snprintf(s, sizeof s, "%s:%s", conv_cell(bs, k, "N"), conv_cell(bs, k, "b"));
        add_word(runs, sizeof runs, s, 1);
    }
    snprintf(buf, len, "fb=\"%s\"; fs=\"%s\"; fe=\"%s\"; fc=\"%s\"; p1=\"%s\"; bl=\"%s\"; base=\"%s\"; others=\"%s\"; "
             "xr=\"%.6g %.6g\"; series=\"%s\"; first=\"%.6g %s\"; runs=\"%s\";", fb, fs, fe, fc, p1, bl, base, others,
             lo / 1.5, (hi > lo ? hi : 2 * lo) * 1.5, series, B0, lr0, runs);
    rs_table_free(t);
    if (g)
        rs_table_free(g);
    if (bs)
        rs_table_free(bs);
    return 0;
}

int conv_draw(const study_run *r)
{
    char json[2600], vars[32768];
    snprintf(json, sizeof json, "%s/scaling_fit.json", r->dir);
    if (access(json, F_OK) != 0 || !study_runnable("gnuplot"))
        return 0;
    if (study_keep_aside(r, "figures/scaling_convergence_lr.png") != 0 ||
        study_keep_aside(r, "figures/scaling_bsimple.png") != 0 || conv_figure_vars(r->dir, vars, sizeof vars) != 0) {
        fprintf(stderr, "converge: %s\n", rs_lasterr());
        return 1;
    }
    static const char *const names[] = {"scaling_bsimple", "scaling_convergence", "scaling_convergence_lr"};
    static const char *const csvs[] = {"scaling_bsimple.csv", "scaling_convergence.csv", "scaling_convergence.csv"};
    int status = 0;
    for (int i = 0; i < 3; i++) {
        char csv[2600];
        snprintf(csv, sizeof csv, "%s/%s", r->dir, csvs[i]);
        if (access(csv, F_OK) == 0)
            status |= study_draw(r->dir, names[i], csv, NULL, "figures") == 1;
    }
    return status;
}
