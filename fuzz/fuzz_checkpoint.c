/* fuzz_checkpoint.c — fuzz target: rnn-train's checkpoint loader (ckpt_load,
 * models/checkpoint.c) on any bytes as a checkpoint file, for the two runs that made
 * the seeds (fuzz/checkpoint_seeds.sh).  The seal (a SHA-256 over the file) refuses
 * every mutated byte, so each input is loaded twice: as it is, which tests the seal
 * (a file the loader accepts must carry its own seal), and resealed by ckpt_reseal, so
 * that the mutations reach the header and payload checks behind it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "checkpoint.h"
#include "corpus.h"
#include "fuzz_input.h"

/* The identities of fuzz/checkpoint_seeds.sh's runs, on fuzz/seeds/corpus/moby.txt at
 * character level; keep both in step with that script. */
#define MOBY_SHA256 "8229a7902f96444eb4e702e248436bb2d502d58b94c8c0321ba420f8bea8d055"
static const ckpt_ident runs[] = {
    {{CELL_LSTM, 1, 4, 3, 57, 2, 5, 0}, LEVEL_CHAR, OPT_ADAM, MOBY_SHA256},
    {{CELL_ELMAN, 2, 3, 3, 57, 2, 5, 0}, LEVEL_CHAR, OPT_SGD, MOBY_SHA256},
};

/* What training after a load relies on (checkpoint.c refuses the rest). */
static void check_state(const train_state *st, const optimizer *o)
{
    if (!memchr(st->gemm, 0, sizeof st->gemm) || st->step < 0 || st->epoch < 0 ||
        st->pos < 0 || st->tokens < 0 || st->loss_count < 0 || st->last_eval_step < 0 ||
        st->noise.n < 0 || o->t < 0)
        abort();
}

/* Load path as a checkpoint of run id; 0 or -1 as ckpt_load. */
static int load_as(const char *path, const ckpt_ident *id)
{
    model m;
    memset(&m, 0, sizeof m);
    m.cfg = id->cfg;
    model_layout(&m.cfg, &m.lay);
    size_t S = (size_t)m.cfg.layers * (size_t)m.cfg.batch * (size_t)m.cfg.hidden;
    m.params = calloc((size_t)m.lay.total, sizeof(float));
    m.state_h = calloc(S, sizeof(float));
    m.state_c = calloc(S, sizeof(float));
    optimizer o;
    lr_sched s;
    train_state st;
    memset(&s, 0, sizeof s);
    int rc = -1;
    if (m.params && m.state_h && m.state_c && optim_init(&o, (optim_kind)id->optim, m.lay.total) == 0) {
        rc = ckpt_load(path, id, &m, &o, &s, &st);
        if (rc == 0)
            check_state(&st, &o);
        else if (strchr(rs_lasterr(), '\n'))
            abort();   /* bad input is one line */
        optim_free(&o);
    }
    free(m.params), free(m.state_h), free(m.state_c);
    return rc;
}

/* bytes as a file; 0 for each run that loads it, else -1. */
static int load_bytes(const uint8_t *data, size_t n)
{
    char path[64];
    int fd = fuzz_file(data, n, path), rc = -1;
    if (fd < 0)
        return -1;
    for (int r = 0; r < RS_ARRAY_LEN(runs); r++)
        if (load_as(path, &runs[r]) == 0)
            rc = 0;
    close(fd);
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    uint8_t *sealed = malloc(n ? n : 1);
    if (!sealed)
        return 0;
    memcpy(sealed, data, n);
    int resealed = ckpt_reseal(sealed, n) == 0;
    if (load_bytes(data, n) == 0 && (!resealed || memcmp(sealed, data, n) != 0))
        abort();   /* the loader took a file whose seal does not match it */
    if (resealed)
        (void)load_bytes(sealed, n);
    free(sealed);
    return 0;
}
