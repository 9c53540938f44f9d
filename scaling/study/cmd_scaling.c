/* cmd_scaling.c — `study scaling [RUN]`: what `make scaling` runs, in one process that
 * holds the run folder's lock from the first check to the report.
 *
 * Every study's settings are checked before a folder exists; then the convergence,
 * regime, composition and model-size studies run in turn in RUN (default: a new
 * results/runs/<stamp>-<host>/; RUN from the argument or the environment), then
 * points.csv, took.csv and report.md are written from what they left.  A study that
 * failed a point does not stop the next; bad settings (2) and a stop (130/143) do.
 * PLAN=1 stops at the first round of points with status 4, the points written for a
 * cluster's job array (driver.c; scaling/slurm/scaling.sh submits them and goes on);
 * the studies are collected only once none has a round left. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "compose_study.h"
#include "converge_study.h"
#include "fsio.h"
#include "models_study.h"
#include "regime_study.h"
#include "study.h"
#include "study_def.h"

static const study_def *const order[] = {&converge_study, &regime_study, &compose_study, &models_study};
#define NORDER ((int)(sizeof order / sizeof order[0]))

static int sub(int (*cmd)(int, char **), const char *name, const char *run)
{
    char *argv[] = {(char *)name, (char *)run, NULL};
    return cmd(2, argv);
}

int cmd_scaling(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: study scaling [RUN]\nThe convergence, regime, composition and model-size studies "
               "in one run folder\n(RUN, or $RUN, or a new results/runs/<stamp>-<host>/), then points.csv, "
               "took.csv and report.md.\nSettings: the environment (scaling/study/studies.md); QUICK=1 the quick "
               "grids; JOBS=K points at once;\nPLAN=1 each round's points written for a job array, exit 4 (scaling/slurm/scaling.sh).\n");
        return 0;
    }
    if (argc > 2) {
        fprintf(stderr, "study scaling: expected at most one RUN folder (study scaling --help)\n");
        return 2;
    }
    char run[2048];
    const char *given = argc == 2 ? argv[1] : getenv("RUN");
    if (given && *given)
        snprintf(run, sizeof run, "%s", given);
    else
        study_new_run_name(run, sizeof run);
    rs_install_signal_handlers();
    const char *sc = getenv("STUDY_CHECK");
    int check_only = sc && *sc;
    setenv("STUDY_CHECK", "1", 1);   /* every study's settings, before anything is made */
    for (int i = 0; i < NORDER; i++)
        if (study_drive(order[i], run, 0) != 0) {
            fprintf(stderr, "%s: %s\n", order[i]->name, rs_lasterr());
            return 2;
        }
    if (check_only)
        return 0;
    unsetenv("STUDY_CHECK");
    if (!(given && *given) && (rs_mkdir_p("results/runs") != 0 || mkdir(run, 0777) != 0)) {
        fprintf(stderr, "study scaling: cannot create %s: %s\n", run, strerror(errno));
        return 2;
    }
    if (access(run, F_OK) != 0 && rs_mkdir_p(run) != 0) {
        fprintf(stderr, "study scaling: cannot create %s: %s\n", run, strerror(errno));
        return 2;
    }
    if (study_hold(run, "study scaling") != 0) {
        fprintf(stderr, "study scaling: %s\n", rs_lasterr());
        return 2;
    }
    int status = 0;
    /* PLAN=1: every study's rounds first, none collected; the collects once all are done */
    const char *plan = getenv("PLAN");
    for (int i = 0; plan && strcmp(plan, "1") == 0 && i < NORDER; i++) {
        int rc = study_drive(order[i], run, STUDY_NO_COLLECT);
        if (rc < 0) {
            fprintf(stderr, "%s: %s\n", order[i]->name, rs_lasterr());
            return 2;
        }
        if (rc == 130 || rc == 143 || rc == STUDY_PLANNED)
            return rc;
    }
    for (int i = 0; i < NORDER; i++) {
        int rc = study_drive(order[i], run, 0);
        if (rc < 0) {
            fprintf(stderr, "%s: %s\n", order[i]->name, rs_lasterr());
            return 2;
        }
        if (rc == 130 || rc == 143 || rc == STUDY_PLANNED)
            return rc;
        status |= rc != 0;
    }
    char path[2200];
    snprintf(path, sizeof path, "%s/points.csv", run);
    unlink(path);
    status |= sub(cmd_points, "points", run) != 0;
    snprintf(path, sizeof path, "%s/took.csv", run);
    unlink(path);
    snprintf(path, sizeof path, "%s/joblog.txt", run);
    if (access(path, F_OK) == 0)
        status |= sub(cmd_took, "took", run) != 0;
    if (sub(cmd_report, "report", run) == 0)
        printf("scaling: report %s/report.md\n", run);
    else
        status = 1;
    return status;
}
