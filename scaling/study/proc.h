/* proc.h — the study tool running other programs (platform-gen, smpirun's launcher,
 * gnuplot, itself): one call each way, so no file forks on its own.  Exit statuses are
 * the shell's: the program's, or 128 + the signal that ended it; -1 when it could not
 * start (rs_lasterr). */
#ifndef STUDY_PROC_H
#define STUDY_PROC_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

/* argv[0] (a path, or a name on PATH) with env ("NAME=VALUE", NULL-ended; NULL: none)
 * added to the environment; stdout and stderr into the files out and err (NULL: this
 * process's; append 1: appended to).  cpu_s (may be NULL): its and its children's user +
 * system seconds. */
int proc_run(char *const argv[], char *const env[], const char *out, const char *err, int append,
             double *cpu_s);

/* In a child between fork and exec: it dies with `parent` (PR_SET_PDEATHSIG, SIGTERM;
 * at once if parent is already gone), and the signals the parent caught or blocked
 * are default again.  Every program the study starts goes through it, so a killed
 * study leaves no orphan. */
void proc_child_setup(pid_t parent);

/* The user + system seconds in a wait4 report. */
double proc_cpu_seconds(const struct rusage *ru);

/* argv's stdout (with its stderr where merge is 1) into buf, NUL-terminated, cut at len. */
int proc_capture(char *const argv[], int merge, char *buf, size_t len);

#endif
