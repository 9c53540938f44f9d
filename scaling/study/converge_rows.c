/* converge_rows.c — the convergence study's rows: one per point of its grid
 * (converge_grid.csv), from the files the point wrote in RUN/points/NAME/, with the
 * best flags.  The refinement, the widening and the collect all read the grid this way,
 * so what decides the next points is what the table shows.
 * A row: the grid's values, then steps_to_target (empty when not reached), resolved (the
 * evaluation interval is 1 or at most 1/11 of the steps, so the first evaluation under
 * the target is within 10% of the crossing), tokens and seconds at the stop, epochs, the
 * final valid ppl, b_simple (the evaluation log's last value) and a status.  Cells keep
 * the text the point's CSVs had. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "converge_study.h"
#include "fsio.h"

const char *const conv_columns[CR_NCOLS] = {
    "point", "N", "b", "global_batch", "optimizer", "lr", "warmup", "eval_every", "steps_to_target",
    "resolved", "tokens", "seconds", "epochs", "final_ppl", "target_ppl", "b_simple", "status",
    "best", "best_of_optimizer"};

rs_table *conv_point_text(const char *dir, const char *name, const char *file)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/points/%.255s/%s", dir, name, file);
    return access(path, R_OK) == 0 ? rs_table_read_csv_text(path) : NULL;
}

const char *conv_last(const rs_table *t, const char *col, char *buf, size_t len)
{
    int c = t ? rs_table_col_index(t, col) : -1, n = t ? rs_table_nrows(t) : 0;
    snprintf(buf, len, "%s", c >= 0 && n > 0 && rs_cell_isset(t, n - 1, c) ? rs_cell_str(t, n - 1, c) : "");
    return buf;
}

int conv_words(char *list, char **words, int most)
{
    int n = 0;
    for (char *w = strtok(list, " \t\n"); w && n < most; w = strtok(NULL, " \t\n"))
        words[n++] = w;
    return n;
}

int conv_base_read(const study_run *r, conv_base *b)
{
    rs_table *t = conv_point_text(r->dir, "kn3", "summary.csv");
    int ppl = t ? rs_table_col_index(t, "valid_ppl") : -1, tok = t ? rs_table_col_index(t, "tokens") : -1;
    int ok = ppl >= 0 && tok >= 0 && rs_table_nrows(t) > 0 && rs_cell_isset(t, 0, ppl) && rs_cell_isset(t, 0, tok);
    if (ok) {
        snprintf(b->kn3, sizeof b->kn3, "%s", rs_cell_str(t, 0, ppl));
        snprintf(b->ntrain, sizeof b->ntrain, "%s", rs_cell_str(t, 0, tok));
        snprintf(b->target, sizeof b->target, "%.2f", atof(b->kn3) * atof(study_value(r, "TARGET_X")));
    }
    if (t)
        rs_table_free(t);
    RS_CHECK(ok, "%s/points/kn3/summary.csv: no baseline", r->dir);
    return 0;
}

/* The whole of RUN/points/NAME/FILE without its trailing newlines ("" if none). */
static void slurp(const char *dir, const char *name, const char *file, char *buf, size_t len)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/points/%.255s/%s", dir, name, file);
    FILE *f = rs_fopen_read(path);
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    if (f)
        fclose(f);
    while (n > 0 && buf[n - 1] == '\n')
        n--;
    buf[n] = 0;
}

static int has_file(const char *dir, const char *name, const char *file)
{
    char path[8192];
    snprintf(path, sizeof path, "%s/points/%.255s/%s", dir, name, file);
    return access(path, F_OK) == 0;
}

/* Why a point could not run: its infeasible note, "infeasible: " once, commas as ';'. */
static void infeasible(const char *dir, const char *name, char *buf, size_t len)
{
    char text[1024], *out = buf, *end = buf + len - 1;
    slurp(dir, name, "infeasible", text, sizeof text);
    out += snprintf(buf, len, "infeasible: ");
    for (char *line = text; line && out < end;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = 0;
        if (strncmp(line, "infeasible: ", 12) == 0)
            line += 12;
        for (; *line && out < end; line++)
            *out++ = *line == ',' ? ';' : *line;
        if (nl && out < end)
            *out++ = '\n';
        line = nl ? nl + 1 : NULL;
    }
    *out = 0;
}

/* One point's row from its grid values and its folder. */
static void point_row(const study_run *r, const conv_base *b, conv_row *row)
{
    char (*f)[512] = row->f, rc[64];
    const char *dir = r->dir, *name = f[CR_POINT];
    snprintf(f[CR_GB], sizeof f[CR_GB], "%ld", atol(f[CR_N]) * atol(f[CR_B]));
    snprintf(f[CR_TARGET], sizeof f[CR_TARGET], "%s", b->target);
    if (has_file(dir, name, "infeasible"))
        infeasible(dir, name, f[CR_STATUS], sizeof f[CR_STATUS]);
    else if (!has_file(dir, name, "rc"))
        snprintf(f[CR_STATUS], sizeof f[CR_STATUS], "not run");
    else {
        rs_table *s = conv_point_text(dir, name, "summary.csv"), *log = conv_point_text(dir, name, "log.csv");
        conv_last(s, "steps_to_target", f[CR_STEPS], sizeof f[CR_STEPS]);
        conv_last(s, "tokens", f[CR_TOK], sizeof f[CR_TOK]);
        conv_last(s, "seconds", f[CR_SEC], sizeof f[CR_SEC]);
        conv_last(s, "valid_ppl", f[CR_PPL], sizeof f[CR_PPL]);
        conv_last(log, "b_simple", f[CR_BS], sizeof f[CR_BS]);
        slurp(dir, name, "rc", rc, sizeof rc);
        if (f[CR_STEPS][0])
            snprintf(f[CR_STATUS], sizeof f[CR_STATUS], "reached");
        else if (strcmp(rc, "0") == 0) {
            char steps[64];
            snprintf(f[CR_STATUS], sizeof f[CR_STATUS], "not reached within %s steps",
                     conv_last(s, "steps", steps, sizeof steps));
        } else if (study_point_says(dir, name, "diverg")) {
            snprintf(f[CR_STATUS], sizeof f[CR_STATUS], "diverged");
            f[CR_PPL][0] = 0;
        } else
            snprintf(f[CR_STATUS], sizeof f[CR_STATUS], "failed (exit %s)", rc);
        if (s)
            rs_table_free(s);
        if (log)
            rs_table_free(log);
    }
    if (f[CR_STEPS][0]) {   /* an interval of 1 resolves any count; "" had none to say */
        double e = atof(f[CR_EV]), st = atof(f[CR_STEPS]);
        snprintf(f[CR_RES], sizeof f[CR_RES], "%d", !f[CR_EV][0] || e == 1 || e <= st / 11);
    }
    if (f[CR_TOK][0])
        snprintf(f[CR_EP], sizeof f[CR_EP], "%.3g", atof(f[CR_TOK]) / atof(b->ntrain));
}

/* best: the fewest steps to the target per (N, b) over every optimizer, learning rate
 * and warmup tried (the first such row on a tie); best_of_optimizer: per (N, b,
 * optimizer). */
static void best_flags(conv_rows *rows)
{
    for (int i = 0; i < rows->n; i++) {
        char (*x)[512] = rows->row[i].f;
        int best = x[CR_STEPS][0] != 0, best_opt = best;
        for (int j = 0; j < rows->n && best_opt; j++) {
            char (*y)[512] = rows->row[j].f;
            if (j == i || !y[CR_STEPS][0] || strcmp(x[CR_N], y[CR_N]) || strcmp(x[CR_B], y[CR_B]))
                continue;
            double sx = atof(x[CR_STEPS]), sy = atof(y[CR_STEPS]);
            int beats = sy < sx || (sy == sx && j < i);
            best &= !beats;
            best_opt &= !(beats && strcmp(x[CR_OPT], y[CR_OPT]) == 0);
        }
        snprintf(x[CR_BEST], sizeof x[CR_BEST], "%d", best);
        snprintf(x[CR_BEST_OPT], sizeof x[CR_BEST_OPT], "%d", best_opt);
    }
}

static const char *cell(const rs_table *t, int row, const char *col)
{
    int c = rs_table_col_index(t, col);
    return c >= 0 && rs_cell_isset(t, row, c) ? rs_cell_str(t, row, c) : "";
}

conv_rows *conv_rows_read(const study_run *r, const conv_base *b)
{
    char path[2600];
    snprintf(path, sizeof path, "%s/converge_grid.csv", r->dir);
    RS_CHECK_NULL(access(path, F_OK) == 0, "no grid %s", path);
    rs_table *g = rs_table_read_csv_text(path);
    if (!g)
        return NULL;
    int n = rs_table_nrows(g);
    conv_rows *rows = calloc(1, sizeof *rows);
    RS_ASSERT(rows != NULL);
    rows->row = calloc((size_t)n + 1, sizeof *rows->row);
    RS_ASSERT(rows->row != NULL);
    static const int from[] = {CR_N, CR_B, CR_OPT, CR_LR, CR_WU, CR_EV};
    static const char *const grid_col[] = {"N", "b", "optimizer", "lr", "warmup", "eval_every"};
    for (int i = 0; i < n; i++) {
        const char *name = cell(g, i, "point");
        size_t l = strlen(name);
        char fine[512];
        snprintf(fine, sizeof fine, "%s-fine", name);
        int refined = 0;   /* a refined point stands in for its coarse run once it has run */
        for (int j = 0; j < n && !refined; j++)
            refined = strcmp(cell(g, j, "refines"), name) == 0 && has_file(r->dir, fine, "rc");
        if (refined || (l > 5 && strcmp(name + l - 5, "-fine") == 0 && !has_file(r->dir, name, "rc")))
            continue;
        conv_row *row = &rows->row[rows->n++];
        snprintf(row->f[CR_POINT], sizeof row->f[CR_POINT], "%s", name);
        for (int k = 0; k < 6; k++)
            snprintf(row->f[from[k]], sizeof row->f[0], "%s", cell(g, i, grid_col[k]));
        point_row(r, b, row);
    }
    rs_table_free(g);
    best_flags(rows);
    return rows;
}

void conv_rows_free(conv_rows *rows)
{
    if (rows) {
        free(rows->row);
        free(rows);
    }
}

const char *conv_cell(const rs_table *t, int row, const char *col)
{
    int c = rs_table_col_index(t, col);
    return c >= 0 && rs_cell_isset(t, row, c) ? rs_cell_str(t, row, c) : "";
}

int conv_is_one(const rs_table *t, int row, const char *col)
{
    const char *v = conv_cell(t, row, col);
    return *v && atof(v) == 1;
}
