/* pool.c — study_run_points (study_def.h): the pending points of a points file run
 * JOBS at once by fork and exec, here, in this process.
 *
 * Why not GNU parallel: a point is an argument vector (argv.h) that goes to exec
 * unchanged, and a stop must reach every process a point started.  A pool of our own
 * puts each point in its own process group, forwards SIGINT, SIGTERM and SIGHUP to
 * every group (a trainer then checkpoints and stops at its next safe point), and sends
 * SIGKILL to what is left after STOP_GRACE_S; its points die with it if it is killed
 * (point_exec.h).  It writes GNU parallel's joblog format (RUN/joblog.txt), which
 * `study took` reads, so a Slurm array's log and ours are read the same way. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"
#include "point_exec.h"
#include "study_def.h"

#define STOP_GRACE_S 2.5   /* a trainer's step in flight and its checkpoint, within 3 s */

static volatile sig_atomic_t stop_sig;
static void on_stop(int sig)
{
    if (!stop_sig)
        stop_sig = sig;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

/* A GNU parallel joblog line: Seq Host Starttime JobRuntime Send Receive Exitval Signal
 * Command (the command `study point` that runs the same point alone). */
static void joblog(FILE *log, int seq, const point_job *j, int st, const char *run, const char *points)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    double end = (double)tv.tv_sec + tv.tv_usec / 1e6;
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "study point %s %s %s", run, points, j->p->name);
    for (char *c = cmd; *c; c++)
        if (*c == '\t' || *c == '\n' || *c == '\r')
            *c = '?';
    fprintf(log, "%d\t:\t%.3f\t%.3f\t0\t0\t%d\t%d\t%s\n", seq, j->start_s, end - j->start_s,
            WIFEXITED(st) ? WEXITSTATUS(st) : -1, WIFSIGNALED(st) ? WTERMSIG(st) : 0, cmd);
    fflush(log);
}

static FILE *open_joblog(const char *run)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/joblog.txt", run);
    struct stat st;
    int fresh = lstat(path, &st) != 0;
    if (!fresh && !S_ISREG(st.st_mode))
        return NULL;
    FILE *f = fopen(path, "a");
    if (f && fresh)
        fprintf(f, "Seq\tHost\tStarttime\tJobRuntime\tSend\tReceive\tExitval\tSignal\tCommand\n");
    return f;
}

int study_run_points(const char *run, const char *points, int jobs, int out_fd)
{
    pf_points pts;
    if (pf_read(points, &pts) != 0)
        return -1;
    pf_mark_sealed(run);
    FILE *log = open_joblog(run);
    if (!log) {
        pf_free(&pts);
        RS_CHECK(0, "cannot write %s/joblog.txt (not a regular file?)", run);
    }
    int saved_out = -1;
    if (out_fd >= 0) {   /* the points' lines go where the caller says (simulate: stderr) */
        fflush(stdout);
        saved_out = dup(1);
        dup2(out_fd, 1);
    }
    int *todo = malloc(sizeof *todo * (size_t)(pts.n + 1)), ntodo = 0, done = 0;
    point_job *slot = calloc((size_t)jobs, sizeof *slot);
    RS_ASSERT(todo && slot);
    for (int i = 0; i < pts.n; i++) {
        pf_state s = pf_state_of(run, &pts.p[i]);
        if (s == PF_INFEASIBLE)
            point_infeasible(run, &pts.p[i]);
        if (s == PF_DONE || s == PF_INFEASIBLE)
            done++;
        else
            todo[ntodo++] = i;
    }
    char t0[32], session[64];
    snprintf(t0, sizeof t0, "%ld", (long)time(NULL));
    snprintf(session, sizeof session, "%s.%ld", t0, (long)getpid());
    setenv("STUDY_T0", t0, 1);
    setenv("STUDY_SESSION", session, 1);
    printf("study: %s: %d of %d points done; running the rest, %d at once\n", run, done, pts.n, jobs);
    fflush(stdout);

    struct sigaction sa = {.sa_handler = on_stop}, old[3];   /* no SA_RESTART: wait4 returns */
    sigemptyset(&sa.sa_mask);
    int sigs[3] = {SIGINT, SIGTERM, SIGHUP};
    stop_sig = 0;
    for (int k = 0; k < 3; k++)
        sigaction(sigs[k], &sa, &old[k]);
    int next = 0, running = 0, failed = 0, err = 0, seq = 0, forwarded = 0;
    double deadline = 0;
    for (;;) {
        while (!stop_sig && !err && running < jobs && next < ntodo) {
            int k = 0;
            while (slot[k].pid > 0)
                k++;
            int rc = point_start(run, &pts.p[todo[next++]], &slot[k]);
            if (rc < 0) {
                fprintf(stderr, "study: %s\n", rs_lasterr());
                err = 1;
            }
            running += rc == 0;
            if (rc != 0)
                slot[k].pid = 0;
        }
        if (running == 0)
            break;
        if (stop_sig && !forwarded) {   /* every point's process group hears it */
            for (int k = 0; k < jobs; k++)
                if (slot[k].pid > 0)
                    kill(-slot[k].pid, SIGTERM);
            deadline = now_s() + STOP_GRACE_S;
            forwarded = 1;
        }
        int st = 0;
        struct rusage ru = {0};
        pid_t pid = wait4(-1, &st, forwarded ? WNOHANG : 0, &ru);
        if (pid <= 0) {
            if (pid < 0 && errno != EINTR)
                break;
            if (forwarded && now_s() > deadline) {
                for (int k = 0; k < jobs; k++)
                    if (slot[k].pid > 0)
                        kill(-slot[k].pid, SIGKILL);
                deadline = 1e300;
            }
            if (forwarded)
                usleep(20000);
            continue;
        }
        for (int k = 0; k < jobs; k++)
            if (slot[k].pid == pid) {
                if (forwarded)   /* what the point left in its group goes with it */
                    kill(-pid, SIGKILL);
                joblog(log, ++seq, &slot[k], st, run, points);
                int rc = point_finish(run, &pts, &slot[k], st, &ru);
                if (rc < 0) {
                    fprintf(stderr, "study: %s\n", rs_lasterr());
                    err = 1;
                }
                failed += rc == 1;
                slot[k].pid = 0;
                running--;
            }
    }
    for (int k = 0; k < 3; k++)
        sigaction(sigs[k], &old[k], NULL);
    fclose(log);
    free(todo);
    free(slot);
    int left = 0;
    for (int i = 0; i < pts.n; i++)
        left += pf_state_quick(run, &pts.p[i]) == PF_PENDING;
    pf_free(&pts);
    int rc;
    if (stop_sig) {
        printf("study: stopped by SIG%s; %s keeps every finished point (%d to run)\n",
               stop_sig == SIGINT ? "INT" : stop_sig == SIGHUP ? "HUP" : "TERM", run, left);
        rc = stop_sig == SIGINT ? 130 : 143;
    } else if (err)
        rc = 2;
    else if (failed) {
        printf("study: %d points failed (their logs are in %s/points/; a rerun retries them)\n", failed, run);
        rc = 1;
    } else {
        printf("study: every point done\n");
        rc = 0;
    }
    fflush(stdout);
    if (saved_out >= 0) {
        dup2(saved_out, 1);
        close(saved_out);
    }
    return rc;
}

typedef struct {
    const char *run;
    const pf_points *pts;
    int n, failed;
} array_ctx;

static int array_writer(FILE *f, void *vctx)
{
    array_ctx *c = vctx;
    fprintf(f, "# the points still to run of one round, a job array's tasks (study point)\n");
    for (int i = 0; i < c->pts->n; i++) {
        const pf_point *p = &c->pts->p[i];
        pf_state s = pf_state_of(c->run, p);
        if (s == PF_INFEASIBLE)
            point_infeasible(c->run, p);
        c->failed += s == PF_FAILED;
        if (s == PF_PENDING || s == PF_DAMAGED) {
            fprintf(f, "%s %.17g %s %s\n", p->name, p->weight, p->ok, p->command);
            c->n++;
        }
    }
    return 0;
}

int study_array_points(const char *run, const char *points, const char *out, int *failed)
{
    pf_points pts;
    RS_CHECK(unlink(out) == 0 || errno == ENOENT, "cannot replace %s: %s", out, strerror(errno));
    if (pf_read(points, &pts) != 0)
        return -1;
    pf_mark_sealed(run);
    array_ctx c = {run, &pts, 0, 0};
    int rc = rs_write_atomic(out, array_writer, &c);
    pf_free(&pts);
    if (rc == 0 && c.n == 0)   /* nothing to submit: no file that asks for an array */
        unlink(out);
    *failed = c.failed;
    return rc != 0 ? -1 : c.n;
}
