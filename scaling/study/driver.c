/* driver.c — every study run the same way (study_def.h): the run folder, the settings
 * (checked before anything is created; saved once, kept by a resumed folder), then
 * plan -> points -> plan ... -> collect.  Points run under scaling/study.sh (resume,
 * JOBS at once, a failure recorded while the others run).  study_drive returns the exit
 * status, or -1 for bad settings (rs_lasterr: the caller prints it, exit 2). */
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

char *study_saved_value(const char *file, const char *name)
{
    FILE *f = fopen(file, "r");
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
        snprintf(copy, sizeof copy, "%s", v);
        for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save))
            RS_CHECK(t[strspn(t, "0123456789")] == 0 && strtol(t, NULL, 10) > 0,
                     "%s=%s: '%s' is not a positive integer", s->name, v, t);
        return 0;
    }
    case SET_POS_NUM: {
        double x = strtod(v, &end);
        RS_CHECK(*v && *end == 0 && x > 0 && x < 1e300, "%s=%s: not %s", s->name, v, s->expect);
        return 0;
    }
    case SET_UINT:
        RS_CHECK(*v && v[strspn(v, "0123456789")] == 0, "%s=%s: not %s", s->name, v, s->expect);
        return 0;
    case SET_POS_NUMS: {
        RS_CHECK(v[strspn(v, " ")], "%s is empty: expected a number > 0", s->name);
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
    int quick = getenv("QUICK") && *getenv("QUICK");
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
        } else if (env && (*env || s->kind == SET_OPT_INTS))
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

static void note_signal(int sig) { (void)sig; }

int study_run_points(const char *dir, const char *points, int jobs, int out_fd)
{
    char j[16], sh[4200];
    snprintf(j, sizeof j, "%d", jobs);
    snprintf(sh, sizeof sh, "%s/scaling/study.sh", study_root());
    struct sigaction wait_for_it = {.sa_handler = note_signal}, old_int, old_term;
    sigaction(SIGINT, &wait_for_it, &old_int);
    sigaction(SIGTERM, &wait_for_it, &old_term);
    fflush(NULL);   /* what the plan printed comes before the points' lines */
    pid_t pid = fork();
    if (pid == 0) {
        setenv("JOBS", j, 1);
        if (out_fd >= 0)
            dup2(out_fd, 1);
        execlp("sh", "sh", sh, "run", dir, points, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    RS_CHECK(pid > 0, "cannot start scaling/study.sh: %s", strerror(errno));
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
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

static int drive(study_run *r, const char *run_arg, int collect_only)
{
    const study_def *d = r->def;
    if (run_arg && *run_arg)
        snprintf(r->dir, sizeof r->dir, "%s", run_arg);
    else
        study_new_run_name(r->dir, sizeof r->dir);
    size_t l = strlen(r->dir);
    while (l > 1 && r->dir[l - 1] == '/')
        r->dir[--l] = 0;
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
    if (collect_only) {
        RS_CHECK(access(file, F_OK) == 0 && access(r->points, F_OK) == 0,
                 "%s: no %s study (run build/bin/study run %s %s)", r->dir, d->name, d->name, r->dir);
        if ((d->prepare && d->prepare(r, 1) != 0) || resolve(r, file, &saved) != 0)
            return -1;
        return d->collect(r);
    }
    if ((d->prepare && d->prepare(r, access(file, F_OK) == 0) != 0) || resolve(r, file, &saved) != 0 ||
        d->check(r) != 0)
        return -1;
    RS_CHECK(jenv == NULL || (jobs > 0 && jenv[strspn(jenv, "0123456789")] == 0),
             "%s=%s: '%s' is not a positive integer (e.g. %s=2)", jvar, jenv, jenv, jvar);
    if (getenv("STUDY_CHECK") && *getenv("STUDY_CHECK"))
        return 0;
    if (!run_arg || !*run_arg) {
        RS_CHECK(rs_mkdir_p("results/runs") == 0, "cannot create results/runs: %s", strerror(errno));
        RS_CHECK(mkdir(r->dir, 0777) == 0, "%s already exists; not overwriting it", r->dir);
    }
    RS_CHECK(rs_mkdir_p(r->work) == 0, "cannot create %s: %s", r->work, strerror(errno));
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
        if (rc == STUDY_PLAN_STOP)
            return 0;
        if (rc > 0) {
            fprintf(stderr, "%s: %s\n", d->name, rs_lasterr());
            return 1;
        }
        if ((r->added == 0 && !first) || access(r->points, F_OK) != 0)
            break;   /* nothing added, or nothing to run at all */
        rc = study_run_points(r->work, r->points, r->jobs, -1);
        if (rc < 0)
            return -1;
        if (rc == 130 || rc == 143) {
            printf("%s: interrupted; rerun with RUN=%s to resume\n", d->name, r->dir);
            return rc;
        }
        status |= rc != 0;
    }
    int rc = d->collect(r);
    if (rc < 0)
        fprintf(stderr, "%s: %s\n", d->name, rs_lasterr());
    return rc != 0 ? 1 : status;
}
