/* fslock.h — a run's exclusive hold on its checkpoint folder and its log.
 *
 * flock(LOCK_EX | LOCK_NB), held while the fd (or a dup of it) stays open: the kernel
 * ends the lock with its holder's process, so a killed run never blocks the next one,
 * and a second run is refused at once, with a line naming the holder.  Used by
 * rnn-train on rank 0 (models/checkpoint.c, models/train_log.c). */
#ifndef RS_FSLOCK_H
#define RS_FSLOCK_H

/* An exclusive, non-blocking flock on fd.  0, or -1 if another process holds it:
 * "WHAT is in use by pid N on host H (PROG); INSTEAD", the holder found in /proc/locks
 * ("another process" where it cannot be found). */
int rs_lock_fd(int fd, const char *what, const char *instead);

/* The same on the lock file `lockfile` (created if absent and never removed: removing
 * it would let two runs lock two different files of one name), which then holds
 * "pid N on host H (PROG started DATE)" for the next run's message.  The fd to keep
 * open for the lock's life, or -1 (rs_lasterr; a lock file that is not a regular file
 * is refused). */
int rs_lock_take(const char *lockfile, const char *what, const char *instead);

/* The same, held shared (flock LOCK_SH: many shared holders, or one exclusive) when
 * shared is 1, and naming the holder by `doing` ("study run converge"; NULL: the
 * program's name).  With doing given, an exclusive take over a holder that died
 * without dropping it (its text names a pid of this host that no longer runs) says so
 * in one line on stderr. */
int rs_lock_take_as(const char *lockfile, int shared, const char *doing, const char *what,
                    const char *instead);

/* Empties the lock file and closes fd, ending the lock (-1: nothing to do). */
void rs_lock_drop(int fd);

#endif
