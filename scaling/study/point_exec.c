/* point_exec.c — one point started and finished (point_exec.h). */
#define _GNU_SOURCE
#include "point_exec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"
#include "proc.h"
#include "study_def.h"

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

void point_infeasible(const char *run, const pf_point *p)
{
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/points/%s", run, p->name);
    snprintf(path, sizeof path, "%s/infeasible", dir);
    if (access(path, F_OK) != 0 && rs_mkdir_p(dir) == 0)
        write_text(dir, "infeasible", p->command);
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

/* ---- the point's supervisor: the process between the study and the command ----
 * It leads the point's process group and waits for the command.  Should the study die
 * (SIGKILL: no handler of its runs), the kernel sends the supervisor SIGUSR2
 * (PR_SET_PDEATHSIG), and it ends the whole group: SIGTERM (a trainer checkpoints),
 * then SIGKILL after the grace.  A stop from the study or a terminal reaches the group
 * itself, so the supervisor only waits then: a second SIGTERM would make a trainer
 * drop the checkpoint it is writing.  When the command ends, what it left running in
 * the group is ended too.  Its exit status is the command's. */
static volatile sig_atomic_t orphaned;
static void on_orphaned(int sig) { (void)sig, orphaned = 1; }
static void on_stop_seen(int sig) { (void)sig; }

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static int supervise(const char *dir, int o, int e, const char *path, char *const argv[])
{
    struct sigaction sa = {.sa_handler = on_orphaned}, seen = {.sa_handler = on_stop_seen};
    sigemptyset(&sa.sa_mask);
    sigemptyset(&seen.sa_mask);
    sigaction(SIGUSR2, &sa, NULL);
    sigaction(SIGTERM, &seen, NULL);
    sigaction(SIGINT, &seen, NULL);
    sigaction(SIGHUP, &seen, NULL);
    pid_t self = getpid();
    prctl(PR_SET_PDEATHSIG, SIGUSR2);
    if (getppid() == 1 || orphaned)   /* the study died before the line above */
        return 143;
    pid_t cmd = fork();
    if (cmd == 0) {
        proc_child_setup(self);
        if (chdir(dir) != 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
            _exit(126);
        setenv("PATH", path, 1);
        execvp(argv[0], argv);
        fprintf(stderr, "study: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (cmd < 0)
        return 126;
    int st = 0, sent = 0;
    double deadline = 0;
    for (;;) {
        pid_t w = waitpid(cmd, &st, orphaned ? WNOHANG : 0);
        if (w == cmd)
            break;
        if (w < 0 && errno != EINTR)
            return 126;
        if (orphaned && !sent++) {
            signal(SIGTERM, SIG_IGN);
            kill(-self, SIGTERM);
            deadline = mono_s() + 2.5;
        } else if (orphaned && mono_s() > deadline) {
            kill(-self, SIGKILL);   /* this process too: nothing is left to tell */
        }
        if (orphaned)
            usleep(20000);
    }
    signal(SIGTERM, SIG_IGN);
    kill(-self, SIGTERM);   /* what the command left behind in its group */
    if (WIFSIGNALED(st)) {   /* passed on as it came, so the study reads it alike */
        int sig = WTERMSIG(st);
        signal(sig, SIG_DFL);
        sigset_t one;
        sigemptyset(&one);
        sigaddset(&one, sig);
        sigprocmask(SIG_UNBLOCK, &one, NULL);
        kill(self, sig);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int point_start(const char *run, const pf_point *p, point_job *j)
{
    *j = (point_job){.p = p};
    if (strcmp(p->ok, "x") == 0) {
        point_infeasible(run, p);
        return 1;
    }
    pf_state s = pf_state_of(run, p);
    snprintf(j->dir, sizeof j->dir, "%s/points/%s", run, p->name);
    if (s == PF_DONE)
        return 1;
    if (s == PF_DAMAGED)
        printf("study: %s: %s; it runs again\n", p->name, rs_lasterr());
    j->again = continues(j->dir);
    j->before = j->again ? (long)study_point_number(j->dir, "seconds") : 0;
    j->cpu_before = j->again ? study_point_number(j->dir, "cpu_seconds") : 0;
    if (!j->again && access(j->dir, F_OK) == 0) {
        char aside[4200];
        for (int k = 1;; k++) {
            snprintf(aside, sizeof aside, "%s.attempt-%d", j->dir, k);
            if (access(aside, F_OK) != 0)
                break;
        }
        RS_CHECK(rename(j->dir, aside) == 0, "cannot move %s aside: %s", j->dir, strerror(errno));
    }
    RS_CHECK(rs_mkdir_p(j->dir) == 0, "cannot create %s: %s", j->dir, strerror(errno));
    study_argv cmd = {0};
    const char *launch = getenv("LAUNCH");
    if (launch)
        sa_words(&cmd, launch);   /* "mpirun -np 4": words, never a shell's text */
    sa_cat(&cmd, &p->argv);
    char *shown = sa_display(&cmd);
    int wrote = write_text(j->dir, "cmd", shown);
    free(shown);
    char out[4200], err[4200], path[8192];
    snprintf(out, sizeof out, "%s/stdout.txt", j->dir);
    snprintf(err, sizeof err, "%s/stderr.txt", j->dir);
    snprintf(path, sizeof path, "%s/build/bin:%s", study_root(), getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    int how = O_WRONLY | O_CREAT | O_CLOEXEC | (j->again ? O_APPEND : O_TRUNC);
    int o = open(out, how, 0644), e = open(err, how, 0644);
    if (wrote != 0 || o < 0 || e < 0) {
        int why = errno;
        if (o >= 0)
            close(o);
        if (e >= 0)
            close(e);
        sa_free(&cmd);
        if (wrote == 0)
            rs_seterr("cannot write %s's output: %s", j->dir, strerror(why));
        return -1;
    }
    struct timeval tv;
    gettimeofday(&tv, NULL);
    j->t0 = tv.tv_sec;
    j->start_s = (double)tv.tv_sec + tv.tv_usec / 1e6;
    fflush(NULL);
    pid_t parent = getpid();
    j->pid = fork();
    if (j->pid == 0) {
        setpgid(0, 0);   /* a stop reaches the point and all it started (mpirun's ranks) */
        proc_child_setup(parent);
        _exit(supervise(j->dir, o, e, path, cmd.v));
    }
    if (j->pid > 0)
        setpgid(j->pid, j->pid);   /* as the child does: whichever runs first */
    close(o);
    close(e);
    sa_free(&cmd);
    RS_CHECK(j->pid > 0, "cannot start %s: %s", p->name, strerror(errno));
    return 0;
}

/* "[done/total] ... ETA": the weight this session finished against the weight left. */
static void progress(const char *run, const pf_points *pts, const pf_point *p, int rc, long secs)
{
    const char *session = getenv("STUDY_SESSION"), *t0 = getenv("STUDY_T0");
    int done = 0;
    double wn = 0, wl = 0;
    for (int i = 0; i < pts->n; i++) {
        pf_state s = pf_state_quick(run, &pts->p[i]);
        done += s == PF_DONE || s == PF_INFEASIBLE;
        if (s == PF_PENDING || s == PF_FAILED)
            wl += pts->p[i].weight;
        char path[4200], was[128] = "";
        snprintf(path, sizeof path, "%s/points/%s/session", run, pts->p[i].name);
        FILE *f = s == PF_DONE && session ? rs_fopen_read(path) : NULL;
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
    fflush(stdout);
}

int point_finish(const char *run, const pf_points *pts, point_job *j, int st, const struct rusage *ru)
{
    const pf_point *p = j->p;
    int rc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    long secs = (long)(time(NULL) - j->t0) + j->before;
    char buf[64], cpu[64];
    snprintf(buf, sizeof buf, "%ld", secs);
    snprintf(cpu, sizeof cpu, "%.1f", j->cpu_before + proc_cpu_seconds(ru));
    if (write_text(j->dir, "cpu_seconds", cpu) != 0)
        return -1;
    if (rc == 130 || rc == 143 || rc == 128 + SIGKILL) {   /* the time so far, for a run that continues */
        printf("study: %s stopped\n", p->name);
        return write_text(j->dir, "seconds", buf) != 0 ? -1 : rc == 130 ? 130 : 143;
    }
    const char *session = getenv("STUDY_SESSION");
    if (write_text(j->dir, "seconds", buf) != 0 || write_text(j->dir, "session", session ? session : "") != 0)
        return -1;
    snprintf(buf, sizeof buf, "%d", rc);
    if (write_text(j->dir, "rc", buf) != 0)
        return -1;
    if (pf_state_quick(run, p) == PF_DONE) {   /* its checkpoints served only to continue it */
        char ckpt[4200];
        snprintf(ckpt, sizeof ckpt, "%s/ckpt", j->dir);
        study_remove_tree(ckpt);
        if (pf_seal(j->dir) != 0)
            return -1;
        if (pts)
            progress(run, pts, p, rc, secs);
        return 0;
    }
    if (pts)
        progress(run, pts, p, rc, secs);
    char path[4200], last[4096];
    snprintf(path, sizeof path, "%s/stderr.txt", j->dir);
    study_last_line(path, last, sizeof last);
    printf("study: %s failed (exit %d): %s\n", p->name, rc, last);
    return 1;
}
