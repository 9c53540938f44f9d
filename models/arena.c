/* arena.c — every activation of a training step planned into one allocation.
 *
 * The plan is a pure function of the configuration (B, T, H, D, V, L, cell): each
 * tensor's size is known before the first step, so the step loop never allocates.
 * The plan runs twice: once with no base to add up the size, then with the block.
 *
 * Reuse that makes the arena smaller than the naive sum:
 *   - LSTM gate pre-activations are overwritten by the activations (the backward needs
 *     only the activations); an Elman layer computes its pre-activations inside h;
 *   - one dpre (T, B, G) and two (T, B, max(H, D)) gradient buffers serve every layer,
 *     since the backward finishes a layer before it starts the next one down.
 *
 * The naive estimate is what a framework that allocates each op's output and each
 * gradient per time step would hold at the end of the forward pass plus the
 * backward's buffers (every tensor separately, nothing in place, nothing shared):
 *   per step and layer: input projection (B,G), recurrent product (B,G), their sum
 *   (B,G), the activations (B,G) [LSTM: + c, tanh c, h (B,H) each; Elman: h], and a
 *   gradient of each of those; per step: embedding (B,D) and its gradient, logits,
 *   probabilities and their gradient (B,V) each, the loss (B).
 * It is an estimate of what an unplanned implementation costs, reported beside the
 * arena, not a measurement of any particular framework. */
#include <stdlib.h>
#include <string.h>

#include "bigmem.h"
#include "check.h"
#include "model.h"

#define ARENA_ALIGN 64

typedef struct {
    char *base;      /* NULL while sizing */
    size_t off;
} planner;

static void *take(planner *p, size_t bytes)
{
    size_t at = p->off;
    p->off += (bytes + ARENA_ALIGN - 1) / ARENA_ALIGN * ARENA_ALIGN;
    return p->base ? p->base + at : NULL;
}

#define TAKE_F(p, n) ((float *)take(p, (size_t)(n) * sizeof(float)))
#define TAKE_I(p, n) ((int *)take(p, (size_t)(n) * sizeof(int)))

static void plan(planner *p, activations *a, const model_cfg *c)
{
    long B = c->batch, T = c->bptt, H = c->hidden, D = c->embed, V = c->vocab;
    long G = (long)model_gates(c) * H, W = H > D ? H : D;
    a->inputs = TAKE_I(p, T * B);
    a->targets = TAKE_I(p, T * B);
    a->x0 = TAKE_F(p, T * B * D);
    for (int l = 0; l < c->layers; l++) {
        a->h[l] = TAKE_F(p, (T + 1) * B * H);
        if (c->cell == CELL_LSTM) {
            a->c[l] = TAKE_F(p, (T + 1) * B * H);
            a->gates[l] = TAKE_F(p, T * B * G);
            a->tc[l] = TAKE_F(p, T * B * H);
        } else
            a->c[l] = a->gates[l] = a->tc[l] = NULL;
    }
    a->logits = TAKE_F(p, T * B * V);
    a->dlogits = TAKE_F(p, T * B * V);
    a->loss = TAKE_F(p, T * B);
    a->dpre = TAKE_F(p, T * B * G);
    a->dA = TAKE_F(p, T * B * W);
    a->dB = TAKE_F(p, T * B * W);
    a->dh_next = TAKE_F(p, B * H);
    a->dc_next = TAKE_F(p, B * H);
    a->ones = TAKE_F(p, T * B);
    if (c->classes > 0) {
        a->cls_logits = TAKE_F(p, T * B * c->classes);
        a->dcls = TAKE_F(p, T * B * c->classes);
        a->cls_targets = TAKE_I(p, T * B);
        a->cls_rows = TAKE_I(p, T * B);
        a->cls_pos = TAKE_I(p, T * B);
        a->cls_start = TAKE_I(p, c->classes + 1);
        a->cls_zoff = (long *)take(p, (size_t)(c->classes + 1) * sizeof(long));
        a->cls_lw = TAKE_F(p, T * B);
        a->cls_h = TAKE_F(p, T * B * H);
        a->cls_dh = TAKE_F(p, T * B * H);
    } else {
        a->cls_logits = a->dcls = a->cls_lw = a->cls_h = a->cls_dh = NULL;
        a->cls_targets = a->cls_rows = a->cls_pos = a->cls_start = NULL;
        a->cls_zoff = NULL;
    }
}

static void naive_estimate(const model_cfg *c, size_t *bytes, long *allocs)
{
    long B = c->batch, T = c->bptt, H = c->hidden, D = c->embed, V = c->vocab;
    long G = (long)model_gates(c) * H;
    int lstm = c->cell == CELL_LSTM;
    long per_layer = 4 * B * G + (lstm ? 3 : 1) * B * H;      /* forward tensors */
    long per_step = 2 * (c->layers * per_layer + B * D + 3 * B * V) + B;
    *bytes = (size_t)(T * per_step) * sizeof(float);
    *allocs = T * (2 * (c->layers * (4 + (lstm ? 3 : 1)) + 4) + 1);
}

int arena_create(arena *a, activations *act, const model_cfg *c)
{
    memset(a, 0, sizeof *a);
    planner p = {NULL, 0};
    plan(&p, act, c);
    a->bytes = p.off;
    a->base = train_big_alloc(a->bytes);   /* 64-byte aligned, zeroed: first touch here */
    RS_CHECK(a->base, "cannot allocate the activation arena (%.1f MiB) for this configuration",
          a->bytes / 1048576.0);
    p = (planner){a->base, 0};
    plan(&p, act, c);
    RS_ASSERT(p.off == a->bytes);
    for (long i = 0; i < (long)c->bptt * c->batch; i++)
        act->ones[i] = 1.0f;
    naive_estimate(c, &a->naive_bytes, &a->naive_allocs);
    return 0;
}

void arena_destroy(arena *a)
{
    train_big_free(a->base);
    a->base = NULL;
}
