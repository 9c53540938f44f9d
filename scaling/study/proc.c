/* proc.c — proc_run, proc_capture and proc_cpu_seconds (proc.h), over fork, execvp and wait4. */
#define _GNU_SOURCE
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"

void proc_child_setup(pid_t parent)
{
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent)
        _exit(143);   /* the parent died before the line above */
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
}

static int status_of(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st); }

static int redirect(const char *path, int fd, int append)
{
    if (!path)
        return 0;
    int f = open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC), 0666);
    if (f < 0 || dup2(f, fd) < 0)
        return -1;
    close(f);
    return 0;
}

double proc_cpu_seconds(const struct rusage *ru)
{
    return (double)ru->ru_utime.tv_sec + ru->ru_utime.tv_usec / 1e6 + (double)ru->ru_stime.tv_sec +
           ru->ru_stime.tv_usec / 1e6;
}

int proc_run(char *const argv[], char *const env[], const char *out, const char *err, int append,
             double *cpu_s)
{
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    RS_CHECK(pid >= 0, "cannot start %s: %s", argv[0], strerror(errno));
    if (pid == 0) {
        proc_child_setup(parent);
        for (int i = 0; env && env[i]; i++)
            putenv(env[i]);
        if (redirect(out, 1, append) != 0 || redirect(err, 2, append) != 0) {
            fprintf(stderr, "cannot write the output of %s: %s\n", argv[0], strerror(errno));
            _exit(127);
        }
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    int st = 0;
    struct rusage ru = {0};
    while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR) {
    }
    if (cpu_s)
        *cpu_s = proc_cpu_seconds(&ru);
    return status_of(st);
}

int proc_capture(char *const argv[], int merge, char *buf, size_t len)
{
    int fd[2];
    buf[0] = 0;
    RS_CHECK(pipe(fd) == 0, "cannot run %s: %s", argv[0], strerror(errno));
    fflush(NULL);
    pid_t parent = getpid(), pid = fork();
    RS_CHECK(pid >= 0, "cannot start %s: %s", argv[0], strerror(errno));
    if (pid == 0) {
        proc_child_setup(parent);
        close(fd[0]);
        dup2(fd[1], 1);
        if (merge)
            dup2(fd[1], 2);
        close(fd[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t got;
    char sink[4096];
    while ((got = read(fd[0], n + 1 < len ? buf + n : sink, n + 1 < len ? len - 1 - n : sizeof sink)) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            break;
        if (n + 1 < len)
            n += (size_t)got;
    }
    buf[n] = 0;
    close(fd[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return status_of(st);
}
