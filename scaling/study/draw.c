/* draw.c — study_draw (draw.h): the one place gnuplot runs. */
#define _GNU_SOURCE
#include "draw.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "figures.h"
#include "fsio.h"
#include "proc.h"
#include "study_def.h"

int study_draw(const char *run, const char *name, const char *csv, const char *extra, const char *who)
{
    if (!study_runnable("gnuplot"))
        return 2;
    char dir[4400], out[4600], tmp[4700], gp[4400], own[4400], values[8192];
    snprintf(dir, sizeof dir, "%s/figures", run);
    snprintf(out, sizeof out, "%s/%s.png", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.png.%ld.tmp", dir, name, (long)getpid());
    snprintf(gp, sizeof gp, "%s/plot/%s.gp", study_root(), name);
    snprintf(own, sizeof own, "%s/%s.csv", run, name);
    if (rs_mkdir_p(dir) != 0) {
        printf("%s: cannot create %s\n", who, dir);
        return 1;
    }
    if (figure_vars(run, name, values, sizeof values) != 0) {
        printf("%s: %s\n", who, rs_lasterr());
        return 1;
    }
    size_t len = strlen(csv ? csv : own) + strlen(tmp) + strlen(values) + (extra ? strlen(extra) : 0) + 64;
    char *e = malloc(len);
    RS_ASSERT(e != NULL);
    snprintf(e, len, "csv='%s'; out='%s'; %s %s", csv ? csv : own, tmp, extra ? extra : "", values);
    char *argv[] = {"gnuplot", "-e", e, gp, NULL};
    int rc = proc_run(argv, NULL, NULL, NULL, 0, NULL);
    free(e);
    if (rc == 0 && access(tmp, F_OK) == 0 && rename(tmp, out) == 0) {
        printf("%s: %s\n", who, out);
        return 0;
    }
    unlink(tmp);
    printf("%s: plot/%s.gp failed on %s\n", who, name, csv ? csv : own);
    return 1;
}
