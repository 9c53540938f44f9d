/* cmd_took.c — `study took RUN`: what a run folder's studies took, from the jobs GNU
 * parallel logged (RUN/joblog.txt: start and runtime of every point it ran, a stopped
 * and continued point once per run) and each point's cpu_seconds (cmd_point.c).
 *
 * A study stopped at the end of a session and continued in the next runs in stretches;
 * its wall time is the sum of the stretches: the union of its jobs' intervals, where
 * gaps shorter than GAP_S (a stage's plan and collect between two rounds of points)
 * count and longer ones (the run was stopped) do not.  Per study (the points file a
 * job ran from) and in all: jobs, stretches, wall hours, job hours (the points' run
 * times summed: wall x JOBS when the slots stay full) and CPU hours (user + system of
 * each point and its children, over all its runs).  A job killed with its runner
 * logged no line: its time is missing, and its point's cpu_seconds holds only the runs
 * that ended.  Writes RUN/took.csv (made again each time) and prints the table; exit 2
 * with one line for a missing or malformed joblog. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsio.h"
#include "opts.h"
#include "record.h"
#include "study.h"
#include "study_def.h"

#define GAP_S 300.0
#define MOST_JOBS 20000
#define MOST_STUDIES 16

typedef struct {
    double t0, t1;
    int study;
    char point[256];
} job;

typedef struct {
    char name[256];
    int jobs, stretches;
    double wall_s, job_s, cpu_s;
} took;

static const char usage[] = "usage: study took RUN\n"
                            "What RUN's studies took: jobs, stretches, wall, job and CPU hours per study\n"
                            "(RUN/joblog.txt and RUN/points/*/cpu_seconds); writes RUN/took.csv.";

static int by_start(const void *a, const void *b)
{
    double x = ((const job *)a)->t0, y = ((const job *)b)->t0;
    return x < y ? -1 : x > y;
}

/* One joblog line: Seq Host Starttime JobRuntime Send Receive Exitval Signal Command,
 * tab-separated; the command ends "... RUN/NAME_points.txt POINT".  0; 1 for a header
 * or a line of another command; -1 for a name too long (rs_lasterr). */
static int parse(char *line, job *j, char *study, size_t len)
{
    char *f[9], *save = NULL;
    int n = 0;
    for (char *s = strtok_r(line, "\t", &save); s && n < 9; s = strtok_r(NULL, "\t", &save))
        f[n++] = s;
    char *end;
    if (n < 9 || (j->t0 = strtod(f[2], &end), end == f[2]))
        return 1;
    j->t1 = j->t0 + strtod(f[3], NULL);
    f[8][strcspn(f[8], "\r\n")] = 0;
    char *point = strrchr(f[8], ' ');
    if (!point)
        return 1;
    *point++ = 0;
    char *file = strrchr(f[8], ' ');   /* the points file: the word before the point */
    file = file ? file + 1 : f[8];
    file = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    char *suffix = strstr(file, "_points.txt");
    if (!suffix || suffix[11])
        return 1;
    if (strlen(point) >= sizeof j->point || (size_t)(suffix - file) >= len) {
        rs_seterr("a point or study name over %zu characters: %.60s...", sizeof j->point - 1, point);
        return -1;
    }
    snprintf(j->point, sizeof j->point, "%s", point);
    snprintf(study, len, "%.*s", (int)(suffix - file), file);
    return 0;
}

/* Stretches and their wall time: jobs sorted by start, merged across short gaps. */
static void stretches(const job *js, int n, int study, took *t)
{
    double a = 0, b = 0;
    int open = 0;
    for (int i = 0; i < n; i++) {
        if (study >= 0 && js[i].study != study)
            continue;
        if (open && js[i].t0 <= b + GAP_S) {
            b = js[i].t1 > b ? js[i].t1 : b;
            continue;
        }
        if (open)
            t->wall_s += b - a;
        a = js[i].t0, b = js[i].t1, open = 1;
        t->stretches++;
    }
    if (open)
        t->wall_s += b - a;
}

static int run(const char *dir)
{
    char path[4200], line[8192], study[256];
    snprintf(path, sizeof path, "%s/joblog.txt", dir);
    FILE *f = rs_fopen_read(path);
    RS_CHECK(f, "%s: no joblog (a run folder of make scaling?)", path);
    job *js = malloc(sizeof *js * MOST_JOBS);
    took st[MOST_STUDIES + 1];
    memset(st, 0, sizeof st);
    int n = 0, ns = 0, rc = js ? 0 : -1, lineno = 0;
    if (!js)
        rs_seterr("out of memory");
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(f)) {
            rs_seterr("%s:%d: a line over %zu bytes", path, lineno, sizeof line - 1);
            rc = -1;
            break;
        }
        if (n == MOST_JOBS) {
            rs_seterr("%s: more than %d jobs", path, MOST_JOBS);
            rc = -1;
            break;
        }
        int p = parse(line, &js[n], study, sizeof study);
        if (p != 0) {
            rc = p < 0 ? -1 : 0;
            continue;
        }
        int k = 0;
        while (k < ns && strcmp(st[k].name, study) != 0)
            k++;
        if (k == MOST_STUDIES) {
            rs_seterr("%s: more than %d studies", path, MOST_STUDIES);
            rc = -1;
            break;
        }
        if (k == ns)
            snprintf(st[ns++].name, sizeof st[0].name, "%s", study);
        js[n].study = k;
        st[k].jobs++;
        st[k].job_s += js[n].t1 - js[n].t0;
        /* a point's cpu_seconds covers all its runs: counted at its last job only */
        for (int i = 0; i < n; i++)
            if (js[i].study == k && js[i].point[0] && strcmp(js[i].point, js[n].point) == 0)
                js[i].point[0] = 0;
        n++;
    }
    fclose(f);
    if (rc == 0 && n == 0) {
        rs_seterr("%s: no job of a points file in it", path);
        rc = -1;
    }
    if (rc != 0) {
        free(js);
        return -1;
    }
    qsort(js, (size_t)n, sizeof *js, by_start);   /* parallel logs jobs as they end */
    took *all = &st[ns];
    snprintf(all->name, sizeof all->name, "all");
    for (int i = 0; i < n; i++) {
        if (!js[i].point[0])
            continue;
        snprintf(path, sizeof path, "%s/points/%s", dir, js[i].point);
        st[js[i].study].cpu_s += study_point_number(path, "cpu_seconds");
    }
    for (int k = 0; k < ns; k++) {
        stretches(js, n, k, &st[k]);
        all->jobs += st[k].jobs, all->job_s += st[k].job_s, all->cpu_s += st[k].cpu_s;
    }
    stretches(js, n, -1, all);
    free(js);

    rs_col cols[] = {{"study", RS_STR, 0},     {"jobs", RS_INT, 0},   {"stretches", RS_INT, 0},
                     {"wall_hours", RS_DBL, 0}, {"job_hours", RS_DBL, 0}, {"cpu_hours", RS_DBL, 0}};
    rs_table *t = rs_table_new("took", cols, RS_ARRAY_LEN(cols));
    RS_CHECK(t, "out of memory");
    printf("study took: %s (gaps over %.0f s between jobs are stops, not counted)\n", dir, GAP_S);
    printf("%-10s %6s %9s %10s %9s %9s\n", "study", "jobs", "stretches", "wall_hours", "job_hours", "cpu_hours");
    for (int k = 0; k <= ns; k++) {
        int r = rs_table_row(t);
        rs_set_str(t, r, "study", st[k].name);
        rs_set_int(t, r, "jobs", st[k].jobs);
        rs_set_int(t, r, "stretches", st[k].stretches);
        rs_set_dbl(t, r, "wall_hours", st[k].wall_s / 3600);
        rs_set_dbl(t, r, "job_hours", st[k].job_s / 3600);
        rs_set_dbl(t, r, "cpu_hours", st[k].cpu_s / 3600);
        printf("%-10s %6d %9d %10.2f %9.2f %9.2f\n", st[k].name, st[k].jobs, st[k].stretches,
               st[k].wall_s / 3600, st[k].job_s / 3600, st[k].cpu_s / 3600);
    }
    snprintf(path, sizeof path, "%s/took.csv", dir);
    remove(path);
    rc = rs_table_write_csv(t, path);
    rs_table_free(t);
    return rc;
}

int cmd_took(int argc, char **argv)
{
    return study_cmd_on_run(argc, argv, NULL, 0, usage, "took", run);
}
