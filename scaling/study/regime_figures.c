/* regime_figures.c — the regime study's figures (plot/regime_scaling.gp, steps to target
 * against B with the perfect-scaling line and the claim's point; plot/regime_scaling_cost.gp,
 * the data cost and the local exponent), drawn from regime_scaling.csv, and the values
 * they take from it: targets and optimizers in the file's order (the best of them,
 * "any", left out), S(B0) of each, B0 and the claim's B. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "draw.h"
#include "record.h"
#include "regime_study.h"

/* word w in the space-separated list: 1 */
static int listed(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *p = list; (p = strstr(p, w)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
            return 1;
    return 0;
}

static void append(char *list, size_t len, const char *w)
{
    size_t n = strlen(list), k = strlen(w);
    if (n + k + 2 > len)
        return;   /* no room: the figure draws fewer series */
    if (n)
        list[n++] = ' ';
    memcpy(list + n, w, k + 1);
}

/* plot/regime_bsimple.gp's: the optimizers, the runs ("N:optimizer"), and where each
 * optimizer's local exponent passes 1/2 at its hardest target with one (regime_scaling.csv's
 * bend column), "optimizer:B" each. */
static int bsimple_vars(const char *dir, char *buf, size_t len)
{
    char path[4200], runs[4096] = "", opts[256] = "", bends[1024] = "", c[256], key[300];
    snprintf(path, sizeof path, "%s/regime_bsimple.csv", dir);
    RS_CHECK(access(path, F_OK) == 0, "no %s (the figure's CSV)", path);
    rs_table *t = rs_table_read_csv_text(path);
    if (!t)
        return -1;
    for (int i = 0; i < rs_table_nrows(t); i++) {
        char n[64];
        study_cell_at(t, i, "optimizer", c, sizeof c);
        snprintf(key, sizeof key, "%.60s:%.200s", study_cell_at(t, i, "N", n, sizeof n), c);
        if (!listed(runs, key))
            append(runs, sizeof runs, key);
        if (!listed(opts, c))
            append(opts, sizeof opts, c);
    }
    rs_table_free(t);
    char names[8][64], bend[8][64];   /* per optimizer: the last target's bend (the hardest) */
    int nb = 0;
    snprintf(path, sizeof path, "%s/regime_scaling.csv", dir);
    if ((t = access(path, F_OK) == 0 ? rs_table_read_csv_text(path) : NULL)) {
        for (int i = 0; i < rs_table_nrows(t); i++) {
            char o[64], b[64];
            study_cell_at(t, i, "optimizer", o, sizeof o);
            if (!*study_cell_at(t, i, "bend", b, sizeof b) || !listed(opts, o))
                continue;
            int k = 0;
            while (k < nb && strcmp(names[k], o) != 0)
                k++;
            if (k == nb && nb < 8)
                snprintf(names[nb++], sizeof names[0], "%s", o);
            if (k < nb)
                snprintf(bend[k], sizeof bend[0], "%s", b);
        }
        rs_table_free(t);
    }
    for (int k = 0; k < nb; k++) {
        snprintf(key, sizeof key, "%s:%s", names[k], bend[k]);
        append(bends, sizeof bends, key);
    }
    snprintf(buf, len, "runs=\"%s\"; opts=\"%s\"; bends=\"%s\";", runs, opts, bends);
    return 0;
}

int regime_figure_vars(const char *dir, const char *name, char *buf, size_t len)
{
    if (strcmp(name, "regime_bsimple") == 0)
        return bsimple_vars(dir, buf, len);
    char path[4200], settings[4200];
    snprintf(path, sizeof path, "%s/regime_scaling.csv", dir);
    snprintf(settings, sizeof settings, "%s/regime_settings.txt", dir);
    RS_CHECK(access(path, F_OK) == 0, "no %s (the figure's CSV)", path);
    rs_table *t = rs_table_read_csv_text(path);
    if (!t)
        return -1;
    char targets[1024] = "", opts[256] = "", s0[4096] = "", c[256];
    double b0 = NAN;
    for (int i = 0; i < rs_table_nrows(t); i++) {
        study_cell_at(t, i, "target", c, sizeof c);
        if (!listed(targets, c))
            append(targets, sizeof targets, c);
        study_cell_at(t, i, "optimizer", c, sizeof c);
        if (strcmp(c, "any") != 0 && !listed(opts, c))
            append(opts, sizeof opts, c);
        double B = atof(study_cell_at(t, i, "global_batch", c, sizeof c));
        b0 = isnan(b0) || B < b0 ? B : b0;
    }
    /* S(B0) per target (outer) and optimizer, NaN where B0 has no count */
    char tl[1024], ol[256], *ts, *os;
    snprintf(tl, sizeof tl, "%s", targets);
    for (char *tw = strtok_r(tl, " ", &ts); tw; tw = strtok_r(NULL, " ", &ts)) {
        snprintf(ol, sizeof ol, "%s", opts);
        for (char *ow = strtok_r(ol, " ", &os); ow; ow = strtok_r(NULL, " ", &os)) {
            char v[64] = "NaN";
            for (int i = 0; i < rs_table_nrows(t); i++)
                if (strcmp(study_cell_at(t, i, "target", c, sizeof c), tw) == 0 &&
                    strcmp(study_cell_at(t, i, "optimizer", c, sizeof c), ow) == 0 &&
                    atof(study_cell_at(t, i, "global_batch", c, sizeof c)) == b0 &&
                    *study_cell_at(t, i, "steps", c, sizeof c))
                    snprintf(v, sizeof v, "%.60s", c);
            append(s0, sizeof s0, v);
        }
    }
    rs_table_free(t);
    char *claim = study_saved_value(settings, "CLAIM_N");
    double big = b0 * (claim ? atof(claim) : 1);
    free(claim);
    snprintf(buf, len, "targets=\"%s\"; opts=\"%s\"; s0=\"%s\"; b0=%g; big=%g;", targets, opts, s0, b0, big);
    return 0;
}

int regime_draw(const study_run *r)
{
    char csv[2600];
    snprintf(csv, sizeof csv, "%s/regime_scaling.csv", r->dir);
    if (access(csv, F_OK) != 0 || !study_runnable("gnuplot"))
        return 0;
    static const char *const names[] = {"regime_scaling", "regime_scaling_cost", "regime_bsimple"};
    int status = 0;
    for (int i = 0; i < 3; i++) {
        char png[64], data[2600];
        snprintf(png, sizeof png, "figures/%s.png", names[i]);
        snprintf(data, sizeof data, "%s/%s.csv", r->dir, i == 2 ? "regime_bsimple" : "regime_scaling");
        if (study_keep_aside(r, png) != 0) {
            fprintf(stderr, "regime: %s\n", rs_lasterr());
            return 1;
        }
        if (access(data, F_OK) == 0)
            status |= study_draw(r->dir, names[i], data, NULL, "figures") == 1;
    }
    return status;
}
