/* cmd_likwid.c — `study likwid RUN`: can likwid-perfctr count here, and how, for
 * `make bench COUNTERS=likwid` (scaling/bench/likwid.sh).
 *
 * Probes once with a group this CPU lists (FLOPS_SP: the kernels are fp32; else
 * FLOPS_DP, CLOCK) on every CPU the campaign may use; writes the verdict line to
 * RUN/likwid.txt and on stderr, and prints on stdout the words to put before a study's
 * command ("likwid-perfctr -m -g GROUP -c CPUS"), or nothing where it cannot count (a
 * VM without a PMU: "Cannot get access to MSRs"): then the studies run without it.
 * -c, not -C: -C would pin the process to its first CPU, and the studies pin their
 * threads themselves over the CPUs they start with (common/bench.c).  Exit 0; 2 bad
 * usage or RUN/likwid.txt not writable. */
#define _GNU_SOURCE
#include <ctype.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"
#include "proc.h"
#include "study.h"

/* PROG found on PATH, into path; 0 or -1. */
static int on_path(const char *prog, char *path, size_t len)
{
    const char *p = getenv("PATH");
    while (p && *p) {
        size_t n = strcspn(p, ":");
        snprintf(path, len, "%.*s/%s", (int)n, n ? p : ".", prog);
        if (access(path, X_OK) == 0)
            return 0;
        p += n + (p[n] == ':');
    }
    return -1;
}

/* Runs argv with stdout (and stderr, if both) into out; its exit status, or -1. */
static int capture(char *const *argv, int both, char *out, size_t len)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t parent = getpid(), pid = fork();
    if (pid == 0) {
        proc_child_setup(parent);
        int null = open("/dev/null", O_WRONLY);
        dup2(fd[1], 1);
        dup2(both ? fd[1] : null, 2);
        close(fd[0]);
        execv(argv[0], argv);
        _exit(127);
    }
    close(fd[1]);
    size_t n = 0;
    ssize_t got;
    while ((got = read(fd[0], out + n, n + 1 < len ? len - n - 1 : 0)) > 0)
        n += (size_t)got;
    char sink[4096];
    while (read(fd[0], sink, sizeof sink) > 0) {
    }
    out[n] = 0;
    close(fd[0]);
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The first group of FLOPS_SP, FLOPS_DP, CLOCK that `likwid-perfctr -a` lists (the
 * first word of a line), or NULL. */
static const char *pick_group(char *list)
{
    static const char *const want[] = {"FLOPS_SP", "FLOPS_DP", "CLOCK"};
    for (int g = 0; g < 3; g++)
        for (char *l = list; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
            const char *w = l + strspn(l, " \t");
            size_t n = strcspn(w, " \t\n");
            if (n == strlen(want[g]) && strncmp(w, want[g], n) == 0)
                return want[g];
        }
    return NULL;
}

/* Why a measurement failed: its last line that is not a rule of dashes or a "CPU ..." line. */
static void last_reason(const char *text, char *why, size_t len)
{
    why[0] = 0;
    for (const char *l = text; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
        size_t n = strcspn(l, "\n");
        if (strspn(l, "-") < n && strncmp(l, "CPU ", 4) != 0)
            snprintf(why, len, "%.*s", (int)n, l);
    }
}

static int write_line(FILE *f, void *line) { return fprintf(f, "%s\n", (char *)line) < 0 ? -1 : 0; }

int cmd_likwid(int argc, char **argv)
{
    if (argc != 2 || argv[1][0] == '-') {
        int help = argc == 2 && strcmp(argv[1], "--help") == 0;
        fprintf(help ? stdout : stderr, "usage: study likwid RUN\nProbes likwid-perfctr for make bench "
                "COUNTERS=likwid: RUN/likwid.txt says whether it counts; stdout has the words to put before "
                "a study's command (nothing where it cannot count).\n");
        return help ? 0 : 2;
    }
    cpu_set_t set;
    int ncpu = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    char perfctr[4096], cpus[32], out[1 << 16], why[4600] = "", line[5000], path[4200];
    const char *group = NULL;
    snprintf(cpus, sizeof cpus, "0-%d", ncpu - 1);
    if (on_path("likwid-perfctr", perfctr, sizeof perfctr) != 0)
        snprintf(why, sizeof why, "likwid-perfctr not found on PATH (Debian package likwid)");
    else {
        char *list[] = {perfctr, "-a", NULL};
        capture(list, 0, out, sizeof out);
        if (!(group = pick_group(out)))
            snprintf(why, sizeof why, "likwid-perfctr -a lists none of FLOPS_SP, FLOPS_DP, CLOCK on this CPU");
        else {
            char *probe[] = {perfctr, "-c", cpus, "-g", (char *)group, "true", NULL}, reason[4096];
            if (capture(probe, 1, out, sizeof out) != 0) {
                last_reason(out, reason, sizeof reason);
                snprintf(why, sizeof why, "likwid-perfctr -c %s -g %s: %s", cpus, group, reason);
            }
        }
    }
    if (*why)
        snprintf(line, sizeof line, "likwid: unavailable: %s", why);
    else {
        char *ver[] = {perfctr, "-v", NULL};
        capture(ver, 1, out, sizeof out);
        const char *v = out + strcspn(out, "0123456789");
        snprintf(line, sizeof line, "likwid: likwid-perfctr -m -g %s -c %s (%.*s)", group, cpus,
                 (int)strspn(v, "0123456789."), v);
    }
    snprintf(path, sizeof path, "%s/likwid.txt", argv[1]);
    fprintf(stderr, "%s\n", line);
    if (rs_write_atomic(path, write_line, line) != 0) {
        fprintf(stderr, "study likwid: %s\n", rs_lasterr());
        return 2;
    }
    if (*why)
        fprintf(stderr, "bench: COUNTERS=likwid: running the studies without likwid-perfctr\n");
    else
        printf("likwid-perfctr -m -g %s -c %s\n", group, cpus);
    return 0;
}
