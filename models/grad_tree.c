/* grad_tree.c — the fixed summation order of a rank's workers' gradients (grad_tree.h):
 * the schedule planned once by running the binary counter over buffer indices, then
 * applied to each worker's gradient (or to ranges of it). */
#include <stdlib.h>
#include <string.h>

#include "bigmem.h"
#include "check.h"
#include "grad_tree.h"

/* Plan the schedule; with ops NULL only count the operations and buffers. */
static void plan(grad_tree *t, int *nops_out)
{
    int slot[32], freelist[32], nfree = 0, inuse = 0, nops = 0, most = 0;
    for (int j = 0; j < 32; j++)
        slot[j] = -1;
#define EMIT(D, S, C)                                                           \
    do {                                                                        \
        if (t->ops)                                                             \
            t->ops[nops] = (grad_tree_op){(signed char)(D), (signed char)(S), (C)}; \
        nops++;                                                                 \
    } while (0)
    for (int k = 0; k < t->leaves; k++) {
        if (t->first_op)
            t->first_op[k] = nops;
        int c = -1, j = 0;   /* the carry: -1 is the leaf itself (the worker's gradient) */
        for (; slot[j] >= 0; j++) {   /* merge equal subtrees: slot j holds 2^j leaves */
            EMIT(slot[j], c, 0);
            if (c >= 0)
                freelist[nfree++] = c, inuse--;
            c = slot[j];
            slot[j] = -1;
        }
        if (c < 0) {   /* a new subtree of one leaf: keep a copy of it */
            c = nfree ? freelist[--nfree] : inuse + nfree;
            inuse++;
            EMIT(c, -1, 1);
        }
        slot[j] = c;
        most = inuse > most ? inuse : most;
    }
    /* the subtrees left, smallest (newest) first: s = older + s */
    int s = -1;
    for (int j = 0; j < 32; j++) {
        if (slot[j] < 0)
            continue;
        if (s >= 0)
            EMIT(slot[j], s, 0);
        s = slot[j];
    }
#undef EMIT
    if (t->first_op)
        t->first_op[t->leaves] = nops;
    t->result = s;
    t->nbuf = most;
    *nops_out = nops;
}

int grad_tree_create(grad_tree *t, int leaves, long n)
{
    memset(t, 0, sizeof *t);
    t->leaves = leaves, t->n = n;
    int nops;
    plan(t, &nops);
    t->ops = malloc((size_t)nops * sizeof *t->ops);
    t->first_op = malloc((size_t)(leaves + 1) * sizeof *t->first_op);
    RS_CHECK(t->ops && t->first_op, "out of memory for the sum of %d workers", leaves);
    plan(t, &nops);
    for (int b = 0; b < t->nbuf; b++) {
        t->buf[b] = train_big_alloc((size_t)n * sizeof(float));
        RS_CHECK(t->buf[b], "cannot allocate the %d partial sums of %d workers' gradients "
                 "(%.0f MiB each)", t->nbuf, leaves, n * 4.0 / 1048576);
    }
    return 0;
}

void grad_tree_free(grad_tree *t)
{
    for (int b = 0; b < t->nbuf; b++)
        train_big_free(t->buf[b]);
    free(t->ops);
    free(t->first_op);
    memset(t, 0, sizeof *t);
}

void grad_tree_add(const grad_tree *t, int k, const float *g, long from, long to)
{
    for (int i = t->first_op[k]; i < t->first_op[k + 1]; i++) {
        const grad_tree_op *op = &t->ops[i];
        float *dst = t->buf[op->dst] + from;
        const float *src = (op->src < 0 ? g : t->buf[op->src]) + from;
        if (op->copy) {
            memcpy(dst, src, (size_t)(to - from) * sizeof(float));
            continue;
        }
#pragma omp parallel for schedule(static)
        for (long e = 0; e < to - from; e++)
            dst[e] += src[e];
    }
}

float *grad_tree_sum(const grad_tree *t) { return t->buf[t->result]; }
