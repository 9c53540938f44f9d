/* simulate_sweep_out.c — the collect of make simulate's sweep (simulate_sweep.c), into
 * the run folder RUN:
 *   NAME.csv/.json/.txt/.log   each part's (`study simulate OPTIONS --collect`)
 *   simulate.csv               the parts simulate_small, _large, _large_smpi and _ring
 *   simulate_placement.csv,    joined (the header once), for the figures and the report
 *   simulate_platforms.csv       (each family's parts, NAME_*.csv)
 *   figures/simulate_*.png     plot/simulate_nodes.gp and simulate_sizes.gp
 *   simulate_report.md         the report section (simulate_report.c)
 *   simulate_points.txt        every simulation: part, id, nodes, algorithm, folded,
 *                              sizes, wall and CPU seconds, peak memory (KB)
 *   simulate_cost.txt          each part's simulations one after another (seconds), and
 *                              the whole sweep's wall time (appended by every sweep)
 * If no simulation gave a row, none of it: exit 1 with one line naming the logs, kept
 * in RUN/simulate_work (a rerun resumes); a sweep that failed keeps them too. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "draw.h"
#include "figures.h"
#include "fsio.h"
#include "proc.h"
#include "report.h"
#include "simulate.h"
#include "simulate_sweep.h"

/* Points in the points file, and how many are done; -1 with no points file. */
static int points_done(const study_run *r, int *total)
{
    FILE *f = rs_fopen_read(r->points);
    char line[16384], name[256];
    int done = 0;
    *total = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%255s", name) == 1 && name[0] != '#') {
            (*total)++;
            done += study_point_state(r, name) > 0;
        }
    fclose(f);
    return done;
}

static void print_file(const char *path, int log)
{
    char line[8192], last[5][8192];
    int n = 0;
    FILE *f = rs_fopen_read(path);
    while (f && fgets(line, sizeof line, f)) {
        if (!log)
            fputs(line, stdout);
        else if (line[0] != '[' && line[0] != '\n')   /* the log's last lines, no progress */
            snprintf(last[n++ % 5], sizeof last[0], "%s", line);
    }
    for (int i = n > 5 ? n - 5 : 0; i < n; i++)
        fputs(last[i % 5], stdout);
    if (f)
        fclose(f);
}

/* One part's CSV, JSON, summary (NAME.txt) and log: 0, its exit status, or 130/143. */
static int collect_part(const study_run *r, const sim_part *p)
{
    char keep[4400], csv[4400], json[4400], txt[4400], log[4400];
    snprintf(keep, sizeof keep, "%s/%s", r->work, p->name);
    snprintf(csv, sizeof csv, "%s/%s.csv", r->dir, p->name);
    snprintf(json, sizeof json, "%s/%s.json", r->dir, p->name);
    snprintf(txt, sizeof txt, "%s/%s.txt", r->dir, p->name);
    snprintf(log, sizeof log, "%s/%s.log", r->dir, p->name);
    const char *more[] = {"--keep", keep, "--collect", "--csv", csv, "--json", json, NULL};
    int rc = sim_self(p, more, txt, log);
    print_file(txt, 0);
    print_file(log, 1);
    if (rc == 130 || rc == 143)
        printf("simulate: interrupted; %s keeps what was written\n", r->dir);
    else if (rc != 0)
        printf("simulate: %s exited %d\n", p->name, rc);
    return rc;
}

typedef struct {
    char line[8192];
    double seconds;
} cost_line;

static int longest(const void *a, const void *b)
{
    const cost_line *x = a, *y = b;
    return x->seconds != y->seconds ? (x->seconds < y->seconds ? 1 : -1) : strcmp(x->line, y->line);
}

static void text_of(const char *path, char *buf, size_t len, const char *none)
{
    FILE *f = rs_fopen_read(path);
    snprintf(buf, len, "%s", none);
    if (f && fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = 0;
    if (f)
        fclose(f);
}

/* One simulation's line of simulate_points.txt. */
static void cost_of(const char *jobs, const char *part, const char *id, cost_line *c)
{
    char path[8192], kind[16], name[64], p[16], fold[8], sizes[4096] = "", sec[64], cpu[64], rss[64] = "-", v[64];
    snprintf(path, sizeof path, "%s/%s.env", jobs, id);
    sim_kv(path, "KIND", kind, sizeof kind);
    sim_kv(path, "NAME", name, sizeof name);
    sim_kv(path, "P", p, sizeof p);
    sim_kv(path, "FOLD", fold, sizeof fold);
    snprintf(path, sizeof path, "%s/%s.sizes", jobs, id);
    FILE *f = rs_fopen_read(path);
    while (f && fscanf(f, "%63s", v) == 1)
        snprintf(sizes + strlen(sizes), sizeof sizes - strlen(sizes), "%s%s", sizes[0] ? "," : "", v);
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "%s/%s.seconds", jobs, id);
    text_of(path, sec, sizeof sec, "");
    snprintf(path, sizeof path, "%s/%s.cpu", jobs, id);
    text_of(path, cpu, sizeof cpu, "-");
    snprintf(path, sizeof path, "%s/%s.rss", jobs, id);
    long long most = -1;
    f = rs_fopen_read(path);
    while (f && fgets(v, sizeof v, f))   /* GNU time's lines: the peak of every attempt */
        if (v[0] >= '0' && v[0] <= '9' && atoll(v) > most)
            most = atoll(v);
    if (f)
        fclose(f);
    if (most >= 0)
        snprintf(rss, sizeof rss, "%lld", most);
    snprintf(c->line, sizeof c->line, "%s %s %s %s%s %s %s %s %s %s", part, id, p, strcmp(kind, "smpi") == 0 ? "smpi:" : "",
             name, fold, sizes, sec, cpu, rss);
    c->seconds = atof(sec);
}

static void record_costs(const study_run *r, const sim_part *parts, int n, long long wall)
{
    cost_line *c = NULL;
    int nc = 0;
    char path[8192], cost[4400];
    snprintf(cost, sizeof cost, "%s/simulate_cost.txt", r->dir);
    FILE *out = fopen(cost, "a");
    for (int i = 0; i < n; i++) {
        char jobs[4400];
        snprintf(jobs, sizeof jobs, "%s/%s/jobs", r->work, parts[i].name);
        snprintf(path, sizeof path, "%s/%s/settings", r->work, parts[i].name);
        if (access(path, F_OK) != 0)
            continue;
        struct dirent **e = NULL;
        int m = scandir(jobs, &e, NULL, alphasort);
        double sum = 0;
        int any = 0;
        for (int k = 0; k < m; k++) {
            size_t l = strlen(e[k]->d_name);
            char id[256];
            snprintf(id, sizeof id, "%.*s", (int)(l > 4 ? l - 4 : 0), e[k]->d_name);
            snprintf(path, sizeof path, "%s/%s.seconds", jobs, id);
            if (e[k]->d_name[0] == 'j' && l > 4 && strcmp(e[k]->d_name + l - 4, ".env") == 0 && access(path, F_OK) == 0) {
                c = realloc(c, sizeof *c * (size_t)(nc + 1));
                RS_ASSERT(c != NULL);
                cost_of(jobs, parts[i].name, id, &c[nc]);
                sum += c[nc++].seconds;
                any = 1;
            }
            free(e[k]);
        }
        free(e);
        if (any && out)
            fprintf(out, "%s %.0f\n", parts[i].name, sum);
    }
    if (nc > 0) {
        qsort(c, (size_t)nc, sizeof *c, longest);
        snprintf(path, sizeof path, "%s/simulate_points.txt", r->dir);
        study_keep_aside(r, "simulate_points.txt");   /* an earlier sweep's, to old-K/ */
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "part id nodes algorithm folded sizes seconds cpu_seconds max_rss_kb\n");
            for (int i = 0; i < nc; i++)
                fprintf(f, "%s\n", c[i].line);
            fclose(f);
        }
    }
    if (out) {
        fprintf(out, "total %lld\n", wall);
        fclose(out);
    }
    free(c);
}

/* FILES joined into RUN/FAM.csv (the header once); an earlier one goes to old-K/. */
static int write_text_csv(FILE *f, void *ctx) { return rs_table_print_csv(ctx, f); }

static int join(const study_run *r, const char *fam, char **files, int n)
{
    rs_table *t = NULL;
    for (int i = 0; i < n; i++) {
        rs_table *in = rs_table_read_csv_text(files[i]);
        if (!in) {
            printf("simulate: %s\n", rs_lasterr());
            continue;
        }
        if (!t) {
            t = in;
            continue;
        }
        for (int q = 0; q < rs_table_nrows(in); q++) {
            int row = rs_table_row(t);
            for (int c = 0; c < rs_table_ncols(t); c++) {
                const char *name = rs_table_col(t, c)->name, *v = sim_cell(in, q, name);
                if (*v)
                    rs_set_str(t, row, name, v);
            }
        }
        rs_table_free(in);
    }
    if (!t)
        return 1;
    char path[4400], tmp[4500];
    snprintf(path, sizeof path, "%s/%s.csv", r->dir, fam);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    unlink(tmp);
    char name[300];
    snprintf(name, sizeof name, "%s.csv", fam);   /* a sweep's earlier table goes to old-K/ */
    int rc = rs_write_atomic(tmp, write_text_csv, t) == 0 && study_keep_aside(r, name) == 0 &&
                     rename(tmp, path) == 0 ? 0 : 1;
    rs_table_free(t);
    return rc;
}

static void join_families(const study_run *r)
{
    static const char *const fams[] = {"simulate", "simulate_placement", "simulate_platforms"};
    for (int i = 0; i < 3; i++) {
        char pattern[4400], *files[8], names[4][4400];
        glob_t g = {0};
        int n = 0;
        if (i == 0) {
            static const char *const parts[] = {"small", "large", "large_smpi", "ring"};
            for (int k = 0; k < 4; k++) {
                snprintf(names[n], sizeof names[n], "%s/simulate_%s.csv", r->dir, parts[k]);
                if (access(names[n], F_OK) == 0)
                    files[n] = names[n], n++;
            }
            join(r, fams[i], files, n);
            continue;
        }
        snprintf(pattern, sizeof pattern, "%s/%s_*.csv", r->dir, fams[i]);
        if (glob(pattern, 0, NULL, &g) == 0)
            join(r, fams[i], g.gl_pathv, (int)g.gl_pathc);
        globfree(&g);
    }
}

static int figures(const study_run *r)
{
    char csv[4400];
    snprintf(csv, sizeof csv, "%s/simulate.csv", r->dir);
    if (access(csv, F_OK) != 0)
        return 0;
    int status = 0;
    static const char *const gps[] = {"simulate_nodes", "simulate_sizes"};
    for (int i = 0; i < 2; i++)
        status |= study_draw(r->dir, gps[i], csv, NULL, "simulate") == 1;
    return status;
}

/* The sweep's section, then the data-parallel step's (report_dp.c) where it ran. */
static int write_report(FILE *f, void *ctx)
{
    int rc = sim_report(ctx, f);
    report_ctx r = {.run = ctx, .out = f};
    if (rc == 0)
        report_dp_simulated(&r);
    return rc != 0 || r.unreadable ? -1 : 0;
}

static int report(const study_run *r)
{
    char md[4400], tmp[4500];
    snprintf(md, sizeof md, "%s/simulate_report.md", r->dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", md);
    unlink(tmp);
    if (rs_write_atomic(tmp, write_report, (void *)r->dir) != 0 ||
        study_keep_aside(r, "simulate_report.md") != 0 || rename(tmp, md) != 0) {
        fprintf(stderr, "%s\n", rs_lasterr());
        unlink(tmp);
        return 1;
    }
    printf("simulate: report %s\n", md);
    return 0;
}

int sim_sweep_collect(study_run *r, int plan_failed, long long t0)
{
    int status = plan_failed, total, done = points_done(r, &total);
    if (total > 0 && done == 0) {   /* nothing to tabulate: the logs kept for a rerun */
        fprintf(stderr, "simulate: every point failed (their logs: %s/*/jobs/*.err); no table, report or figure "
                "written\n", r->work);
        return 1;
    }
    status |= done >= 0 && done < total;
    sim_part *parts;
    int n = sim_parts(r, &parts);
    if (n < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        char path[4400], csv[4400], json[4400];
        snprintf(path, sizeof path, "%s/%s/settings", r->work, parts[i].name);
        snprintf(csv, sizeof csv, "%s/%s.csv", r->dir, parts[i].name);
        snprintf(json, sizeof json, "%s/%s.json", r->dir, parts[i].name);
        if (access(path, F_OK) != 0 || access(csv, F_OK) == 0 || access(json, F_OK) == 0)
            continue;   /* not planned, or collected */
        int rc = collect_part(r, &parts[i]);
        if (rc == 130 || rc == 143) {
            free(parts);
            return rc;
        }
        if (rc != 0 && status == 0)
            status = rc;
    }
    record_costs(r, parts, n, (long long)time(NULL) - (t0 ? t0 : (long long)time(NULL)));
    free(parts);
    status |= sim_dp_collect(r);
    if (status == 0)
        study_remove_tree(r->work);   /* a failed sweep keeps its logs and resumes */
    join_families(r);
    status |= figures(r);
    status |= report(r);
    return status;
}
