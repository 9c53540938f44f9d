/* train_sparse.c — --embed-exchange sparse: the embedding's gradient exchanged as the rows
 * some worker's window touched, not all V of them.
 *
 * A window of b x bptt tokens scatters its gradient into at most that many of the V
 * embedding rows (model_backward); every other row is exactly zero on every rank, and
 * stays zero when summed.  So each rank marks the rows its workers' windows touch (a
 * bitmap of V bits), the ranks OR their bitmaps (one allreduce of V/8 bytes), and the
 * rows of that union are moved to the end of the embedding's block, next to the rest of
 * the gradient (the embedding is first in the layout, model.h): one contiguous range
 * [V - U rows, total) is summed instead of [0, total), and the rows are moved back.
 * Per step it is sparse only when that moves fewer bytes: (V - U) D floats saved
 * against the bitmap's V/8 bytes (at large P the union approaches V).
 *
 * The sums of the union's rows are the dense exchange's whenever the allreduce adds an
 * element's terms in an order that does not depend on its position in the buffer
 * (--allreduce ordered, recursive doubling; any algorithm at P = 2: a + b == b + a);
 * otherwise within rounding of them. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "train_ctx.h"
#include "train_platform.h"

int train_sparse_setup(run_ctx *r)
{
    dp_ctx *d = &r->dp;
    d->sparse = strcmp(r->o->embed_exchange, "sparse") == 0;
    if (!d->sparse || d->P == 1)
        return 0;
    long V = r->m.lay.t[P_EMBED].rows;
    d->row_bits = calloc((size_t)(V + 63) / 64, sizeof *d->row_bits);
    d->rows = malloc((size_t)V * sizeof *d->rows);
    RS_CHECK(d->row_bits && d->rows, "cannot allocate the sparse exchange's row lists");
    return 0;
}

void train_sparse_teardown(run_ctx *r)
{
    free(r->dp.row_bits);
    free(r->dp.rows);
    r->dp.row_bits = NULL, r->dp.rows = NULL;
}

/* A worker's window: its input tokens are the rows its backward writes. */
void train_sparse_mark(run_ctx *r, const int *inputs, long n)
{
    uint64_t *bits = r->dp.row_bits;
    if (!bits)
        return;
    for (long i = 0; i < n; i++)
        bits[inputs[i] >> 6] |= 1ULL << (inputs[i] & 63);
}

/* Collective, after every worker's window is marked and before any exchange: the union
 * over ranks, and whether this step goes sparse (d->packed_from > 0 then). */
void train_sparse_union(run_ctx *r)
{
    dp_ctx *d = &r->dp;
    d->packed_from = 0;
    if (!d->row_bits)
        return;
    long V = r->m.lay.t[P_EMBED].rows, D = r->m.lay.t[P_EMBED].cols, words = (V + 63) / 64;
    dp_comm_or_u64(d->row_bits, words);
    long U = 0;
    for (long w = 0; w < words; w++)
        for (uint64_t b = d->row_bits[w]; b; b &= b - 1)
            d->rows[U++] = (int)(w * 64 + __builtin_ctzll(b));
    memset(d->row_bits, 0, (size_t)words * sizeof *d->row_bits);
    d->nrows = U;
    d->rows_sum += (double)U / (double)V;
    d->rows_steps++;
    if ((V - U) * D * (long)sizeof(float) > words * 8)   /* fewer bytes than dense */
        d->packed_from = (V - U) * D;
}

/* The union's rows moved to the end of the embedding's block, in order; the exchange
 * then starts at d->packed_from.  A row never lands on one not yet moved (row j goes to
 * V - U + j >= rows[j], the rows taken from the last). */
void train_sparse_pack(run_ctx *r, float *grad)
{
    dp_ctx *d = &r->dp;
    if (!d->packed_from)
        return;
    long D = r->m.lay.t[P_EMBED].cols, base = d->packed_from / D;
    for (long j = d->nrows - 1; j >= 0; j--)
        if (d->rows[j] != base + j)
            memcpy(grad + (base + j) * D, grad + (long)d->rows[j] * D, (size_t)D * sizeof(float));
}

/* After the exchange: the rows back in place (the first first), and the slots they
 * passed through that are not union rows zeroed, as the dense sum leaves them. */
void train_sparse_unpack(run_ctx *r, float *grad)
{
    dp_ctx *d = &r->dp;
    if (!d->packed_from)
        return;
    long D = r->m.lay.t[P_EMBED].cols, base = d->packed_from / D, j = 0;
    for (; j < d->nrows; j++)
        if (d->rows[j] != base + j)
            memcpy(grad + (long)d->rows[j] * D, grad + (base + j) * D, (size_t)D * sizeof(float));
    /* slots base..V-1: a union row keeps its sum, any other row is zero again */
    long k = 0;
    while (k < d->nrows && d->rows[k] < base)
        k++;
    for (long row = base; row < base + d->nrows; row++) {
        if (k < d->nrows && d->rows[k] == row) {
            k++;
            continue;
        }
        memset(grad + row * D, 0, (size_t)D * sizeof(float));
    }
    d->packed_from = 0;
}
