/* run_lock.c — study_hold (study_def.h): a run folder locked for the life of the
 * command writing to it (common/fslock.h's flock on RUN/.lock), so that two commands
 * never write one folder at once.  Exclusive for run, collect, report, points and took;
 * shared for `study point` (Slurm array tasks run side by side), with each point's own
 * RUN/points/.NAME.lock exclusive.  Held until the process ends: the kernel drops it
 * with its holder, and the next command says it took a dead holder's lock over. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fslock.h"
#include "fsio.h"
#include "study_def.h"

#define MOST_HELD 8

static struct {
    char path[PATH_MAX];
    int fd;
} held[MOST_HELD];
static int nheld;

/* At a normal exit, each lock file is emptied: only a holder that was killed leaves its
 * text, which the next taker reports. */
static void drop_all(void)
{
    while (nheld > 0)
        rs_lock_drop(held[--nheld].fd);
}

static int hold(const char *lockfile, int shared, const char *doing, const char *what, const char *instead)
{
    char real[PATH_MAX];
    char *slash = strrchr(lockfile, '/');
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - lockfile) : 1, slash ? lockfile : ".");
    RS_CHECK(realpath(dir, real), "%s: no such folder", dir);
    snprintf(real + strlen(real), sizeof real - strlen(real), "/%s", slash ? slash + 1 : lockfile);
    for (int i = 0; i < nheld; i++)
        if (strcmp(held[i].path, real) == 0)
            return 0;   /* this process holds it already (make scaling's studies) */
    RS_CHECK(nheld < MOST_HELD, "more than %d locks", MOST_HELD);
    int fd = rs_lock_take_as(lockfile, shared, doing, what, instead);
    if (fd < 0)
        return -1;
    if (nheld == 0)
        atexit(drop_all);
    snprintf(held[nheld].path, sizeof held[nheld].path, "%s", real);
    held[nheld++].fd = fd;
    return 0;
}

int study_hold(const char *run, const char *doing)
{
    char lock[PATH_MAX], what[PATH_MAX + 32];
    snprintf(lock, sizeof lock, "%s/.lock", run);
    snprintf(what, sizeof what, "the run folder %s", run);
    return hold(lock, 0, doing, what, "wait for it to end, or stop it (Ctrl-C, or kill PID)");
}

int study_hold_point(const char *run, const char *name)
{
    char lock[PATH_MAX], what[PATH_MAX + 300], doing[400], dir[PATH_MAX];
    snprintf(lock, sizeof lock, "%s/.lock", run);
    snprintf(what, sizeof what, "the run folder %s", run);
    snprintf(doing, sizeof doing, "study point %s", name);
    if (hold(lock, 1, doing, what, "wait for it to end: study point runs beside other points only") != 0)
        return -1;
    snprintf(dir, sizeof dir, "%s/points", run);
    RS_CHECK(rs_mkdir_p(dir) == 0, "cannot create %s", dir);
    snprintf(lock, sizeof lock, "%s/points/.%s.lock", run, name);
    snprintf(what, sizeof what, "the point %s of %s", name, run);
    return hold(lock, 0, doing, what, "it is running elsewhere; wait for it");
}
