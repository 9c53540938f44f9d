/* cmd_point.c — a study's points from outside `study run` (which runs them itself,
 * pool.c):
 *   study point RUN POINTS NAME|N   the point (by name, or the N-th: a Slurm array
 *       task) in RUN/points/NAME/ (point_exec.h: what it writes, and how a stopped
 *       one continues); a done point is skipped.  It holds the run folder's lock
 *       shared and the point's own exclusively, so array tasks run side by side but
 *       never beside `study run` or `collect`, nor one point twice.
 *   study pending RUN POINTS [--failed]   the names still to run (or only the failed),
 *       in the file's order; an infeasible point is recorded on the way, a damaged
 *       one named on stderr
 *   study status RUN POINTS [--tally]     counts per state ("D T" with --tally)
 * Exit: 0; 1 the point failed; 2 bad usage, a malformed points file or a busy run
 * folder; 130/143 when the point was stopped (it stays pending). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
#include "proc.h"
#include "study.h"
#include "point_exec.h"
#include "study_def.h"

static int usage_error(const char *verb, const char *what)
{
    fprintf(stderr, "study %s: %s\n", verb, what);
    return 2;
}

/* --help: 1 (the usage printed) when argv asks for it. */
static int help(int argc, char **argv, const char *usage)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: %s\nPoints files: scaling/study/points_file.h; study run (pool.c) runs them.\n", usage);
            return 1;
        }
    return 0;
}

static volatile sig_atomic_t stop_sig;
static void on_stop(int sig) { stop_sig = sig; }

/* The point alone (a Slurm array task): a signal to this process is passed to the
 * point's process group, which then stops as it would under study run. */
static int run_one(const char *run, const pf_points *pts, const pf_point *p)
{
    point_job j;
    struct sigaction sa = {.sa_handler = on_stop}, old_int, old_term;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int rc = point_start(run, p, &j);
    if (rc != 0) {
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        return rc < 0 ? -1 : 0;
    }
    int st = 0, sent = 0;
    struct rusage ru = {0};
    while (wait4(j.pid, &st, 0, &ru) < 0 && errno == EINTR)
        if (stop_sig && !sent++)
            kill(-j.pid, SIGTERM);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return point_finish(run, pts, &j, st, &ru);
}

/* Shared start: RUN POINTS read and checked; -1 printed. */
static int open_points(const char *verb, int argc, char **argv, int nargs, pf_points *pts)
{
    if (argc < nargs + 1 || argc > nargs + 2)
        return usage_error(verb, "expected RUN POINTS" ), -1;
    struct stat st;
    if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "study %s: no run folder %s\n", verb, argv[1]);
        return -1;
    }
    if (pf_read(argv[2], pts) != 0) {
        fprintf(stderr, "study %s: %s\n", verb, rs_lasterr());
        return -1;
    }
    return 0;
}

int cmd_point(int argc, char **argv)
{
    pf_points pts;
    if (help(argc, argv, "study point RUN POINTS NAME|N   (one point, in RUN/points/NAME/)"))
        return 0;
    if (argc != 4)
        return usage_error("point", "expected RUN POINTS NAME|N");
    if (open_points("point", argc - 1, argv, 2, &pts) != 0)
        return 2;
    const pf_point *p = pf_find(&pts, argv[3]);
    if (p)
        pf_mark_sealed(argv[1]);
    int rc = p ? study_hold_point(argv[1], p->name) : -1;
    if (rc == 0)
        rc = run_one(argv[1], &pts, p);
    if (!p)
        rs_seterr("no point '%s' in %s", argv[3], argv[2]);
    if (rc < 0)
        fprintf(stderr, "study point: %s\n", rs_lasterr());
    pf_free(&pts);
    return rc < 0 ? 2 : rc;
}

int cmd_run_points(int argc, char **argv)
{
    if (help(argc, argv, "study run-points RUN POINTS   (every pending point, JOBS at once: pool.c)"))
        return 0;
    if (argc != 3)
        return usage_error("run-points", "expected RUN POINTS");
    struct stat st;
    if (stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode))
        return usage_error("run-points", "RUN is not a folder");
    const char *j = getenv("JOBS");
    char *end;
    long jobs = j && *j ? strtol(j, &end, 10) : 1;
    if (j && *j && (*end || jobs < 1 || jobs > 1024))
        return usage_error("run-points", "JOBS is not a whole number from 1 to 1024");
    if (study_hold(argv[1], "study run-points") != 0)
        return usage_error("run-points", rs_lasterr());
    int rc = study_run_points(argv[1], argv[2], (int)jobs, -1);
    if (rc < 0)
        fprintf(stderr, "study run-points: %s\n", rs_lasterr());
    return rc < 0 ? 2 : rc;
}

int cmd_pending(int argc, char **argv)
{
    pf_points pts;
    if (help(argc, argv, "study pending RUN POINTS [--failed]   (the points still to run)"))
        return 0;
    int failed_only = argc == 4 && strcmp(argv[3], "--failed") == 0;
    if (argc == 4 && !failed_only)
        return usage_error("pending", "expected RUN POINTS [--failed]");
    if (open_points("pending", argc, argv, 2, &pts) != 0)
        return 2;
    for (int i = 0; i < pts.n; i++) {
        pf_state s = pf_state_of(argv[1], &pts.p[i]);
        if (s == PF_INFEASIBLE)
            point_infeasible(argv[1], &pts.p[i]);
        else if (s == PF_FAILED || s == PF_DAMAGED || (s == PF_PENDING && !failed_only))
            printf("%s\n", pts.p[i].name);
        if (s == PF_DAMAGED)
            fprintf(stderr, "study pending: %s: %s\n", pts.p[i].name, rs_lasterr());
    }
    pf_free(&pts);
    return 0;
}

int cmd_status(int argc, char **argv)
{
    pf_points pts;
    if (help(argc, argv, "study status RUN POINTS [--tally]   (the points counted by state)"))
        return 0;
    int tally = argc == 4 && strcmp(argv[3], "--tally") == 0;
    if (argc == 4 && !tally)
        return usage_error("status", "expected RUN POINTS [--tally]");
    if (open_points("status", argc, argv, 2, &pts) != 0)
        return 2;
    int n[5] = {0};
    for (int i = 0; i < pts.n; i++)
        n[pf_state_of(argv[1], &pts.p[i])]++;
    if (tally)
        printf("%d %d\n", n[PF_DONE] + n[PF_INFEASIBLE], pts.n);
    else {
        static const char *const names[] = {"pending", "done", "failed", "infeasible", "damaged"};
        static const int order[] = {PF_DONE, PF_FAILED, PF_DAMAGED, PF_INFEASIBLE, PF_PENDING};
        for (int k = 0; k < 5; k++)
            if (n[order[k]])
                printf("%s %d  ", names[order[k]], n[order[k]]);
        printf("\n");
    }
    pf_free(&pts);
    return 0;
}
