/* driver.c — every study run the same way (study_def.h): the run folder, the settings
 * (checked before anything is created; saved once, kept by a resumed folder), then
 * plan -> points -> plan ... -> collect.  Points run in the pool (pool.c: resume,
 * JOBS at once, a failure recorded while the others run).  With PLAN=1 (a cluster,
 * scaling/slurm/scaling.sh) a round's points are written to WORK/array_points.txt for a
 * job array instead, and the driver stops; run again after the array, it goes on from
 * what the array left.  study_drive returns the exit status, or -1 for bad settings
 * (rs_lasterr: the caller prints it, exit 2). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"
#include "points_file.h"
#include "study_def.h"

/* The one place a new run folder is named: results/runs/<UTC stamp>-<host>. */
void study_new_run_name(char *buf, size_t len)
{
    char host[256] = "host", stamp[32];
    gethostname(host, sizeof host);
    host[strcspn(host, ".")] = 0;
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime(&now));
    snprintf(buf, len, "results/runs/%s-%s", stamp, host);
}

int study_path_ok(const char *what, const char *path)
{
    for (const char *c = path; *c; c++)
        RS_CHECK(*c != '\'' && *c != '"' && *c != '\\' && (unsigned char)*c >= 32 && *c != 127,
                 "%s=%s: a quote, backslash, newline or control character in a run folder's path is not "
                 "taken (gnuplot and the reports quote it); give a path without them", what, path);
    RS_CHECK(path[0], "%s is empty: give a folder", what);
    return 0;
}

char *study_saved_value(const char *file, const char *name)
{
    FILE *f = rs_fopen_read(file);
    char line[4096], *v = NULL;
    size_t n = strlen(name);
    while (f && !v && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = 0;
        size_t l = strlen(line);
        if (strncmp(line, name, n) == 0 && line[n] == '=' && line[n + 1] == '"' && l >= n + 3 &&
            line[l - 1] == '"') {
            line[l - 1] = 0;
            v = strdup(line + n + 2);
        }
    }
    if (f)
        fclose(f);
    return v;
}

static int check_value(const study_setting *s, const char *v)
{
    char *end;
    switch (s->kind) {
    case SET_TEXT: return 0;
    case SET_POS_INTS:
    case SET_OPT_INTS: {
        RS_CHECK(v[strspn(v, " ")] || s->kind == SET_OPT_INTS, "%s is empty: expected a positive integer",
                 s->name);
        char copy[1024], *save;
        RS_CHECK(strlen(v) < sizeof copy, "%s: a list over %zu characters", s->name, sizeof copy - 1);
        snprintf(copy, sizeof copy, "%s", v);
        int n = 0;
        for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save), n++) {
            RS_CHECK(t[strspn(t, "0123456789")] == 0 && strtol(t, NULL, 10) > 0,
                     "%s=%.80s: '%s' is not a positive integer", s->name, v, t);
            RS_CHECK(strlen(t) <= 7 && strtol(t, NULL, 10) <= STUDY_MOST_INT,
                     "%s=%.80s: %s is over %d (a study this large would not end)", s->name, v, t, STUDY_MOST_INT);
        }
        RS_CHECK(n <= STUDY_MOST_LIST, "%s: %d values, over %d", s->name, n, STUDY_MOST_LIST);
        return 0;
    }
    case SET_POS_NUM: {
        double x = strtod(v, &end);
        RS_CHECK(*v && *end == 0 && x > 0 && x < 1e300, "%s=%s: not %s", s->name, v, s->expect);
        return 0;
    }
    case SET_UINT:
        RS_CHECK(*v && v[strspn(v, "0123456789")] == 0 && strlen(v) <= 12, "%s=%.80s: not %s", s->name, v,
                 s->expect);
        return 0;
    case SET_POS_NUMS:
    case SET_OPT_NUMS: {
        RS_CHECK(v[strspn(v, " ")] || s->kind == SET_OPT_NUMS, "%s is empty: expected a number > 0", s->name);
        RS_CHECK(strlen(v) < 1024, "%s: a list over 1023 characters", s->name);
        char copy[1024], *save;
        snprintf(copy, sizeof copy, "%s", v);
        for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
            double x = strtod(t, &end);
            RS_CHECK(*end == 0 && x > 0 && x < 1e300, "%s=%s: '%s' is not a number > 0", s->name, v, t);
        }
        return 0;
    }
    }
    return 0;
}

/* The settings: the folder's saved ones (a value given now that differs is refused),
 * else the environment's, else the defaults; each checked. */
static int resolve(study_run *r, const char *file, int *saved)
{
    const study_def *d = r->def;
    const char *q = getenv("QUICK");
    RS_CHECK(!q || !*q || strcmp(q, "0") == 0 || strcmp(q, "1") == 0,
             "QUICK=%s: expected 1 (the quick grid) or 0 (off)", q);
    int quick = q && strcmp(q, "1") == 0;
    *saved = access(file, F_OK) == 0;
    for (int i = 0; i < d->nsettings; i++) {
        const study_setting *s = &d->settings[i];
        const char *env = getenv(s->name);
        if (*saved) {
            char *v = study_saved_value(file, s->name);
            size_t n = strlen(s->name);
            for (const char *const *a = d->absent; !v && a && *a; a++)
                if (strncmp(*a, s->name, n) == 0 && (*a)[n] == '=')
                    v = strdup(*a + n + 1);
            RS_CHECK(v, "%s has no %s: not a %s settings file (give a new folder)", file, s->name, d->name);
            r->value[i] = v;   /* study_drive frees it, whatever happens next */
            RS_CHECK(!env || strcmp(env, v) == 0, "%s=%s: %s was started with %s=\"%s\" and keeps it "
                     "(unset %s to resume it, or give a new folder)", s->name, env, r->dir, s->name, v, s->name);
        } else if (env && (*env || s->kind == SET_OPT_INTS || s->kind == SET_OPT_NUMS))
            r->value[i] = strdup(env);
        else
            r->value[i] = strdup(quick && s->quick ? s->quick : s->def);
        if (check_value(s, r->value[i]) != 0)
            return -1;
    }
    return 0;
}

static int settings_writer(FILE *f, void *ctx)
{
    const study_run *r = ctx;
    for (int i = 0; i < r->def->nsettings; i++)
        fprintf(f, "%s=\"%s\"\n", r->def->settings[i].name, r->value[i]);
    return ferror(f) ? -1 : 0;
}

int study_save_settings(const study_run *r)
{
    char file[2300], tmp[2400];
    snprintf(file, sizeof file, "%s/%s_settings.txt", r->dir, r->def->name);
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    unlink(tmp);
    RS_CHECK(rs_write_atomic(tmp, settings_writer, (void *)r) == 0 && rename(tmp, file) == 0,
             "cannot write %s: %s", file, rs_lasterr());
    return 0;
}

/* 0 when no finished point's files changed since it was sealed, and (unless partial)
 * every point ran; -1 naming the first that did not and how many (rs_lasterr): a
 * collect never reads a damaged result, nor a missing one as "not reached". */
static int seals_ok(const study_run *r, int partial)
{
    pf_points pts;
    if (access(r->points, F_OK) != 0)
        return 0;
    if (pf_read(r->points, &pts) != 0)
        return -1;
    int bad = 0, missing = 0;
    char first[1024] = "", gone[300] = "";
    for (int i = 0; i < pts.n; i++) {
        pf_state s = pf_state_of(r->work, &pts.p[i]);
        if (s == PF_DAMAGED && bad++ == 0)
            snprintf(first, sizeof first, "%s", rs_lasterr());
        if (s == PF_PENDING && missing++ == 0)
            snprintf(gone, sizeof gone, "%s", pts.p[i].name);
    }
    pf_free(&pts);
    RS_CHECK(partial || missing == 0, "%d point%s of %s never finished or %s gone (first: %s): rerun "
             "build/bin/study run %s %s, or collect the finished ones alone with --partial", missing,
             missing == 1 ? "" : "s", r->points, missing == 1 ? "is" : "are", gone, r->def->name, r->dir);
    RS_CHECK(bad == 0, "%d finished point%s damaged, not read (%s): rerun build/bin/study run %s %s to redo %s",
             bad, bad == 1 ? " is" : "s are", first, r->def->name, r->dir, bad == 1 ? "it" : "them");
    return 0;
}

static int drive(study_run *r, const char *run_arg, int collect_only);

int study_drive(const study_def *d, const char *run_arg, int collect_only)
{
    study_run r = {.def = d};
    int rc = drive(&r, run_arg, collect_only);
    for (int i = 0; i < d->nsettings; i++)
        free((char *)r.value[i]);
    return rc;
}

static int jobs_writer(FILE *f, void *ctx)
{
    return fprintf(f, "%d\n", ((const study_run *)ctx)->jobs) > 0 ? 0 : -1;
}

/* PLAN=1: the round's points still to run, for a job array (STUDY_PLANNED), or 0 when
 * none is left (the next round is planned, or the tables written, here). */
static int plan_round(study_run *r)
{
    char array[2400], jobs[2400];
    snprintf(array, sizeof array, "%s/array_points.txt", r->work);
    snprintf(jobs, sizeof jobs, "%s/array_jobs.txt", r->work);
    int failed = 0, n = study_array_points(r->work, r->points, array, &failed);
    if (n < 0)
        return -1;
    if (failed)
        printf("%s: PLAN=1: %d failed points left out of the array (a run here retries them; their logs are in "
               "%s/points/)\n", r->def->name, failed, r->work);
    if (n == 0) {
        unlink(jobs);
        return failed ? 1 : 0;
    }
    /* the study's JOBS: the array's tasks at once (timed points want 1) */
    RS_CHECK(unlink(jobs) == 0 || errno == ENOENT, "cannot replace %s: %s", jobs, strerror(errno));
    if (rs_write_atomic(jobs, jobs_writer, r) != 0)
        return -1;
    printf("%s: PLAN=1: %d points to run in %s, %d at once, none run here:\n"
           "  sbatch --array=1-%d%%%d scaling/slurm/point.sh '%s' '%s'\n"
           "then the same command again (scaling/slurm/scaling.sh does both until the tables are written)\n",
           r->def->name, n, array, r->jobs, n, r->jobs, r->work, array);
    fflush(stdout);
    return STUDY_PLANNED;
}

static int drive(study_run *r, const char *run_arg, int collect_only)
{
    const study_def *d = r->def;
    int no_collect = collect_only == STUDY_NO_COLLECT;
    if (no_collect)
        collect_only = 0;
    if (run_arg && *run_arg)
        snprintf(r->dir, sizeof r->dir, "%s", run_arg);
    else
        study_new_run_name(r->dir, sizeof r->dir);
    size_t l = strlen(r->dir);
    while (l > 1 && r->dir[l - 1] == '/')
        r->dir[--l] = 0;
    if (study_path_ok("RUN", r->dir) != 0)
        return -1;
    if (d->work)
        snprintf(r->work, sizeof r->work, "%s/%s", r->dir, d->work);
    else
        snprintf(r->work, sizeof r->work, "%s", r->dir);
    char file[2400];
    snprintf(file, sizeof file, "%s/%s_settings.txt", r->work, d->name);
    snprintf(r->points, sizeof r->points, "%s/%s_points.txt", r->work, d->name);
    const char *jvar = d->jobs_var ? d->jobs_var : "JOBS", *jenv = getenv(jvar);
    int saved, jobs = jenv && *jenv ? atoi(jenv) : d->jobs > 0 ? d->jobs : (int)sysconf(_SC_NPROCESSORS_ONLN);
    r->jobs = jobs > 0 ? jobs : 1;
    char doing[128];
    snprintf(doing, sizeof doing, "study %s %s", collect_only ? "collect" : "run", d->name);
    /* an existing folder is held before its settings are read: a second start racing
     * the first is told who holds it, never shown a half-made folder */
    if (access(r->dir, F_OK) == 0 && study_hold(r->dir, doing) != 0)
        return -1;
    if (collect_only) {
        RS_CHECK(access(file, F_OK) == 0 && access(r->points, F_OK) == 0,
                 "%s: no %s study (run build/bin/study run %s %s)", r->dir, d->name, d->name, r->dir);
        if (study_hold(r->dir, doing) != 0)
            return -1;
        if ((d->prepare && d->prepare(r, 1) != 0) || resolve(r, file, &saved) != 0)
            return -1;
        if (seals_ok(r, collect_only == 2) != 0) {
            fprintf(stderr, "%s: %s\n", d->name, rs_lasterr());
            return 1;
        }
        return d->collect(r);
    }
    if ((d->prepare && d->prepare(r, access(file, F_OK) == 0) != 0) || resolve(r, file, &saved) != 0 ||
        d->check(r) != 0)
        return -1;
    RS_CHECK(jenv == NULL || (jobs > 0 && jobs <= 1024 && jenv[strspn(jenv, "0123456789")] == 0),
             "%s=%s: '%s' is not a positive integer (e.g. %s=2)", jvar, jenv, jenv, jvar);
    const char *plan_env = getenv("PLAN");
    int plan = plan_env && strcmp(plan_env, "1") == 0;
    RS_CHECK(!plan_env || !*plan_env || plan || strcmp(plan_env, "0") == 0,
             "PLAN=%s: expected 1 (each round's points written for a job array, none run here) or 0", plan_env);
    if (getenv("STUDY_CHECK") && *getenv("STUDY_CHECK"))
        return 0;
    if (!run_arg || !*run_arg) {
        RS_CHECK(rs_mkdir_p("results/runs") == 0, "cannot create results/runs: %s", strerror(errno));
        RS_CHECK(mkdir(r->dir, 0777) == 0, "%s already exists; not overwriting it", r->dir);
    }
    RS_CHECK(rs_mkdir_p(r->work) == 0, "cannot create %s: %s", r->work, strerror(errno));
    if (study_hold(r->dir, doing) != 0)
        return -1;
    /* held now: what another start made meanwhile is seen.  Points without the settings
     * they ran with cannot be resumed: two models would mix */
    RS_CHECK(saved == (access(file, F_OK) == 0) && (saved || access(r->points, F_OK) != 0),
             "%s has %s's points but no %s_settings.txt (or they were made while this started): the "
             "settings they ran with are unknown here, so it is not resumed (give a new folder, or start again)",
             r->dir, d->name, d->name);
    if (!saved && rs_write_atomic(file, settings_writer, r) != 0)
        return -1;
    printf("%s: run folder %s\n", d->name, r->dir);
    for (int i = 0; i < d->nsettings; i++)
        printf("%s:   %s=\"%s\"\n", d->name, d->settings[i].name, r->value[i]);
    fflush(stdout);
    int status = 0;
    for (int first = 1;; first = 0) {   /* the first pass runs what a stopped run left */
        r->added = 0;
        int rc = d->plan(r);
        if (rc < 0)
            return -1;
        if (rc > 0) {
            fprintf(stderr, "%s: %s\n", d->name, rs_lasterr());
            return 1;
        }
        if ((r->added == 0 && !first) || access(r->points, F_OK) != 0)
            break;   /* nothing added, or nothing to run at all */
        if (plan) {
            rc = plan_round(r);
            if (rc == STUDY_PLANNED)
                return rc;
        } else
            rc = study_run_points(r->work, r->points, r->jobs, -1);
        if (rc < 0)
            return -1;
        if (rc == 130 || rc == 143) {
            printf("%s: interrupted; rerun with RUN=%s to resume\n", d->name, r->dir);
            return rc;
        }
        status |= rc != 0;
    }
    if (seals_ok(r, 0) != 0) {   /* changed while this run ran: not read */
        fprintf(stderr, "%s: %s\n", d->name, rs_lasterr());
        return 1;
    }
    if (no_collect)
        return status;
    int rc = d->collect(r);
    if (rc < 0)
        fprintf(stderr, "%s: %s\n", d->name, rs_lasterr());
    return rc != 0 ? 1 : status;
}
