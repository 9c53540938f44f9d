/* train_log.c — the evaluation log (--log FILE): CSV, one row per evaluation,
 *   step,tokens,seconds,train_loss,valid_ppl,lr,b_simple,eval_seconds,eval_exposed_seconds
 * (b_simple: the gradient noise scale in sequences, grad_noise.h, empty with one worker;
 * eval_seconds: the wall time of that evaluation's scoring; eval_exposed_seconds: the
 * time it held the training loop, all of it when synchronous, the snapshot and the wait
 * for the result with --eval-async), flushed at each row so a stopped run leaves every
 * row it printed.  Logs are never overwritten; --resume continues the existing one. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "fsio.h"
#include "train_ctx.h"

typedef struct {
    FILE *in;
    long last_step;   /* rows up to this step are kept */
} log_cut;

static int copy_kept_rows(FILE *out, void *ctx)
{
    const log_cut *cut = ctx;
    char line[1024];
    int first = 1;
    while (fgets(line, sizeof line, cut->in)) {
        long step;
        if (first || (sscanf(line, "%ld,", &step) == 1 && step <= cut->last_step))
            fputs(line, out);
        first = 0;
    }
    return 0;
}

/* --resume: only the rows up to the checkpoint's last scheduled evaluation are kept (a
 * row the stopped run wrote after it, e.g. its final report, is dropped), so the
 * continued run's rows follow on exactly as in a run that never stopped. */
static int cut_to_checkpoint(run_ctx *r, const char *path)
{
    log_cut cut = {fopen(path, "r"), r->st.last_eval_step};
    RS_CHECK(cut.in, "cannot read %s: %s", path, strerror(errno));
    rs_install_signal_handlers();   /* a signal now removes the temporary and exits */
    int rc = rs_replace_atomic(path, copy_kept_rows, &cut);
    train_handlers_install();
    fclose(cut.in);
    return rc;
}

int train_log_open(run_ctx *r)
{
    const char *path = r->o->log;
    struct stat sb;
    int exists = stat(path, &sb) == 0;
    if (exists && !r->o->resume)
        RS_CHECK(0, "--log %s already exists; logs are never overwritten (choose a new name)", path);
    if (!exists) {
        if (rs_check_writable(path) != 0)
            return -1;
        r->log = fopen(path, "w");
        RS_CHECK(r->log, "cannot write %s: %s", path, strerror(errno));
        fprintf(r->log, "step,tokens,seconds,train_loss,valid_ppl,lr,b_simple,eval_seconds,"
                "eval_exposed_seconds\n");
        fflush(r->log);
        return 0;
    }
    if (cut_to_checkpoint(r, path) != 0)
        return -1;
    r->log = fopen(path, "a");
    RS_CHECK(r->log, "cannot append to %s: %s", path, strerror(errno));
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
    fprintf(r->log, ",%.4f,%.4f\n", w->eval_s, w->exposed_s);
    fflush(r->log);
}

void train_log_close(run_ctx *r)
{
    if (r->log)
        fclose(r->log);
    r->log = NULL;
}
