/* point_exec.h — one point of a points file started and finished: what `study run`'s
 * pool (pool.c) and `study point` (one Slurm array task) both do.
 *
 * point_start forks the point's argument vector (LAUNCH's words before it, no shell)
 * in RUN/points/NAME/, in a process group of its own that dies with this process
 * (PR_SET_PDEATHSIG): stdout.txt, stderr.txt, cmd.  point_finish records seconds,
 * cpu_seconds, session and rc (last), then seals a done point (points_file.h).  A
 * failed point's folder is moved aside to NAME.attempt-K when it runs again; a stopped
 * one whose ckpt/ holds a checkpoint runs again in its folder (rnn-train
 * --resume-if-any continues it), its output appended. */
#ifndef POINT_EXEC_H
#define POINT_EXEC_H

#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>

#include "points_file.h"

typedef struct {
    const pf_point *p;
    pid_t pid;            /* also its process group */
    time_t t0;
    double start_s;       /* epoch seconds, for the joblog */
    int again;            /* continues a stopped run in its folder */
    long before;          /* seconds and CPU seconds of the earlier stretches */
    double cpu_before;
    char dir[4096];
} point_job;

/* 0 started (j->pid), 1 nothing to run (done, or infeasible: recorded), -1 (rs_lasterr). */
int point_start(const char *run, const pf_point *p, point_job *j);
/* After wait4: 0 done, 1 failed (a line says why), 130/143 stopped (stays pending), -1
 * a file could not be written (rs_lasterr).  pts (may be NULL) gives the progress line. */
int point_finish(const char *run, const pf_points *pts, point_job *j, int status, const struct rusage *ru);
/* Records an infeasible point's reason in its folder. */
void point_infeasible(const char *run, const pf_point *p);

#endif
