/* allreduce_ordered.c — an allreduce whose sum has one fixed order: the same bits as
 * summing the p ranks' vectors on one rank with the binary-counter tree below, whatever
 * the algorithm's message schedule, and so the same bits for any cut of the vector.
 *
 * Reduce-scatter by pairwise exchange: the vector is cut into p blocks (ar_block_*),
 * rank r owns block r; at step s = 1..p-1 a rank sends its copy of block me+s to that
 * block's owner and receives rank me-s's copy of block me.  The owner then sums the p
 * copies of its block with the tree, in rank order, and an allgather (the same pairwise
 * schedule) spreads the blocks.  Cost as the ring: 2(p-1) messages, 2n(p-1)/p bytes
 * sent, n(p-1)/p reduced; scratch for the p-1 received copies (about n).
 *
 * The tree (the canonical order; models/grad_tree.c sums a rank's workers by the same
 * rule): leaves 0..p-1 enter one at a time, and while the two newest subtrees have the
 * same number of leaves they merge into one (so complete subtrees of 2^j leaves,
 * aligned at multiples of 2^j); after the last leaf the subtrees left are added from
 * the newest (smallest) to the oldest: s = newest; for each older t: s = t + s.  Since
 * a + b == b + a bitwise, a tree over N = P * 2^j leaves equals this tree over P
 * partials that are each a tree over 2^j consecutive leaves. */
#include "ar_internal.h"

/* Cost: 2(p-1) alpha + 2n(p-1)/p beta + n(p-1)/p gamma. */
static double ordered_model_s(const ar_model *m, const ar_params *prm, int p, double n)
{
    double f = (double)(p - 1) / p;
    return 2.0 * (p - 1) * m->alpha_s + 2.0 * n * f * m->beta_s_per_byte +
           n * f * m->gamma_s_per_byte;
}

/* The scratch slot of rank r's copy of my block (mine stays in buf). */
static char *slot(const ar_plan *pl, size_t blk, int r)
{
    int i = r < pl->rank ? r : r - 1;
    return ar_at(pl, pl->scratch, (size_t)i * blk);
}

/* Sum the p copies of my block (len elements) into own by the canonical tree.  A merge
 * adds into the buffer that is own if either is, so the total lands in own. */
static void tree_sum(const ar_plan *pl, char *own, size_t blk, size_t len)
{
    struct { char *at; long leaves; } st[64];
    int top = 0;
    for (int r = 0; r < pl->p; r++) {
        char *b = r == pl->rank ? own : slot(pl, blk, r);
        long n = 1;
        while (top > 0 && st[top - 1].leaves == n) {
            char *a = st[--top].at;   /* the older subtree */
            char *dst = b == own ? b : a, *src = b == own ? a : b;
            ar_reduce_local(dst, src, len, pl->dtype, pl->op);
            b = dst;
            n *= 2;
        }
        st[top].at = b, st[top].leaves = n;
        top++;
    }
    char *s = st[--top].at;
    while (top > 0) {
        char *t = st[--top].at;
        char *dst = s == own ? s : t, *src = s == own ? t : s;
        ar_reduce_local(dst, src, len, pl->dtype, pl->op);
        s = dst;
    }
}

static size_t ordered_scratch_bytes(const ar_plan *pl, size_t count)
{
    return (size_t)(pl->p - 1) * ar_block_len(pl, count, pl->p, 0) * pl->esize;
}

static int ordered_run_mid(ar_plan *pl, void *buf, size_t count, ar_mid_fn mid, void *ctx)
{
    const int p = pl->p, me = pl->rank;
    const size_t blk = ar_block_len(pl, count, p, 0);   /* block 0 is a largest one */
    const size_t myoff = ar_block_off(pl, count, p, me), mylen = ar_block_len(pl, count, p, me);
    for (int s = 1; s < p; s++) {
        int to = (me + s) % p, from = ar_mod(me - s, p);
        AR_MPI(MPI_Sendrecv(ar_at(pl, buf, ar_block_off(pl, count, p, to)),
                            (int)ar_block_len(pl, count, p, to), pl->mpi_dtype, to, AR_TAG_RS,
                            slot(pl, blk, from), (int)mylen, pl->mpi_dtype, from, AR_TAG_RS,
                            pl->comm, MPI_STATUS_IGNORE));
    }
    tree_sum(pl, ar_at(pl, buf, myoff), blk, mylen);
    void *dst = mid ? mid(ctx, buf, myoff, mylen) : buf;
    for (int s = 1; s < p; s++) {
        int to = (me + s) % p, from = ar_mod(me - s, p);
        AR_MPI(MPI_Sendrecv(ar_at(pl, dst, myoff), (int)mylen, pl->mpi_dtype, to, AR_TAG_AG,
                            ar_at(pl, dst, ar_block_off(pl, count, p, from)),
                            (int)ar_block_len(pl, count, p, from), pl->mpi_dtype, from, AR_TAG_AG,
                            pl->comm, MPI_STATUS_IGNORE));
    }
    return 0;
}

const ar_algo allreduce_ordered = {
    .name = "ordered",
    .summary = "pairwise reduce-scatter, blocks summed in one fixed order, allgather",
    .cost = "2(p-1) a + 2n(p-1)/p b + n(p-1)/p g",
    .model_s = ordered_model_s,
    .scratch_bytes = ordered_scratch_bytes,
    .run_mid = ordered_run_mid,
};
