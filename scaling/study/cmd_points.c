/* cmd_points.c — `study points RUN`: the one table of a study's points.
 *
 * the pool (pool.c) runs each point in RUN/points/NAME/ (cmd, rc, seconds, stdout.txt,
 * stderr.txt, and what the command wrote).  This reads them back into RUN/points.csv
 * (or --out FILE), one row per point in name order: point, status (done: its rc is
 * one of its OK codes in the run's points files, else 0; failed, not run, infeasible),
 * exit_code, wall_seconds, cpu_seconds, command, result_file and result_rows (the point's result
 * CSV: summary.csv, else bench.csv, else the first other *.csv but
 * log.csv), note (why infeasible, or a failure's last stderr line), then the columns of
 * a one-row result CSV, the union over the points in first-seen order (a name that
 * clashes with the fixed ones gets "result_" before it).  Every cell is text as read.
 * A committed reference run keeps this table instead of its points' raw files. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "fsio.h"
#include "opts.h"
#include "points_file.h"
#include "record.h"
#include "study.h"

#define MOST_COLS 256
static const char *const fixed[] = {"point",       "status",      "exit_code",   "wall_seconds", "cpu_seconds",
                                    "command",     "result_file", "result_rows", "note"};
#define NFIXED RS_ARRAY_LEN(fixed)

static struct {
    const char *out;
} opt;

static const rs_opt options[] = {
    {"out", RS_OPT_STR, &opt.out, "FILE", "where the table goes (default RUN/points.csv; never overwritten)", 0, 0},
};
static const char usage[] = "usage: study points RUN [--out FILE]\n"
                            "RUN/points/*/ (the point folders) as one table.";

/* The first line of DIR/NAME without its newline (last = 1: the last non-empty one),
 * "" when absent; tabs and newlines inside become spaces. */
static void read_line(const char *dir, const char *name, int last, char *buf, size_t len)
{
    char path[4400], line[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    buf[0] = 0;
    FILE *f = rs_fopen_read(path);
    if (!f)
        return;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (line[0])
            snprintf(buf, len, "%s", line);
        if (!last && buf[0])
            break;
    }
    fclose(f);
}

/* The point's result CSV, read (NULL if none); its name in `file`. */
static rs_table *result_of(const char *dir, char *file, size_t len)
{
    static const char *const first[] = {"summary.csv", "bench.csv"};
    char path[4400];
    struct stat st;
    file[0] = 0;
    for (int i = 0; i < 2 && !file[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, first[i]);
        if (stat(path, &st) == 0 && st.st_size > 0)
            snprintf(file, len, "%s", first[i]);
    }
    struct dirent **e;
    int n = file[0] ? 0 : scandir(dir, &e, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        size_t l = strlen(e[i]->d_name);
        if (!file[0] && l > 4 && strcmp(e[i]->d_name + l - 4, ".csv") == 0 &&
            strcmp(e[i]->d_name, "log.csv") != 0)
            snprintf(file, len, "%s", e[i]->d_name);
        free(e[i]);
    }
    if (n > 0)
        free(e);
    if (!file[0])
        return NULL;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    return rs_table_read_csv(path);   /* a malformed one: NULL, the point noted */
}

/* rc counts as done: one of the point's OK codes in the run's points files (RUN/NAME_points.txt,
 * points_file.h: "0,1" where exit 1 is an outcome), or 0 for a point none lists. */
static int ok_code(const char *run_dir, const char *name, const char *rc)
{
    static char dir[4096];
    static pf_points all[16];
    static int nfiles = -1;
    if (nfiles < 0 || strcmp(dir, run_dir) != 0) {
        for (int i = 0; i < nfiles; i++)
            pf_free(&all[i]);
        nfiles = 0;
        snprintf(dir, sizeof dir, "%s", run_dir);
        struct dirent **f;
        int n = scandir(run_dir, &f, NULL, alphasort);
        for (int i = 0; i < n; i++) {
            size_t l = strlen(f[i]->d_name);
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", run_dir, f[i]->d_name);
            if (nfiles < 16 && l > 11 && strcmp(f[i]->d_name + l - 11, "_points.txt") == 0 &&
                pf_read(path, &all[nfiles]) == 0)
                nfiles++;
            free(f[i]);
        }
        if (n > 0)
            free(f);
    }
    for (int i = 0; i < nfiles; i++) {
        const pf_point *p = pf_find(&all[i], name);
        if (p && strcmp(p->name, name) == 0) {
            char ok[64], *save;
            snprintf(ok, sizeof ok, "%s", p->ok);
            for (char *c = strtok_r(ok, ",", &save); c; c = strtok_r(NULL, ",", &save))
                if (strcmp(c, rc) == 0)
                    return 1;
            return 0;
        }
    }
    return strcmp(rc, "0") == 0;
}

static int is_point(const struct dirent *e)
{
    return e->d_name[0] != '.';
}

/* The column a result column goes to. */
static void column_name(const char *name, char *buf, size_t len)
{
    int clash = 0;
    for (int i = 0; i < NFIXED; i++)
        clash |= strcmp(fixed[i], name) == 0;
    snprintf(buf, len, "%s%s", clash ? "result_" : "", name);
}

/* Pass 1 (t == NULL): the union of one-row results' columns into names; pass 2: rows. */
static int scan(const char *run_dir, const char *points, struct dirent **e, int n, char **names,
                int *nnames, rs_table *t)
{
    char dir[4096], buf[4096], file[256], col[300];
    for (int i = 0; i < n; i++) {
        snprintf(dir, sizeof dir, "%s/%s", points, e[i]->d_name);
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            continue;
        rs_table *res = result_of(dir, file, sizeof file);
        int one_row = res && rs_table_nrows(res) == 1;
        for (int c = 0; one_row && !t && c < rs_table_ncols(res); c++) {
            column_name(rs_table_col(res, c)->name, col, sizeof col);
            int seen = 0;
            for (int k = 0; k < *nnames && !seen; k++)
                seen = strcmp(names[k], col) == 0;
            RS_CHECK(seen || *nnames < MOST_COLS, "%s: more than %d result columns", points, MOST_COLS);
            if (!seen)
                names[(*nnames)++] = strdup(col);
        }
        if (t) {
            int r = rs_table_row(t);
            char rc[64], inf[1024];
            rs_set_str(t, r, "point", e[i]->d_name);
            read_line(dir, "rc", 0, rc, sizeof rc);
            read_line(dir, "infeasible", 0, inf, sizeof inf);
            const char *status = inf[0] ? "infeasible" : !rc[0] ? "not run" : ok_code(run_dir, e[i]->d_name, rc) ? "done" : "failed";
            rs_set_str(t, r, "status", status);
            if (rc[0])
                rs_set_str(t, r, "exit_code", rc);
            read_line(dir, "seconds", 0, buf, sizeof buf);
            if (buf[0])
                rs_set_str(t, r, "wall_seconds", buf);
            read_line(dir, "cpu_seconds", 0, buf, sizeof buf);
            if (buf[0])
                rs_set_str(t, r, "cpu_seconds", buf);
            read_line(dir, "cmd", 0, buf, sizeof buf);
            rs_set_str(t, r, "command", buf);
            if (file[0]) {
                rs_set_str(t, r, "result_file", file);
                snprintf(buf, sizeof buf, "%d", res ? rs_table_nrows(res) : 0);
                rs_set_str(t, r, "result_rows", buf);
            }
            if (inf[0])
                rs_set_str(t, r, "note", inf);
            else if (strcmp(status, "failed") == 0) {
                read_line(dir, "stderr.txt", 1, buf, sizeof buf);
                rs_set_str(t, r, "note", buf);
            } else if (file[0] && !res)
                rs_set_str(t, r, "note", rs_lasterr());
            for (int c = 0; one_row && c < rs_table_ncols(res); c++) {
                column_name(rs_table_col(res, c)->name, col, sizeof col);
                rs_cell_text(res, 0, c, buf, sizeof buf);
                if (buf[0])
                    rs_set_str(t, r, col, buf);
            }
        }
        if (res)
            rs_table_free(res);
    }
    return 0;
}

static int run(const char *run_dir)
{
    char points[4000], out[4096];
    snprintf(points, sizeof points, "%s/points", run_dir);
    snprintf(out, sizeof out, "%s", opt.out ? opt.out : "");
    if (!opt.out)
        snprintf(out, sizeof out, "%s/points.csv", run_dir);
    struct dirent **e;
    int n = scandir(points, &e, is_point, alphasort);
    RS_CHECK(n >= 0, "%s: no points folder (a run folder of make scaling or make simulate?)", points);
    char *names[MOST_COLS];
    int nnames = 0, rc = rs_check_writable(out);
    if (rc == 0)
        rc = scan(run_dir, points, e, n, names, &nnames, NULL);
    rs_col cols[NFIXED + MOST_COLS];
    for (int i = 0; i < NFIXED; i++)
        cols[i] = (rs_col){fixed[i], RS_STR, 0};
    for (int i = 0; i < nnames; i++)
        cols[NFIXED + i] = (rs_col){names[i], RS_STR, 0};
    rs_table *t = rc == 0 ? rs_table_new("points", cols, NFIXED + nnames) : NULL;
    if (t) {
        rc = scan(run_dir, points, e, n, names, &nnames, t);
        if (rc == 0)
            rc = rs_table_write_csv(t, out);
        if (rc == 0)
            printf("study points: %d points -> %s\n", rs_table_nrows(t), out);
        rs_table_free(t);
    }
    for (int i = 0; i < nnames; i++)
        free(names[i]);
    for (int i = 0; i < n; i++)
        free(e[i]);
    free(e);
    return rc;
}

int cmd_points(int argc, char **argv)
{
    return study_cmd_on_run(argc, argv, options, RS_ARRAY_LEN(options), usage, "points", run);
}
