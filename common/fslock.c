/* fslock.c — exclusive run locks (fslock.h): flock, and the holder named from the lock
 * file's text or from /proc/locks. */
#define _GNU_SOURCE
#include "fslock.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"

/* "pid N on host H (PROG)" for the process /proc/locks names as fd's flock holder. */
static int holder_from_proc(int fd, char *out, size_t len)
{
    struct stat st;
    FILE *f = fstat(fd, &st) == 0 ? fopen("/proc/locks", "r") : NULL;
    if (!f)
        return -1;
    char line[256], kind[16], rw[16];
    long pid = -1, found = -1;
    unsigned maj, mnr;
    unsigned long ino;
    while (found < 0 && fgets(line, sizeof line, f))
        if (sscanf(line, "%*d: %15s %*s %15s %ld %x:%x:%lu", kind, rw, &pid, &maj, &mnr,
                   &ino) == 6 &&
            strcmp(kind, "FLOCK") == 0 && maj == major(st.st_dev) && mnr == minor(st.st_dev) &&
            ino == (unsigned long)st.st_ino && pid != (long)getpid())
            found = pid;
    fclose(f);
    if (found <= 0)
        return -1;
    char host[256] = "?", comm[64] = "?", path[64];
    gethostname(host, sizeof host - 1);
    snprintf(path, sizeof path, "/proc/%ld/comm", found);
    FILE *c = fopen(path, "r");
    if (c) {
        if (!fgets(comm, sizeof comm, c))
            snprintf(comm, sizeof comm, "?");
        comm[strcspn(comm, "\n")] = 0;
        fclose(c);
    }
    snprintf(out, len, "pid %ld on host %s (%s)", found, host, comm);
    return 0;
}

int rs_lock_fd(int fd, const char *what, const char *instead)
{
    if (flock(fd, LOCK_EX | LOCK_NB) == 0)
        return 0;
    int err = errno;
    RS_CHECK(err == EWOULDBLOCK, "cannot lock %s: %s", what, strerror(err));
    char who[384];
    if (holder_from_proc(fd, who, sizeof who) != 0)
        snprintf(who, sizeof who, "another process");
    RS_CHECK(0, "%s is in use by %s; %s", what, who, instead);
}

int rs_lock_take(const char *lockfile, const char *what, const char *instead)
{
    return rs_lock_take_as(lockfile, 0, NULL, what, instead);
}

/* "pid N on host H (...)" of a holder that ended without rs_lock_drop: 1 when that pid
 * on this host no longer runs. */
static int holder_dead(const char *text)
{
    long pid;
    char host[256], me[256] = "";
    gethostname(me, sizeof me - 1);
    return sscanf(text, "pid %ld on host %255s", &pid, host) == 2 && strcmp(host, me) == 0 && pid > 0 &&
           kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

int rs_lock_take_as(const char *lockfile, int shared, const char *doing, const char *what, const char *instead)
{
    struct stat st;
    RS_CHECK(lstat(lockfile, &st) != 0 || S_ISREG(st.st_mode),
             "lock file %s is %s, not a regular file (remove it)", lockfile,
             rs_file_kind(st.st_mode));
    /* O_NOFOLLOW: a link put in its place since is refused, not followed */
    int fd = open(lockfile, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    RS_CHECK(fd >= 0, "cannot create lock file %s: %s", lockfile, strerror(errno));
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        RS_CHECK(0, "lock file %s is not a regular file (remove it)", lockfile);
    }
    if (flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
        int err = errno;
        char who[384] = "";
        ssize_t n = err == EWOULDBLOCK ? pread(fd, who, sizeof who - 1, 0) : 0;
        who[n > 0 ? n : 0] = 0;
        who[strcspn(who, "\n")] = 0;
        if (!who[0] && (err != EWOULDBLOCK || holder_from_proc(fd, who, sizeof who) != 0))
            snprintf(who, sizeof who, "another process");
        close(fd);
        RS_CHECK(err == EWOULDBLOCK, "cannot lock %s: %s", what, strerror(err));
        RS_CHECK(0, "%s is in use by %s; %s", what, who, instead);
    }
    char host[256] = "?", date[64] = "?", text[512], was[384] = "";
    ssize_t got = pread(fd, was, sizeof was - 1, 0);
    was[got > 0 ? got : 0] = 0;
    was[strcspn(was, "\n")] = 0;
    if (!shared && doing && was[0] && holder_dead(was))
        fprintf(stderr, "%s: %s: taking over the lock of %s, which is no longer running\n",
                program_invocation_short_name, what, was);
    if (shared)
        return fd;   /* many hold it: none is named */
    gethostname(host, sizeof host - 1);
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tm);
    int n = snprintf(text, sizeof text, "pid %ld on host %s (%s started %s)\n", (long)getpid(),
                     host, doing ? doing : program_invocation_short_name, date);
    /* the text only names the holder for a refused run; the flock is what counts */
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n) {
        /* a run without the text still holds the lock */
    }
    return fd;
}

void rs_lock_drop(int fd)
{
    if (fd < 0)
        return;
    if (ftruncate(fd, 0) != 0) {
        /* closing ends the lock all the same */
    }
    close(fd);
}
