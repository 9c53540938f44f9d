/* checkpoint.c — save, prune, find and load checkpoints (checkpoint.h).
 *
 * File: "RNNSCKP1" | header | params (P floats) | optimizer state (k * P floats) |
 *       state_h, state_c (L*B*H floats each) | sha256 of all the preceding bytes. */
#define _GNU_SOURCE
#include "checkpoint.h"

#include <dirent.h>
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
#include "sha256.h"

#define CKPT_MAGIC "RNNSCKP1"
#define CKPT_VERSION 4   /* 2: model_cfg gained classes (--classes); 3: train_state gemm;
                            4: train_state noise */

typedef struct {
    uint32_t version;
    uint32_t header_bytes;
    ckpt_ident id;
    train_state st;
    lr_sched sched;        /* its state fields matter; the rest is informative */
    int64_t optim_t;
    int64_t nparams;       /* lay.total */
    int64_t nstate;        /* floats of carried state per array (L*B*H); these two last:
                              test/mpi/train.sh finds nparams at header_bytes - 16 */
} ckpt_header;

static int is_ckpt_name(const char *n, long *step)
{
    char tail[8];
    return sscanf(n, "ckpt-%ld.bi%1s", step, tail) == 2 && strcmp(tail, "n") == 0 &&
           strlen(n) == strlen("ckpt-000000000.bin");
}

/* Steps of the checkpoints in dir, newest first; returns the count (<= max). */
static int list_ckpts(const char *dir, long *steps, int max)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        long s;
        if (is_ckpt_name(e->d_name, &s))
            steps[n++] = s;
    }
    closedir(d);
    for (int i = 1; i < n; i++)   /* insertion sort, descending */
        for (int j = i; j > 0 && steps[j] > steps[j - 1]; j--) {
            long t = steps[j];
            steps[j] = steps[j - 1], steps[j - 1] = t;
        }
    return n;
}

static void ckpt_name(const char *dir, long step, char *path, size_t len)
{
    snprintf(path, len, "%s/ckpt-%09ld.bin", dir, step);
}

static void ckpt_remove(const char *dir, long step)
{
    char path[4200];
    ckpt_name(dir, step, path, sizeof path);
    unlink(path);
}

int ckpt_latest(const char *dir, char *path, size_t len)
{
    long steps[256];
    if (list_ckpts(dir, steps, 256) == 0)
        return -1;
    ckpt_name(dir, steps[0], path, len);
    return 0;
}

/* A writer's temporary (rs_write_atomic's NAME.tmp.HOST.PID.XXXXXX, any pid: the lock is
 * held) or ckpt_prepare's probe. */
static int is_temp_name(const char *n)
{
    return (strncmp(n, "ckpt-", 5) == 0 && strstr(n, ".bin.tmp.")) ||
           strncmp(n, ".rnn-train-probe.", 17) == 0;
}

/* Every ckpt-*.bin entry must be a regular file (or a link to one): anything else is
 * refused here, before it could be opened.  With clean (the folder's lock held), the
 * temporaries of a killed writer are removed, with one note. */
static int check_entries(const char *dir, int clean)
{
    DIR *d = opendir(dir);
    RS_CHECK(d, "cannot read checkpoint folder %s: %s", dir, strerror(errno));
    int rc = 0, removed = 0;
    char first[4400] = "";
    struct dirent *e;
    while (rc == 0 && (e = readdir(d))) {
        char path[4400];
        struct stat st;
        long s;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (is_ckpt_name(e->d_name, &s)) {
            if (stat(path, &st) != 0) {
                rs_seterr("checkpoint folder %s holds %s, which cannot be read (%s): remove it",
                          dir, e->d_name, strerror(errno));
                rc = -1;
            } else if (!S_ISREG(st.st_mode)) {
                rs_seterr("checkpoint folder %s holds %s, which is %s, not a checkpoint file "
                          "(remove it)", dir, e->d_name, rs_file_kind(st.st_mode));
                rc = -1;
            }
        } else if (clean && is_temp_name(e->d_name) && lstat(path, &st) == 0 &&
                   S_ISREG(st.st_mode) && unlink(path) == 0 && removed++ == 0) {
            snprintf(first, sizeof first, "%s", path);
        }
    }
    closedir(d);
    if (removed)
        fprintf(stderr, "rnn-train: removed stale temporary %s%s (left by a killed writer)\n",
                first, removed > 1 ? " and others like it" : "");
    return rc;
}

/* The folder's entries are sound, and it holds checkpoints exactly when resuming. */
static int check_ckpts(const char *dir, int resume, int clean)
{
    if (check_entries(dir, clean) != 0)
        return -1;
    long steps[1];
    int have = list_ckpts(dir, steps, 1) > 0;
    RS_CHECK(resume || !have, "checkpoint folder %s already holds checkpoints (add --resume to "
                           "continue that run, or choose an empty folder)", dir);
    RS_CHECK(!resume || have, "--resume: no checkpoint in %s (run without --resume to start)", dir);
    return 0;
}

int ckpt_prepare(const char *dir, int resume, int *lock_fd)
{
    RS_CHECK(dir && *dir, "--checkpoint: empty folder name");
    struct stat st;
    RS_CHECK(!resume || stat(dir, &st) == 0, "--resume: no checkpoint folder %s (run without "
             "--resume to start)", dir);   /* and none is made */
    /* Only the writer makes, probes and cleans the folder: another rank's probe would be
     * a live file that the writer's clean-up takes for a killed writer's. */
    if (!lock_fd)
        return stat(dir, &st) != 0 && !resume ? 0 : check_ckpts(dir, resume, 0);
    if (rs_mkdir_p(dir) != 0)
        RS_CHECK(0, "checkpoint folder %s cannot be created (%s); choose a writable folder",
              dir, strerror(errno));
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.rnn-train-probe.XXXXXX", dir);
    int fd = mkstemp(probe);
    RS_CHECK(fd >= 0, "checkpoint folder %s is not writable (%s); choose a writable folder", dir,
          strerror(errno));
    close(fd);
    unlink(probe);
    char lock[4200], what[4300];
    snprintf(lock, sizeof lock, "%s/" CKPT_LOCK, dir);
    snprintf(what, sizeof what, "checkpoint folder %s", dir);
    *lock_fd = rs_lock_take(lock, what, "wait for it or use another --checkpoint folder");
    if (*lock_fd < 0)
        return -1;
    return check_ckpts(dir, resume, 1);
}

void ckpt_unlock(int *lock_fd)
{
    rs_lock_drop(*lock_fd);
    *lock_fd = -1;
}

/* ---- writing ---- */

typedef struct {
    const ckpt_ident *id;
    const model *m;
    const optimizer *o;
    const lr_sched *s;
    const train_state *st;
} save_ctx;

typedef struct {
    FILE *f;
    struct sha256_ctx h;
    int err;
} hashed_writer;

static void put(hashed_writer *w, const void *p, size_t n)
{
    sha256_update(&w->h, n, p);
    if (fwrite(p, 1, n, w->f) != n && !w->err)
        w->err = errno ? errno : EIO;   /* the first failure's reason */
}

static int write_ckpt(FILE *f, void *vctx)
{
    save_ctx *c = vctx;
    const model *m = c->m;
    long P = m->lay.total, S = (long)m->cfg.layers * m->cfg.batch * m->cfg.hidden;
    ckpt_header hd;
    memset(&hd, 0, sizeof hd);   /* padding bytes are zero: the same state, the same file */
    hd.version = CKPT_VERSION;
    hd.header_bytes = sizeof hd;
    hd.id = *c->id;
    hd.st = *c->st;
    hd.sched = *c->s;
    hd.optim_t = c->o->t;
    hd.nparams = P;
    hd.nstate = S;
    hashed_writer w;
    memset(&w, 0, sizeof w);
    w.f = f;
    sha256_init(&w.h);
    put(&w, CKPT_MAGIC, 8);
    put(&w, &hd, sizeof hd);
    put(&w, m->params, (size_t)P * sizeof(float));
    if (c->o->m)
        put(&w, c->o->m, (size_t)P * sizeof(float));
    if (c->o->v)
        put(&w, c->o->v, (size_t)P * sizeof(float));
    put(&w, m->state_h, (size_t)S * sizeof(float));
    put(&w, m->state_c, (size_t)S * sizeof(float));
    uint8_t d[32];
    sha256_digest(&w.h, SHA256_DIGEST_SIZE, d);
    if (fwrite(d, 1, 32, f) != 32)
        w.err = w.err ? w.err : errno ? errno : EIO;
    RS_CHECK(!w.err, "%s", strerror(w.err));
    return 0;
}

int ckpt_save(const char *dir, const ckpt_ident *id, const model *m, const optimizer *o,
              const lr_sched *s, const train_state *st, char *path_out, size_t len)
{
    char path[4200];
    ckpt_name(dir, (long)st->step, path, sizeof path);
    save_ctx ctx = {id, m, o, s, st};
    if (rs_write_atomic(path, write_ckpt, &ctx) != 0)
        return -1;
    if (path_out)
        snprintf(path_out, len, "%s", path);
    long steps[256];
    int n = list_ckpts(dir, steps, 256);
    for (int i = CKPT_KEEP; i < n; i++)
        ckpt_remove(dir, steps[i]);
    return 0;
}

long ckpt_drop_from(const char *dir, long from, long keep, char *newest, size_t len)
{
    long steps[256];
    int n = list_ckpts(dir, steps, 256), i = 0;
    for (; i < n && steps[i] >= from && steps[i] > keep; i++)
        ckpt_remove(dir, steps[i]);
    newest[0] = 0;
    if (i == n)
        return -1;
    ckpt_name(dir, steps[i], newest, len);
    return steps[i];
}

/* ---- reading ---- */

/* The seal: SHA-256 of every byte before it, as write_ckpt streams them. */
static void seal_of(const unsigned char *buf, size_t n, uint8_t d[SHA256_DIGEST_SIZE])
{
    struct sha256_ctx h;
    sha256_init(&h);
    sha256_update(&h, n, buf);
    sha256_digest(&h, SHA256_DIGEST_SIZE, d);
}

int ckpt_reseal(void *file, size_t size)
{
    if (size < SHA256_DIGEST_SIZE)
        return -1;
    seal_of(file, size - SHA256_DIGEST_SIZE, (uint8_t *)file + size - SHA256_DIGEST_SIZE);
    return 0;
}

/* What no writer produces but a sealed file may still hold (made by hand, or by another
 * program): names that would index past their tables, strings without their NUL,
 * negative counts.  The messages below and the training after a load rely on these. */
static int header_impossible(const ckpt_header *hd, char *why, size_t len)
{
    const train_state *st = &hd->st;
    const char *bad = !model_cell(hd->id.cfg.cell)                   ? "an unknown cell"
                    : hd->id.optim < 0 || hd->id.optim >= OPT_NKINDS ? "an unknown optimizer"
                    : !memchr(hd->id.corpus_sha256, 0, sizeof hd->id.corpus_sha256)
                        ? "an unterminated corpus digest"
                    : !memchr(st->gemm, 0, sizeof st->gemm) ? "an unterminated GEMM record"
                    : st->step < 0 || st->epoch < 0 || st->pos < 0 || st->tokens < 0 ||
                              st->loss_count < 0 || st->last_eval_step < 0 || hd->optim_t < 0 ||
                              st->noise.n < 0
                        ? "a negative count"
                        : NULL;
    if (bad)
        snprintf(why, len, "%s", bad);
    return bad != NULL;
}

/* The first identity field that differs, said as "--hidden 8, this run has --hidden 16:
 * resume with --hidden 8". */
static int ident_diff(const ckpt_ident *a, const ckpt_ident *e, char *why, size_t len)
{
#define DIFF(field, flag)                                                                  \
    if (a->field != e->field) {                                                            \
        snprintf(why, len, "%s %ld, this run has %s %ld: resume with %s %ld", flag,         \
                 (long)a->field, flag, (long)e->field, flag, (long)a->field);               \
        return 1;                                                                          \
    }
#define DIFF_NAMED(was, is, flag)                                                          \
    if (strcmp(was, is) != 0) {                                                            \
        snprintf(why, len, "%s %s, this run has %s %s: resume with %s %s", flag, was, flag, \
                 is, flag, was);                                                           \
        return 1;                                                                          \
    }
    DIFF_NAMED(model_cell(a->cfg.cell)->name, model_cell(e->cfg.cell)->name, "--model")
    DIFF(cfg.layers, "--layers")
    DIFF(cfg.hidden, "--hidden")
    DIFF(cfg.embed, "--embed")
    DIFF(cfg.batch, "--batch")
    DIFF(cfg.bptt, "--bptt")
    DIFF(cfg.classes, "--classes")
    DIFF_NAMED(a->level ? "char" : "word", e->level ? "char" : "word", "--level")
    DIFF_NAMED(optim_name((optim_kind)a->optim), optim_name((optim_kind)e->optim), "--optimizer")
    if (strcmp(a->corpus_sha256, e->corpus_sha256) != 0) {
        snprintf(why, len, "a corpus with sha256 %.12s..., this run's has %.12s...: resume with "
                 "the corpus it was trained on", a->corpus_sha256, e->corpus_sha256);
        return 1;
    }
    if (a->cfg.vocab != e->cfg.vocab) {
        snprintf(why, len, "a vocabulary of %d, this run has %d: resume with the --vocab it was "
                 "trained with", a->cfg.vocab, e->cfg.vocab);
        return 1;
    }
    return 0;
#undef DIFF
#undef DIFF_NAMED
}

/* Set by ckpt_load when the file itself is bad (short, unsealed, impossible), not when it
 * belongs to another run: only then may an older checkpoint stand in for it. */
static int load_damaged;

int ckpt_load(const char *path, const ckpt_ident *expect, model *m, optimizer *o, lr_sched *s,
              train_state *st)
{
    load_damaged = 1;
    int fd = rs_open_regular(path, O_RDONLY, "checkpoint");
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "rb");
    if (!f)
        close(fd);
    RS_CHECK(f, "cannot read checkpoint %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = size > 0 ? malloc((size_t)size) : NULL;
    int ok = buf && fread(buf, 1, (size_t)size, f) == (size_t)size;
    fclose(f);
    if (!ok) {
        free(buf);
        RS_CHECK(0, "cannot read checkpoint %s", path);
    }
    int rc = -1;
    char why[256];
    long hdr_end = 8 + (long)sizeof(ckpt_header);
    ckpt_header hd;
    if (size < hdr_end + 32 || memcmp(buf, CKPT_MAGIC, 8) != 0) {
        rs_seterr("%s is not an rnn-train checkpoint of this version", path);
        goto out;
    }
    uint8_t d[32];
    seal_of(buf, (size_t)(size - 32), d);
    if (memcmp(d, buf + size - 32, 32) != 0) {
        rs_seterr("checkpoint %s is damaged (checksum mismatch)", path);
        goto out;
    }
    memcpy(&hd, buf + 8, sizeof hd);
    load_damaged = 0;   /* sealed: what follows is about whose it is */
    if (hd.version != CKPT_VERSION || hd.header_bytes != sizeof hd) {
        rs_seterr("%s was written by another version of rnn-train", path);
        goto out;
    }
    if (header_impossible(&hd, why, sizeof why)) {
        load_damaged = 1;
        rs_seterr("checkpoint %s is damaged (it holds %s)", path, why);
        goto out;
    }
    if (ident_diff(&hd.id, expect, why, sizeof why)) {
        rs_seterr("checkpoint %s was written with %s (or use another --checkpoint folder)",
                  path, why);
        goto out;
    }
    /* --seed (the random seed) picks the completion questions and is reported: not silently replaced */
    if (hd.st.seed != st->seed) {
        rs_seterr("checkpoint %s was written with --seed %llu, this run has --seed %llu: "
                  "resume with --seed %llu (or use another --checkpoint folder)", path,
                  (unsigned long long)hd.st.seed, (unsigned long long)st->seed,
                  (unsigned long long)hd.st.seed);
        goto out;
    }
    long P = m->lay.total, S = (long)m->cfg.layers * m->cfg.batch * m->cfg.hidden;
    int k = optim_nstate(o->kind);
    long per_worker = (long)m->cfg.layers * expect->cfg.batch * m->cfg.hidden;
    if (hd.nstate != S && per_worker > 0 && hd.nstate % per_worker == 0) {
        /* the carried state holds every worker's b streams: the worker count differs */
        long was = hd.nstate / per_worker, is = S / per_worker;
        rs_seterr("checkpoint %s was written with --workers %ld (%ld x %d streams), this run has "
                  "--workers %ld: resume with --workers %ld", path, was, was, expect->cfg.batch,
                  is, was);
        goto out;
    }
    if (hd.nparams != P || hd.nstate != S || size != hdr_end + (long)((P * (1 + k) + 2 * S) * 4) + 32) {
        rs_seterr("checkpoint %s has an unexpected size for this configuration", path);
        goto out;
    }
    const unsigned char *p = buf + hdr_end;
    memcpy(m->params, p, (size_t)P * 4), p += P * 4;
    if (o->m)
        memcpy(o->m, p, (size_t)P * 4), p += P * 4;
    if (o->v)
        memcpy(o->v, p, (size_t)P * 4), p += P * 4;
    memcpy(m->state_h, p, (size_t)S * 4), p += S * 4;
    memcpy(m->state_c, p, (size_t)S * 4);
    o->t = hd.optim_t;
    s->scale = hd.sched.scale;
    s->best_ppl = hd.sched.best_ppl;
    s->halving = hd.sched.halving;
    *st = hd.st;
    rc = 0;
out:
    free(buf);
    return rc;
}

int ckpt_load_latest(const char *dir, const ckpt_ident *expect, model *m, optimizer *o,
                     lr_sched *s, train_state *st, char *path_out, size_t len)
{
    char path[4200];
    long steps[256];
    int n = list_ckpts(dir, steps, 256);
    RS_CHECK(n > 0, "--resume: no checkpoint in %s", dir);
    /* newest first; a damaged one (a crash mid-write on a filesystem without the rename's
     * guarantee, a disk error) is set aside and the one before it taken, said in one line */
    for (int i = 0; i < n; i++) {
        ckpt_name(dir, steps[i], path, sizeof path);
        train_state keep = *st;
        if (ckpt_load(path, expect, m, o, s, st) == 0) {
            if (path_out)
                snprintf(path_out, len, "%s", path);
            return 0;
        }
        *st = keep;
        if (!load_damaged)
            return -1;
        RS_CHECK(i + 1 < n, "%s, and no older checkpoint is sound: remove %s to start the run over",
                 rs_lasterr(), dir);
        char aside[4300];
        snprintf(aside, sizeof aside, "%s.damaged", path);
        fprintf(stderr, "rnn-train: %s; resuming from the checkpoint before it (this one kept as %s)\n",
                rs_lasterr(), aside);
        if (rename(path, aside) != 0 && errno != ENOENT) {
            /* another rank moved it first, or the folder is read-only: the next is tried all the same */
        }
    }
    return -1;
}
