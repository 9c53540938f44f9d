/* checkpoint.h — training checkpoints: everything needed to continue bit-identically.
 *
 * A checkpoint holds the parameters, the optimizer's state and update count, the
 * learning-rate schedule's state, the carried hidden state, the data position
 * (epoch, position in the streams), the step and token counts, the training time so
 * far, the seed and RNG counter, the running train-loss sum since the last evaluation,
 * B_simple's moving averages, and which GEMM backend ran each product (--gemm auto's picks): resuming from it gives
 * the same losses, bit for bit, as a run that was never stopped (same flags, same
 * --threads, same machine; the picks are reused, not timed again).
 *
 * Files: DIR/ckpt-<step, 9 digits>.bin, written with rs_write_atomic (a temporary,
 * fsync, link: never half-written, never overwriting).  After a new one is written
 * all but the newest CKPT_KEEP are removed; DIR/.lock is the folder's lock
 * (ckpt_prepare).  The format is this build's structs in native byte order, with a
 * magic, a version, and a SHA-256 of the whole file at its end, so a damaged file is
 * refused rather than half-loaded.  A checkpoint records the model shape, vocabulary
 * size, level, optimizer, the random seed (--seed) and the corpus's sha256 (and, by the size of the
 * carried state, the worker count); resuming with any of them different is refused with a line
 * naming the field, both values and the flag to resume with. */
#ifndef RS_MODELS_CHECKPOINT_H
#define RS_MODELS_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "gemm_auto.h"
#include "grad_noise.h"
#include "model.h"
#include "optim.h"

#define CKPT_KEEP 2
#define CKPT_LOCK ".lock"   /* the folder's lock file (kept: see fslock.h) */

typedef struct {
    int64_t step;          /* steps done */
    int64_t epoch;         /* passes over the train split completed */
    int64_t pos;           /* stream position of the next window */
    int64_t tokens;        /* training tokens consumed */
    double seconds;        /* training time so far, evaluations excluded */
    uint64_t seed;
    uint64_t rng_counter;  /* random draws so far (none yet; dropout/sampling will) */
    double loss_sum;       /* train loss summed over the steps since the last evaluation */
    int64_t loss_count;
    double last_valid_ppl; /* 0 = none yet */
    int64_t last_eval_step;
    char gemm[GA_RECORD_MAX]; /* which GEMM backend runs each product (matmul.h mm_record):
                                 a resume dispatches the same, without re-timing --gemm auto */
    grad_noise noise;      /* B_simple's moving averages (N >= 2 workers) */
} train_state;

/* What must match for a resume. */
typedef struct {
    model_cfg cfg;
    int32_t level;         /* corpus_level */
    int32_t optim;         /* optim_kind */
    char corpus_sha256[65];
} ckpt_ident;

/* With lock_fd (the run's one writer: rank 0), create DIR if needed, check it is
 * writable (by writing a probe file), and take DIR/.lock for the run's life (fslock.h:
 * refused, naming the holder, while another run holds it; a killed holder's lock ends
 * with it) and, under it, the temporaries a killed writer left are removed with a note
 * on stderr.  Every ckpt-*.bin must be a regular file (a FIFO, folder, ... is refused,
 * never opened).  Without resume, DIR must hold no checkpoint; with resume, it must
 * hold one.  0, or -1 with one line (rs_lasterr): bad input (*lock_fd may then be set:
 * release it with ckpt_unlock all the same).  Without lock_fd (the other ranks, which
 * read the folder only when resuming), DIR is checked if it exists, and never made. */
int ckpt_prepare(const char *dir, int resume, int *lock_fd);
void ckpt_unlock(int *lock_fd);   /* *lock_fd = -1 after; -1 already: nothing */
/* A run found diverged at step `from`: remove DIR's checkpoints of steps >= from, those
 * newer than keep only (a resumed run's own starting point stays).  newest: the newest
 * left ("" if none); returns its step, or -1. */
long ckpt_drop_from(const char *dir, long from, long keep, char *newest, size_t len);

/* Write DIR/ckpt-<step>.bin and prune older ones.  path_out (may be NULL) gets the
 * name.  0, or -1 (rs_lasterr). */
int ckpt_save(const char *dir, const ckpt_ident *id, const model *m, const optimizer *o,
              const lr_sched *s, const train_state *st, char *path_out, size_t len);

/* Load the newest checkpoint of DIR into m (parameters, carried state), o (state),
 * s (state) and st.  The identity must equal *expect, and the checkpoint's seed
 * st->seed as given (this run's --seed).  0, or -1 (rs_lasterr). */
int ckpt_load_latest(const char *dir, const ckpt_ident *expect, model *m, optimizer *o,
                     lr_sched *s, train_state *st, char *path_out, size_t len);
/* Load one checkpoint file (same checks). */
int ckpt_load(const char *path, const ckpt_ident *expect, model *m, optimizer *o, lr_sched *s,
              train_state *st);

/* Recompute the seal at the end of a checkpoint's bytes held in memory (size in all),
 * as the writer does: for a tool or test that edits a checkpoint and still wants the
 * loader to read what it changed (fuzz/fuzz_checkpoint.c).  0, or -1 if too short. */
int ckpt_reseal(void *file, size_t size);

/* The newest checkpoint's path in DIR; 0, or -1 if none. */
int ckpt_latest(const char *dir, char *path, size_t len);

#endif
