/* simulate_rows.c — a simulate run's rows, as text: one header (allreduce-bench's columns
 * + platform, placement, simulated, checked, note), every job's rows as its CSV wrote
 * them (`library` named smpi:NAME; a folded row's `wrong` emptied, as its buffers held
 * no data), a row with only a note for each size that could not be simulated and each
 * point not run, and the alpha-beta lower bound.  The table is typed when written
 * (rs_table_typed), as a CSV reader would type it. */
#define _GNU_SOURCE
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "simulate.h"
#include "fsio.h"

/* allreduce-bench's header, for a run where no job wrote one */
static const char default_header[] =
    "algo,p,bytes,dtype,op,inplace,mode,iters,time_us_avg,time_us_min,time_us_max,p50_us,p99_us,"
    "algbw_gbytes_per_s,busbw_gbytes_per_s,model_us,model_hi_us,model_ratio,in_model_range,wrong";
static const char *const ours[] = {"platform", "placement", "simulated", "checked", "note"};

const char *sim_cell(const rs_table *t, int r, const char *col)
{
    int c = rs_table_col_index(t, col);
    return c >= 0 && r >= 0 && r < rs_table_nrows(t) ? rs_cell_str(t, r, c) : "";
}

void sim_awk_num(double x, char *buf, size_t len)
{
    if (x == floor(x) && fabs(x) <= 2147483647.0)
        snprintf(buf, len, "%.0f", x);
    else
        snprintf(buf, len, "%.6g", x);
}

static int nonempty(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && st.st_size > 0;
}

static void set(rs_table *t, int row, const char *col, const char *v)
{
    if (v && *v)
        rs_set_str(t, row, col, v);
}

/* The header: the first job CSV's (the CSVs in jobs/, in name order), else allreduce-bench's. */
static rs_table *new_table(const char *work)
{
    char dir[4300], path[4600], best[256] = "";
    snprintf(dir, sizeof dir, "%s/jobs", work);
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        size_t l = strlen(names[i]->d_name);
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        if (!best[0] && l > 4 && strcmp(names[i]->d_name + l - 4, ".csv") == 0 && nonempty(path))
            snprintf(best, sizeof best, "%s", names[i]->d_name);
        free(names[i]);
    }
    free(names);
    rs_col cols[256];
    int nc = 0;
    rs_table *first = NULL;
    if (best[0]) {
        snprintf(path, sizeof path, "%s/%s", dir, best);
        first = rs_table_read_csv_text(path);
    }
    static char hdr[4096];
    snprintf(hdr, sizeof hdr, "%s", default_header);
    if (first) {
        size_t k = 0;
        for (int c = 0; c < rs_table_ncols(first) && k < sizeof hdr; c++)
            k += (size_t)snprintf(hdr + k, sizeof hdr - k, "%s%s", c ? "," : "", rs_table_col(first, c)->name);
        rs_table_free(first);
    }
    char *save;
    for (char *h = strtok_r(hdr, ",", &save); h && nc < 250; h = strtok_r(NULL, ",", &save))
        cols[nc++] = (rs_col){h, RS_STR, 0};
    for (int i = 0; i < 5; i++)
        cols[nc++] = (rs_col){ours[i], RS_STR, 0};
    return rs_table_new("simulate", cols, nc);
}

/* A row of only a note (and what the point was). */
static void note_row(rs_table *t, const sim_opts *o, const char *algo, int p, const char *bytes,
                     const char *note)
{
    char ps[32];
    snprintf(ps, sizeof ps, "%d", p);
    int row = rs_table_row(t);
    set(t, row, "algo", algo);
    set(t, row, "p", ps);
    set(t, row, "bytes", bytes);
    set(t, row, "platform", o->platform);
    set(t, row, "placement", o->placement);
    set(t, row, "simulated", "1");
    set(t, row, "note", note);
}

/* One job CSV's rows; 1 if any says wrong. */
static int job_rows(rs_table *t, const sim_opts *o, const sim_job *j, const char *path)
{
    rs_table *in = rs_table_read_csv_text(path);
    if (!in) {
        fprintf(stderr, "simulate: %s\n", rs_lasterr());
        return 0;
    }
    int wrong = 0, nh = rs_table_ncols(t) - 5;
    char label[48];
    snprintf(label, sizeof label, "smpi:%s", j->name);
    for (int r = 0; r < rs_table_nrows(in); r++) {
        int row = rs_table_row(t);
        wrong |= atof(sim_cell(in, r, "wrong")) > 0;
        for (int c = 0; c < nh; c++) {
            const char *name = rs_table_col(t, c)->name, *v = sim_cell(in, r, name);
            if (strcmp(name, "algo") == 0 && strcmp(j->kind, "smpi") == 0 && strcmp(v, "library") == 0)
                v = label;
            if (strcmp(name, "wrong") == 0 && j->fold)
                v = "";
            set(t, row, name, v);
        }
        set(t, row, "platform", o->platform);
        set(t, row, "placement", o->placement);
        set(t, row, "simulated", "1");
        set(t, row, "checked", j->fold ? "0" : "1");
    }
    rs_table_free(in);
    return wrong;
}

static void failed_rows(rs_table *t, const sim_opts *o, const sim_job *j, const char *label,
                        const char *path, int *status)
{
    char line[4096], note[4200];
    int n = 0;
    FILE *f = rs_fopen_read(path);
    while (f && fgets(line, sizeof line, f))
        n++;
    if (strcmp(j->kind, "project") == 0)
        *status = 1;
    fprintf(stderr, "simulate: %s at p=%d: %d size(s) could not be simulated (the note column; logs in the "
            "work folder, --keep)\n", label, j->p, n);
    if (f)
        rewind(f);
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        char *s = line + strspn(line, " \t"), *rest = s + strcspn(s, " \t");
        if (*rest)
            *rest++ = 0;
        rest += strspn(rest, " \t");
        size_t l = strlen(rest);
        while (l > 0 && (rest[l - 1] == ' ' || rest[l - 1] == '\t'))
            rest[--l] = 0;
        snprintf(note, sizeof note, "not simulated: %s", rest);
        note_row(t, o, label, j->p, s, note);
    }
    if (f)
        fclose(f);
}

/* bound = ceil(log2 p) alpha + 2(p-1)/p n / B  (alpha: nearest nodes, B: injection) */
static void bound_rows(rs_table *t, const sim_opts *o, const sim_plan *pl)
{
    double a = atof(pl->alpha_us), B = atof(pl->link_gbs);
    for (int k = 0; k < o->nnodes; k++) {
        int p = o->nodes[k], l = 0;
        if (p < 2)
            continue;
        while ((1L << l) < p)
            l++;
        const sim_list *sl = sim_sizes_for(o, p);
        for (int i = 0; i < sl->n; i++) {
            double b = (double)(sl->v[i] / 4 * 4);
            double tm = l * a + 2.0 * (p - 1) / p * b / (B * 1e3);
            char ps[32], bs[32], ts[64], alg[64], bus[64];
            snprintf(ps, sizeof ps, "%d", p);
            sim_awk_num(b, bs, sizeof bs);
            sim_awk_num(tm, ts, sizeof ts);
            int row = rs_table_row(t);
            set(t, row, "algo", "bound");
            set(t, row, "p", ps);
            set(t, row, "bytes", bs);
            set(t, row, "dtype", "float");
            set(t, row, "op", "sum");
            set(t, row, "inplace", "0");
            set(t, row, "mode", "isolated");
            static const char *const times[] = {"time_us_avg", "time_us_min", "time_us_max", "p50_us", "p99_us"};
            for (int c = 0; c < 5; c++)
                set(t, row, times[c], ts);
            if (tm > 0) {
                sim_awk_num(b / tm / 1e3, alg, sizeof alg);
                sim_awk_num(b / tm / 1e3 * 2 * (p - 1) / p, bus, sizeof bus);
                set(t, row, "algbw_gbytes_per_s", alg);
                set(t, row, "busbw_gbytes_per_s", bus);
            }
            set(t, row, "platform", o->platform);
            set(t, row, "placement", o->placement);
            set(t, row, "simulated", "0");
            set(t, row, "note", "analytic: ceil(log2 p) alpha + 2(p-1)/p n / B");
        }
    }
}

rs_table *sim_rows(const sim_opts *o, const sim_plan *pl, const char *work, int *status)
{
    rs_table *t = new_table(work);
    char path[4400];
    for (int i = 0; i < pl->njobs; i++) {
        const sim_job *j = &pl->job[i];
        char label[48];
        snprintf(label, sizeof label, "%s%s", strcmp(j->kind, "smpi") == 0 ? "smpi:" : "", j->name);
        for (int k = 0; k <= j->ns; k++) {   /* the job's CSV, or one per size run alone */
            if (k == 0)
                snprintf(path, sizeof path, "%s/jobs/%s.csv", work, j->id);
            else
                snprintf(path, sizeof path, "%s/jobs/%s.s%d.csv", work, j->id, k);
            if (!nonempty(path) || !job_rows(t, o, j, path))
                continue;
            /* a project algorithm's wrong result fails the run; an SMPI built-in's is
             * SMPI's (smp_rsag with count % p != 0) and is only reported */
            if (strcmp(j->kind, "project") == 0) {
                *status = 1;
                fprintf(stderr, "simulate: WRONG results from project algorithms at p=%d (the wrong column)\n", j->p);
            } else
                fprintf(stderr, "simulate: note: SMPI's %s gave wrong results at p=%d (the wrong column; SMPI's "
                        "bug, not counted as a failure)\n", j->name, j->p);
        }
        snprintf(path, sizeof path, "%s/jobs/%s.failed", work, j->id);
        if (nonempty(path))
            failed_rows(t, o, j, label, path, status);
    }
    for (int i = 0; i < pl->nskip; i++)
        note_row(t, o, pl->skip[i].algo, pl->skip[i].p, pl->skip[i].bytes, pl->skip[i].note);
    if (o->bound)
        bound_rows(t, o, pl);
    return t;
}
