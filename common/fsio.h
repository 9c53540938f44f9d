/* fsio.h — result files that are never half-written and never overwritten.
 *
 * rs_write_atomic() writes through a temporary file in the target's folder (named
 * after its host and pid, so that the next start removes a killed writer's), flushes
 * and fsyncs it, then link()s it to the target name — which fails if the target
 * exists, so an existing result is never replaced — and removes the temporary.
 * If the writer fails, or the process is interrupted (SIGINT/SIGTERM, see
 * rs_install_signal_handlers), the temporary is removed and no target appears.
 *
 * Inputs that must be regular files are opened with rs_open_regular (a FIFO, socket,
 * device or folder is refused, never opened blocking); a run's folder or log is held
 * with fslock.h's locks. */
#ifndef RS_FSIO_H
#define RS_FSIO_H

#include <stdio.h>

/* writer returns 0 on success; its failure (or a write error) aborts the file. */
typedef int (*rs_writer_fn)(FILE *f, void *ctx);
int rs_write_atomic(const char *path, rs_writer_fn writer, void *ctx);

/* Fails early, with a clear message, if `path` exists or its folder is not writable:
 * call before a long run so bad output paths are caught before the work is done.
 * Then removes path's stale temporaries (rs_remove_stale_temps), unless
 * rs_fsio_check_only() was called. */
int rs_check_writable(const char *path);

/* The temporaries of path that a killed writer left ("PATH.tmp.HOST.PID.XXXXXX", as
 * rs_write_atomic names them, of this host and a pid that no longer runs) are removed,
 * with one note on stderr; a live pid's, another host's or a nameless one's are kept.
 * Returns how many were removed. */
int rs_remove_stale_temps(const char *path);

/* From now on rs_check_writable only checks, removing nothing (rnn-train --check-args). */
void rs_fsio_check_only(void);

int rs_mkdir_p(const char *dir);          /* like mkdir -p */

/* "a FIFO", "a socket", "a device", "a folder", "a symbolic link", "a regular file". */
const char *rs_file_kind(unsigned mode);

/* open(path, flags) only if path is a regular file (or a link to one): stat first, then
 * open with O_NONBLOCK (a FIFO never blocks), then fstat; O_NONBLOCK is cleared again.
 * The fd, or -1 with "WHAT PATH is a FIFO, not a regular file (give a regular
 * file)" or "cannot read WHAT PATH: why" in rs_lasterr. */
int rs_open_regular(const char *path, int flags, const char *what);
/* fopen(path, "r") through rs_open_regular: every reader of a result, a settings or a
 * points file opens it so, and a FIFO or folder given as one is refused, never read
 * and never waited on.  NULL with rs_lasterr (and errno: ENOENT when absent). */
FILE *rs_fopen_read(const char *path);

/* Ctrl-C / SIGTERM: remove the temporary being written, print one line, exit 130
 * (SIGINT) or 143 (SIGTERM). */
void rs_install_signal_handlers(void);
/* SIGINT / SIGTERM to `handler` instead: a loop that stops at a safe point. */
void rs_install_signal_handler(void (*handler)(int));
int rs_interrupted(void);                 /* a signal arrived (for cooperative loops) */
/* The exit code for the signal that arrived: 143 after SIGTERM, else 130. */
int rs_interrupt_code(void);
/* For a handler (async-signal-safe): remove the temporary being written, write
 * "<prog>: interrupted by SIG...: <what>" on stderr (nothing when what is NULL) and
 * _exit(130 or 143). */
void rs_signal_exit(int sig, const char *what) __attribute__((noreturn));

#endif
