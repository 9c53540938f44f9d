/* train_log.c — the evaluation log (--log FILE): CSV, one row per evaluation,
 *   step,tokens,seconds,train_loss,valid_ppl,lr,b_simple,eval_seconds,eval_exposed_seconds,
 *   eval_tokens,first_window_ppl
 * (b_simple: the gradient noise scale in sequences, grad_noise.h, empty with one worker;
 * eval_seconds: the wall time of that evaluation's scoring; eval_exposed_seconds: the
 * time it held the training loop, all of it when synchronous, the snapshot and the wait
 * for the result with --eval-async), flushed at each row so a stopped run leaves every
 * row it printed.  Logs are never overwritten: a new one is created with O_EXCL;
 * --resume continues the existing one.  The writing run holds an exclusive flock on the
 * log itself (fslock.h) for its life, so a --resume on a log a live run writes is
 * refused, and the resume's cut is an ftruncate of that same file (no rename: a file
 * another process has open is never swapped under it). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "fslock.h"
#include "fsio.h"
#include "train_ctx.h"

static int lock_log(int fd, const char *path)
{
    char what[4200];
    snprintf(what, sizeof what, "--log %s", path);
    return rs_lock_fd(fd, what, "wait for it or use another --log");
}

int train_log_lock(run_ctx *r)
{
    const char *path = r->o->log;
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return rs_check_writable(path);   /* created at train_log_open, with O_EXCL */
    RS_CHECK(r->o->resume,
             "--log %s already exists; logs are never overwritten (choose a new name)", path);
    int fd = rs_open_regular(path, O_RDWR | O_APPEND, "--log");
    if (fd < 0)
        return -1;
    if (lock_log(fd, path) != 0) {
        close(fd);
        return -1;
    }
    r->log_fd = fd;
    return 0;
}

/* --resume: only the rows up to the checkpoint's last scheduled evaluation are kept (a
 * row the stopped run wrote after it, e.g. its final report, is dropped), so the
 * continued run's rows follow on exactly as in a run that never stopped.  The rows are
 * in step order, so what is kept is a prefix: one ftruncate, atomic for readers. */
static int cut_to_checkpoint(run_ctx *r, const char *path)
{
    int in = dup(r->log_fd);
    FILE *f = in >= 0 ? fdopen(in, "r") : NULL;
    if (in >= 0 && !f)
        close(in);
    RS_CHECK(f, "cannot read %s: %s", path, strerror(errno));
    rewind(f);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    off_t keep = 0;
    for (int first = 1; (n = getline(&line, &cap, f)) > 0; first = 0) {
        long step;
        int whole = line[n - 1] == '\n';   /* a row cut short by a kill is not kept */
        if (!whole || (!first && (sscanf(line, "%ld,", &step) != 1 || step > r->st.last_eval_step)))
            break;
        keep += n;
    }
    free(line);
    fclose(f);   /* the dup: the lock stays with log_fd */
    RS_CHECK(ftruncate(r->log_fd, keep) == 0 && fsync(r->log_fd) == 0, "cannot write %s: %s", path,
             strerror(errno));
    return 0;
}

int train_log_open(run_ctx *r)
{
    const char *path = r->o->log;
    if (r->log_fd >= 0) {
        if (cut_to_checkpoint(r, path) != 0)
            return -1;
        r->log = fdopen(r->log_fd, "a");
        RS_CHECK(r->log, "cannot append to %s: %s", path, strerror(errno));
        r->log_fd = -1;   /* r->log holds it now */
        return 0;
    }
    /* O_EXCL: a name that appeared since train_log_lock (a file, a link, a FIFO) is not
     * written through */
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    RS_CHECK(fd >= 0, "cannot write %s: %s", path,
             errno == EEXIST ? "it appeared since the run started; not overwritten"
                             : strerror(errno));
    if (lock_log(fd, path) != 0) {   /* a --resume took it first: it is that run's now */
        close(fd);
        return -1;
    }
    r->log = fdopen(fd, "w");
    if (!r->log) {
        int err = errno;
        unlink(path);   /* still empty, and ours */
        close(fd);
        RS_CHECK(0, "cannot write %s: %s", path, strerror(err));
    }
    fprintf(r->log, "step,tokens,seconds,train_loss,valid_ppl,lr,b_simple,eval_seconds,"
            "eval_exposed_seconds,eval_tokens,first_window_ppl\n");
    fflush(r->log);
    return 0;
}

void train_log_row(run_ctx *r, const eval_row *w)
{
    if (!r->log)
        return;
    fprintf(r->log, "%ld,%ld,%.3f,%.6f,%.4f,%.6g,", w->step, w->tokens, w->seconds,
            w->train_loss, w->valid.ppl, w->lr);
    if (r->dp.N > 1)
        fprintf(r->log, "%.6g", w->b_simple);
    fprintf(r->log, ",%.4f,%.4f,%ld,", w->eval_s, w->exposed_s, w->valid.tokens);
    if (w->first.tokens > 0)
        fprintf(r->log, "%.4f", w->first.ppl);
    fputc('\n', r->log);
    fflush(r->log);
}

void train_log_close(run_ctx *r)
{
    if (r->log)
        fclose(r->log);
    else if (r->log_fd >= 0)
        close(r->log_fd);
    r->log = NULL;
    r->log_fd = -1;
}
