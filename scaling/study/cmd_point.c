/* cmd_point.c — a study's points, run one at a time by whatever runs them (GNU parallel
 * on one machine, a Slurm array on a cluster; scaling/study.sh):
 *   study point RUN POINTS NAME|N   the point (by name, or the N-th: an array task) in
 *       RUN/points/NAME/: cmd, stdout.txt, stderr.txt, seconds, cpu_seconds (user and
 *       system, its children's included: its cost on an idle machine), session, then rc
 *       (last: a point is done when rc holds one of its OK codes).  A done point is skipped; a
 *       failed or stopped one is moved aside to NAME.attempt-K and runs again, except a
 *       stopped one whose ckpt/ holds files: it runs again in its folder, so a command
 *       that checkpoints there continues (rnn-train --checkpoint ckpt --resume-if-any),
 *       its output appended (a done point's ckpt/ is removed).  LAUNCH is
 *       put before the command (LAUNCH="mpirun -np 4"); STUDY_ROOT/build/bin (default:
 *       the current folder's) comes first on PATH.
 *   study pending RUN POINTS [--failed]   the names still to run (or only the failed),
 *       in the file's order; an infeasible point is recorded on the way
 *   study status RUN POINTS [--tally]     counts per state ("D T" with --tally)
 * Exit: 0; 1 the point failed; 2 bad usage or a malformed points file; 130/143 when the
 * point was stopped (it stays pending). */
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
            printf("usage: %s\nPoints files: scaling/study/points_file.h; scaling/study.sh runs them.\n", usage);
            return 1;
        }
    return 0;
}

static int write_text(const char *dir, const char *file, const char *text)
{
    char path[4400], tmp[4500];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    int ok = f && fprintf(f, "%s\n", text) >= 0;
    ok = f && fclose(f) == 0 && ok && rename(tmp, path) == 0;
    RS_CHECK(ok, "cannot write %s: %s", path, strerror(errno));
    return 0;
}

static void record_infeasible(const char *run, const pf_point *p)
{
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/points/%s", run, p->name);
    snprintf(path, sizeof path, "%s/infeasible", dir);
    if (access(path, F_OK) != 0 && rs_mkdir_p(dir) == 0)
        write_text(dir, "infeasible", p->command);
}

/* "[done/total] ... ETA": the weight this session finished against the weight left. */
static void progress(const char *run, const pf_points *pts, const pf_point *p, int rc, long secs)
{
    const char *session = getenv("STUDY_SESSION"), *t0 = getenv("STUDY_T0");
    int done = 0;
    double wn = 0, wl = 0;
    for (int i = 0; i < pts->n; i++) {
        pf_state s = pf_state_of(run, &pts->p[i]);
        done += s == PF_DONE || s == PF_INFEASIBLE;
        if (s == PF_PENDING || s == PF_FAILED)
            wl += pts->p[i].weight;
        char path[4200], was[128] = "";
        snprintf(path, sizeof path, "%s/points/%s/session", run, pts->p[i].name);
        FILE *f = s == PF_DONE && session ? fopen(path, "r") : NULL;
        if (f && fgets(was, sizeof was, f) && strncmp(was, session, strlen(session)) == 0)
            wn += pts->p[i].weight;
        if (f)
            fclose(f);
    }
    char eta[32] = "?";
    double el = t0 ? (double)(time(NULL) - atol(t0)) : 0;
    if (wl == 0)
        snprintf(eta, sizeof eta, "done");
    else if (wn > 0) {
        long s = (long)(el * wl / wn);
        snprintf(eta, sizeof eta, "%ldm%02lds", s / 60, s % 60);
    }
    printf("study: [%d/%d] %s rc=%d %lds; ETA %s\n", done, pts->n, p->name, rc, secs, eta);
}

/* A stopped point (no rc) whose ckpt/ holds a file not starting with '.' (a lock). */
static int continues(const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/rc", dir);
    if (access(path, F_OK) == 0)
        return 0;
    snprintf(path, sizeof path, "%s/ckpt", dir);
    DIR *d = opendir(path);
    int any = 0;
    for (struct dirent *e; d && !any && (e = readdir(d));)
        any = e->d_name[0] != '.';
    if (d)
        closedir(d);
    return any;
}

static int run_point(const char *run, const pf_points *pts, const pf_point *p)
{
    if (strcmp(p->ok, "x") == 0) {
        record_infeasible(run, p);
        return 0;
    }
    if (pf_state_of(run, p) == PF_DONE)
        return 0;
    char dir[4096], aside[4200], cmd[16384], root[4096], path0[4200];
    snprintf(dir, sizeof dir, "%s/points/%s", run, p->name);
    int again = continues(dir);
    long before = again ? (long)study_point_number(dir, "seconds") : 0;
    double cpu_before = again ? study_point_number(dir, "cpu_seconds") : 0;
    if (!again && access(dir, F_OK) == 0) {
        for (int k = 1;; k++) {
            snprintf(aside, sizeof aside, "%s.attempt-%d", dir, k);
            if (access(aside, F_OK) != 0)
                break;
        }
        RS_CHECK(rename(dir, aside) == 0, "cannot move %s aside: %s", dir, strerror(errno));
    }
    RS_CHECK(rs_mkdir_p(dir) == 0, "cannot create %s: %s", dir, strerror(errno));
    const char *launch = getenv("LAUNCH");
    snprintf(cmd, sizeof cmd, "%s%s%s", launch && *launch ? launch : "", launch && *launch ? " " : "",
             p->command);
    const char *r0 = getenv("STUDY_ROOT");   /* scaling/study.sh's: the repository */
    if (r0 && *r0)
        snprintf(root, sizeof root, "%s", r0);
    if (write_text(dir, "cmd", cmd) != 0 || (!(r0 && *r0) && !getcwd(root, sizeof root)))
        return -1;
    struct sigaction note = {.sa_handler = SIG_IGN}, old_int, old_term;
    sigaction(SIGINT, &note, &old_int);   /* the point hears it too: this waits for it */
    sigaction(SIGTERM, &note, &old_term);
    time_t t0 = time(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        char out[4200], err[4200], path[8192];
        snprintf(out, sizeof out, "%s/stdout.txt", dir);
        snprintf(err, sizeof err, "%s/stderr.txt", dir);
        snprintf(path, sizeof path, "%s/build/bin:%s", root, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
        int how = O_WRONLY | O_CREAT | (again ? O_APPEND : O_TRUNC);
        int o = open(out, how, 0644), e = open(err, how, 0644);
        if (o < 0 || e < 0 || chdir(dir) != 0)
            _exit(126);
        dup2(o, 1);
        dup2(e, 2);
        setenv("PATH", path, 1);
        sigaction(SIGINT, &old_int, NULL);
        sigaction(SIGTERM, &old_term, NULL);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    struct rusage ru = {0};   /* the point's and its waited-for children's CPU time */
    while (pid > 0 && wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {
    }
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    RS_CHECK(pid > 0, "cannot start %s: %s", p->name, strerror(errno));
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    long secs = (long)(time(NULL) - t0) + (again ? before : 0);
    char buf[64], cpu[64];
    snprintf(buf, sizeof buf, "%ld", secs);
    snprintf(cpu, sizeof cpu, "%.1f", cpu_before + proc_cpu_seconds(&ru));
    if (write_text(dir, "cpu_seconds", cpu) != 0)
        return -1;
    if (rc == 130 || rc == 143) {   /* the time so far, for a run that continues */
        printf("study: %s interrupted\n", p->name);
        return write_text(dir, "seconds", buf) != 0 ? -1 : rc;
    }
    const char *session = getenv("STUDY_SESSION");
    if (write_text(dir, "seconds", buf) != 0 || write_text(dir, "session", session ? session : "") != 0)
        return -1;
    snprintf(buf, sizeof buf, "%d", rc);
    if (write_text(dir, "rc", buf) != 0)
        return -1;
    progress(run, pts, p, rc, secs);
    if (pf_state_of(run, p) == PF_DONE) {   /* its checkpoints served only to continue it */
        snprintf(path0, sizeof path0, "%s/ckpt", dir);
        study_remove_tree(path0);
        return 0;
    }
    char path[4200], line[4096] = "", last[4096] = "";
    snprintf(path, sizeof path, "%s/stderr.txt", dir);
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        snprintf(last, sizeof last, "%s", line);
    if (f)
        fclose(f);
    last[strcspn(last, "\n")] = 0;
    printf("study: %s failed (exit %d): %s\n", p->name, rc, last);
    return 1;
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
    int rc = p ? run_point(argv[1], &pts, p) : -1;
    if (!p)
        rs_seterr("no point '%s' in %s", argv[3], argv[2]);
    if (rc < 0)
        fprintf(stderr, "study point: %s\n", rs_lasterr());
    pf_free(&pts);
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
            record_infeasible(argv[1], &pts.p[i]);
        else if (s == PF_FAILED || (s == PF_PENDING && !failed_only))
            printf("%s\n", pts.p[i].name);
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
    int n[4] = {0};
    for (int i = 0; i < pts.n; i++)
        n[pf_state_of(argv[1], &pts.p[i])]++;
    if (tally)
        printf("%d %d\n", n[PF_DONE] + n[PF_INFEASIBLE], pts.n);
    else {
        static const char *const names[] = {"pending", "done", "failed", "infeasible"};
        static const int order[] = {PF_DONE, PF_FAILED, PF_INFEASIBLE, PF_PENDING};
        for (int k = 0; k < 4; k++)
            if (n[order[k]])
                printf("%s %d  ", names[order[k]], n[order[k]]);
        printf("\n");
    }
    pf_free(&pts);
    return 0;
}
