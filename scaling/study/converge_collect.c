/* converge_collect.c — the convergence study's results from its points (the driver
 * calls it last; `build/bin/study collect converge RUN` redoes them):
 *   scaling_convergence.csv/.json   one row per point (converge_rows.c), the best flags
 *   scaling_fit.json, .txt          build/bin/scaling-fit over the best point per N of
 *                                   the optimizer the grid runs at every N
 *   scaling_bsimple.csv             b_simple over training, the best point per (N, b)
 *   figures/scaling_convergence.png, scaling_convergence_lr.png, scaling_bsimple.png
 *                                   (converge_figures.c)
 *   scaling_report.md               the section (converge_report.c)
 * Files that exist are moved to RUN/old-K/ first: results are never overwritten. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "converge_study.h"
#include "cpu.h"
#include "fsio.h"
#include "proc.h"
#include "meta.h"

/* Some training point (a name from "b") is done: something to tabulate. */
static int any_done(const study_run *r)
{
    char line[8192], name[256], ok[64], rc[64], path[2600];
    int done = 0;
    FILE *f = rs_fopen_read(r->points);
    while (f && !done && fgets(line, sizeof line, f)) {
        if (sscanf(line, "%255s %*s %63s", name, ok) != 2 || name[0] != 'b' || strcmp(ok, "x") == 0)
            continue;
        snprintf(path, sizeof path, "%s/points/%s/rc", r->dir, name);
        FILE *g = rs_fopen_read(path);
        if (!g)
            continue;
        int got = fscanf(g, "%63s", rc) == 1;
        fclose(g);
        char *save, *code;
        for (code = strtok_r(ok, ",", &save); got && code && !done; code = strtok_r(NULL, ",", &save))
            done = atoi(code) == atoi(rc) && rc[strspn(rc, "-0123456789")] == 0;
    }
    if (f)
        fclose(f);
    return done;
}

/* The settings as saved, "setting_NAME value" each, into t's metadata. */
static void settings_meta(const study_run *r, rs_table *t)
{
    char path[2600], line[4096], key[256];
    snprintf(path, sizeof path, "%s/converge_settings.txt", r->dir);
    FILE *f = rs_fopen_read(path);
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        size_t n = strspn(line, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_"), l = strlen(line);
        if (line[n] == '=' && line[n + 1] == '"' && l >= n + 3 && line[l - 1] == '"') {
            line[l - 1] = 0;
            snprintf(key, sizeof key, "setting_%.*s", (int)n, line);
            rs_table_meta(t, key, line + n + 2);
        } else if (line[0]) {
            char *sp = strchr(line, ' ');
            if (sp)
                *sp = 0;
            rs_table_meta(t, line, sp ? sp + 1 : "");
        }
    }
    if (f)
        fclose(f);
}

/* The rows as the typed table scaling_convergence, with its metadata. */
static rs_table *table_of(const study_run *r, const conv_base *b, const conv_rows *rows)
{
    rs_col cols[CR_NCOLS];
    for (int c = 0; c < CR_NCOLS; c++)
        cols[c] = (rs_col){conv_columns[c], RS_STR, 0};
    rs_table *text = rs_table_new("scaling_convergence", cols, CR_NCOLS);
    for (int i = 0; i < rows->n; i++) {
        int row = rs_table_row(text);
        for (int c = 0; c < CR_NCOLS; c++)
            if (rows->row[i].f[c][0])
                rs_set_str(text, row, conv_columns[c], rows->row[i].f[c]);
    }
    char buf[2600];
    snprintf(buf, sizeof buf, "study run converge %s", r->dir);
    study_meta_std(text, buf);
    rs_table_meta(text, "target_ppl", b->target);
    rs_table_meta(text, "kn3_valid_ppl", b->kn3);
    rs_table_meta(text, "train_tokens", b->ntrain);
    settings_meta(r, text);
    rs_table *t = rs_table_typed(text, "scaling_convergence");
    rs_table_free(text);
    return t;
}

int conv_launch(char *const argv[], const char *out)
{
    fflush(stdout);
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        proc_child_setup(parent);
        int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0666) : -1;
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "converge: cannot run %s\n", argv[0]);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return 127;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The fit of the optimizer the grid runs at every N (its first row's): the others,
 * tried at the large end only, are compared beside it in the report. */
static int fit(const study_run *r)
{
    char grid[2600], rows[2600], json[2600], txt[2600], base[256] = "";
    snprintf(grid, sizeof grid, "%s/converge_grid.csv", r->dir);
    rs_table *g = rs_table_read_csv_text(grid);
    int c = g ? rs_table_col_index(g, "optimizer") : -1;
    if (c >= 0 && rs_table_nrows(g) > 0 && rs_cell_isset(g, 0, c))
        snprintf(base, sizeof base, "%s", rs_cell_str(g, 0, c));
    if (g)
        rs_table_free(g);
    snprintf(rows, sizeof rows, "%s/scaling_convergence.csv", r->dir);
    snprintf(json, sizeof json, "%s/scaling_fit.json", r->dir);
    snprintf(txt, sizeof txt, "%s/scaling_fit.txt", r->dir);
    char fitbin[4200];
    study_program(fitbin, sizeof fitbin, "RS_SCALING_FIT", "build/bin/scaling-fit");
    char *argv[] = {fitbin, "--rows", rows, "--json", json, "--optimizer", base,
                    "--best-col", "best_of_optimizer", NULL};
    int rc = conv_launch(argv, txt);
    FILE *f = rs_fopen_read(txt);
    char buf[4096];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, stdout);
    if (f)
        fclose(f);
    return rc != 0;
}

/* scaling_bsimple.csv: the evaluation logs' b_simple of the best point per (N, b). */
static int bsimple_writer(FILE *out, void *ctx)
{
    const study_run *r = ctx;
    char path[2600];
    snprintf(path, sizeof path, "%s/scaling_convergence.csv", r->dir);
    rs_table *t = rs_table_read_csv_text(path);
    int lines = 0;
    fprintf(out, "N,b,global_batch,step,tokens,b_simple\n");
    for (int i = 0; t && i < rs_table_nrows(t); i++) {
        const char *v[4];
        static const char *const cols[] = {"point", "N", "b", "global_batch"};
        for (int k = 0; k < 4; k++) {
            int c = rs_table_col_index(t, cols[k]);
            v[k] = c >= 0 && rs_cell_isset(t, i, c) ? rs_cell_str(t, i, c) : "";
        }
        int cb = rs_table_col_index(t, "best");
        if (cb < 0 || !rs_cell_isset(t, i, cb) || atof(rs_cell_str(t, i, cb)) != 1)
            continue;
        rs_table *log = conv_point_text(r->dir, v[0], "log.csv");
        int cs = log ? rs_table_col_index(log, "b_simple") : -1;
        int cstep = log ? rs_table_col_index(log, "step") : -1, ctok = log ? rs_table_col_index(log, "tokens") : -1;
        for (int k = 0; cs >= 0 && k < rs_table_nrows(log); k++) {
            if (!rs_cell_isset(log, k, cs))
                continue;
            fprintf(out, "%s,%s,%s,", v[1], v[2], v[3]);
            fprintf(out, "%s,", cstep >= 0 && rs_cell_isset(log, k, cstep) ? rs_cell_str(log, k, cstep) : "");
            fprintf(out, "%s,", ctok >= 0 && rs_cell_isset(log, k, ctok) ? rs_cell_str(log, k, ctok) : "");
            fprintf(out, "%s\n", rs_cell_str(log, k, cs));
            lines++;
        }
        if (log)
            rs_table_free(log);
    }
    if (t)
        rs_table_free(t);
    if (lines == 0) {
        rs_seterr("no b_simple logged");
        return -1;   /* nothing to draw: no file */
    }
    return ferror(out) ? -1 : 0;
}

static int report_writer(FILE *out, void *ctx) { return conv_report(ctx, out); }

int conv_collect(study_run *r)
{
    conv_base b;
    char path[2600];
    snprintf(path, sizeof path, "%s/converge_grid.csv", r->dir);
    if (access(path, F_OK) != 0 || conv_base_read(r, &b) != 0) {
        if (access(path, F_OK) != 0)
            rs_seterr("no grid %s", path);
        fprintf(stderr, "converge: %s\n", rs_lasterr());
        return 2;
    }
    if (!any_done(r)) {
        fprintf(stderr, "converge: every point failed (their logs: %s/points/b*/stderr.txt); no table, report or "
                "figure written\n", r->dir);
        return 1;
    }
    conv_rows *rows = conv_rows_read(r, &b);
    if (!rows) {
        fprintf(stderr, "converge: cannot collect the rows: %s\n", rs_lasterr());
        return 2;
    }
    rs_table *t = table_of(r, &b, rows);
    conv_rows_free(rows);
    static const char *const files[] = {"scaling_convergence.csv", "scaling_convergence.json", "scaling_fit.json",
                                        "scaling_fit.txt", "scaling_report.md", "figures/scaling_convergence.png",
                                        "scaling_bsimple.csv"};
    int status = 0;
    for (int i = 0; i < 7 && status == 0; i++)
        status = study_keep_aside(r, files[i]) != 0;
    char csv[2600], json[2600];
    snprintf(csv, sizeof csv, "%s/scaling_convergence.csv", r->dir);
    snprintf(json, sizeof json, "%s/scaling_convergence.json", r->dir);
    if (status || rs_table_write_csv(t, csv) != 0 || rs_table_write_json(t, json) != 0) {
        fprintf(stderr, "converge: %s\n", rs_lasterr());
        rs_table_free(t);
        return 1;
    }
    rs_table_free(t);
    status |= fit(r);
    snprintf(path, sizeof path, "%s/scaling_bsimple.csv", r->dir);
    rs_write_atomic(path, bsimple_writer, r);   /* no file where no point logs b_simple */
    status |= conv_draw(r);
    snprintf(path, sizeof path, "%s/scaling_report.md", r->dir);
    if (rs_write_atomic(path, report_writer, r) == 0)
        printf("converge: report %s\n", path);
    else {
        fprintf(stderr, "converge: %s\n", rs_lasterr());
        status = 1;
    }
    return status;
}
