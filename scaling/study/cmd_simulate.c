/* cmd_simulate.c — `study simulate [options]` (study simulate launches it; --help):
 * the options checked, a work folder (--keep DIR, else a temporary one), then
 *   plan    the platforms and the jobs (simulate_plan.c); --plan stops here
 *   run     every job in the pool (pool.c), JOBS=--jobs at once, the longest first
 *           (each job is the point `study simulate --keep WORK --run-job ID`)
 *   collect the rows, the Caffe comparison with --experiment, the files, the summary;
 *           --collect does this alone, from jobs that ran elsewhere (make simulate)
 * Exit: 0 ok, 1 a project algorithm's result was wrong (the `wrong` column) or one of its
 * points could not be simulated (the `note` column), 2 bad usage (one line on stderr),
 * 130 interrupted.  SMPI built-ins' wrong results and crashes are reported in the same
 * columns and on stderr, but are SMPI's and do not fail the run. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"
#include "simulate.h"
#include "study.h"
#include "study_def.h"

static int work_folder(const sim_opts *o, char *work, size_t len)
{
    if (o->keep) {
        RS_CHECK(rs_mkdir_p(o->keep) == 0 && realpath(o->keep, work), "--keep: cannot create %s", o->keep);
        return 0;
    }
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(work, len, "%s/rnnscale-simulate-XXXXXX", tmp);
    RS_CHECK(mkdtemp(work), "cannot create a work folder");
    return 0;
}

/* --run-job ID[,ID]: 0 when one of them gave rows, 1 none, -1 a bad folder or id. */
static int run_jobs(const char *work, const char *ids)
{
    char path[4300], copy[4096], *save;
    snprintf(path, sizeof path, "%s/settings", work);
    RS_CHECK(access(path, F_OK) == 0, "--run-job: %s holds no planned simulations (--plan first)", work);
    snprintf(copy, sizeof copy, "%s", ids);
    for (char *id = strtok_r(copy, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
        snprintf(path, sizeof path, "%s/jobs/%s.env", work, id);
        RS_CHECK(access(path, F_OK) == 0, "--run-job: no simulation %s in %s", id, work);
    }
    int ran = 0;
    snprintf(copy, sizeof copy, "%s", ids);
    for (char *id = strtok_r(copy, ",", &save); id; id = strtok_r(NULL, ",", &save)) {
        int r = sim_run_job(work, id);
        if (r < 0)
            return -1;
        ran |= r;
    }
    if (!ran)   /* the point failed (a resumed sweep runs it again) */
        fprintf(stderr, "simulate: %s: every size failed (logs: %s/jobs/)\n", ids, work);
    return !ran;
}

static int by_weight(const void *a, const void *b)
{
    const sim_job *x = *(sim_job *const *)a, *y = *(sim_job *const *)b;
    return x->w != y->w ? (x->w < y->w ? 1 : -1) : strcmp(x->id, y->id);
}

/* Every job as a point of the pool, the heaviest first, so that the last ones
 * to finish are short: the exit status of the run (130/143 when stopped). */
static int run_all(const sim_opts *o, const sim_plan *pl, const char *work, long long *elapsed)
{
    char points[4300], nodes[4096] = "";
    snprintf(points, sizeof points, "%s/points", work);
    study_remove_tree(points);   /* every job runs again, as the plan may have changed */
    snprintf(points, sizeof points, "%s/points.txt", work);
    const sim_job **order = malloc(sizeof *order * (size_t)(pl->njobs + 1));
    RS_ASSERT(order != NULL);
    for (int i = 0; i < pl->njobs; i++)
        order[i] = &pl->job[i];
    qsort(order, (size_t)pl->njobs, sizeof *order, by_weight);
    FILE *f = fopen(points, "w");
    for (int i = 0; f && i < pl->njobs; i++) {
        study_argv c = {0};
        sa_add(&c, "%s", study_self());
        sa_add(&c, "simulate");
        sa_opt(&c, "--keep", "%s", work);
        sa_opt(&c, "--run-job", "%s", order[i]->id);
        char *line = sa_encode(&c);
        fprintf(f, "%s %lld 0 %s\n", order[i]->id, order[i]->w, line);
        free(line);
        sa_free(&c);
    }
    free(order);
    RS_CHECK(f && fclose(f) == 0, "cannot write %s: %s", points, strerror(errno));
    size_t n = 0;
    for (int i = 0; i < o->nnodes; i++)
        n += (size_t)snprintf(nodes + n, sizeof nodes - n, "%s%d", i ? "," : "", o->nodes[i]);
    fprintf(stderr, "simulate: %d simulations (%s, %s, nodes: %s), work folder %s\n", pl->njobs, o->platform,
            o->placement, nodes, work);
    time_t t0 = time(NULL);
    int rc = pl->njobs ? study_run_points(work, points, o->jobs, 2) : 0;
    *elapsed = (long long)(time(NULL) - t0);
    if (rc != 130 && rc != 143)
        fprintf(stderr, "simulate: %d simulations in %lld min %lld s\n", pl->njobs, *elapsed / 60, *elapsed % 60);
    return rc;
}

/* --collect: the jobs ran elsewhere, one after another in cost; those without an rc
 * have not run. */
static long long ran_elsewhere(const sim_plan *pl, const char *work, int *unrun)
{
    char path[8192], dir[4300];
    long long s = 0;
    snprintf(dir, sizeof dir, "%s/jobs", work);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 8 && strcmp(e->d_name + l - 8, ".seconds") == 0) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            FILE *f = rs_fopen_read(path);
            long long v = 0;
            if (f && fscanf(f, "%lld", &v) == 1)
                s += v;
            if (f)
                fclose(f);
        }
    }
    if (d)
        closedir(d);
    *unrun = 0;
    for (int i = 0; i < pl->njobs; i++) {
        snprintf(path, sizeof path, "%s/jobs/%s.rc", work, pl->job[i].id);
        *unrun += access(path, F_OK) != 0;
    }
    return s;
}

static int simulate(const sim_opts *o, const char *work)
{
    if (o->run_ids)
        return run_jobs(work, o->run_ids);
    sim_plan pl;
    if (sim_plan_make(o, work, !o->collect, !o->collect, &pl) != 0)
        return -1;
    if (o->plan) {
        fprintf(stderr, "simulate: %d simulations planned in %s (run each with --keep %s --run-job ID)\n",
                pl.njobs, work, work);
        sim_plan_free(&pl);
        return 0;
    }
    int status = 0, unrun = 0;
    long long elapsed = 0;
    if (o->collect)
        elapsed = ran_elsewhere(&pl, work, &unrun);
    else {
        int rc = run_all(o, &pl, work, &elapsed);
        if (rc == 130 || rc == 143) {
            fprintf(stderr, "simulate: interrupted\n");
            sim_plan_free(&pl);
            return 130;
        }
    }
    if (unrun > 0) {
        status = 1;
        fprintf(stderr, "simulate: %d planned simulations have not run (--run-job): their rows are missing\n", unrun);
    }
    rs_table *rows = sim_rows(o, &pl, work, &status), *out = rows;
    if (o->experiment)
        out = sim_caffe(o, rows);
    if (sim_write(o, &pl, work, out, elapsed) != 0) {
        fprintf(stderr, "simulate: %s\n", rs_lasterr());
        status = 2;
    }
    sim_summary(o, out, stdout);
    if (out != rows)
        rs_table_free(out);
    rs_table_free(rows);
    sim_plan_free(&pl);
    return status;
}

int cmd_simulate(int argc, char **argv)
{
    sim_opts o;
    int rc = sim_opts_parse(&o, argc, argv);
    if (rc == 1)
        return 0;
    char work[4096];
    if (rc != 0 || sim_opts_programs(&o) != 0 || work_folder(&o, work, sizeof work) != 0) {
        fprintf(stderr, "simulate: %s\n", rs_lasterr());
        return 2;
    }
    rc = simulate(&o, work);
    if (rc < 0) {
        fprintf(stderr, "simulate: %s\n", rs_lasterr());
        rc = 2;
    }
    if (!o.keep)
        study_remove_tree(work);
    return rc;
}
