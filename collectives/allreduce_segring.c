/* allreduce_segring.c — segmented (pipelined) ring: the ring's blocks cut into segments
 * of prm.segment_bytes, sent with MPI_Isend/MPI_Irecv so that a segment is reduced
 * while the next one is in flight and is forwarded as soon as it is reduced.
 *
 * The 2(p-1) steps of the ring are one uniform schedule: step t sends block me-t-1 and
 * receives block me-t-2 (mod p); steps t < p-1 (reduce-scatter) receive into scratch
 * and reduce, steps t >= p-1 (allgather) receive in place.  The block received at step t
 * is the one sent at step t+1, so segment j goes out again the moment it is final: a
 * segment never waits for the rest of its block.
 *
 * Ordering: all messages go right on one tag; the sends of step t are all issued
 * before any of step t+1 and receives are posted in the same order, so MPI's
 * non-overtaking rule pairs them.  Receives for step t+1 are posted one step early
 * (double-buffered scratch), except allgather receives when p = 2: their block is the
 * one the previous step is still sending, so they wait until that send completed. */
#include <stdlib.h>

#include "ar_internal.h"
#include "check.h"

typedef struct {
    MPI_Request *rreq[2], *sreq[2];  /* per step parity, one per segment */
    int nseg_max;
} segring;

/* Cost (segments of s bytes, k = ceil(n/(p s)) per block): every segment pays alpha.
 * Where the transport moves data while the CPU reduces (m->overlap), a segment's
 * reduction hides behind the next one's transfer:
 *   2(p-1) k alpha + n(p-1)/p (beta + max(beta, gamma)) + s gamma;
 * where the CPU does both (shared memory), nothing overlaps: the ring's time plus the
 * extra latencies, 2(p-1) k alpha + 2n(p-1)/p beta + n(p-1)/p gamma. */
static double segring_model_s(const ar_model *m, const ar_params *prm, int p, double n)
{
    if (p < 2)
        return 0;
    double blk = n / p, s = prm->segment_bytes > 0 ? (double)prm->segment_bytes : blk;
    if (s > blk)
        s = blk;
    double k = s > 0 ? (double)(long)((blk + s - 1) / s) : 1;
    double b = m->beta_s_per_byte, g = m->gamma_s_per_byte;
    if (!m->overlap)
        return 2.0 * (p - 1) * k * m->alpha_s + (p - 1) * blk * (2 * b + g);
    return 2.0 * (p - 1) * k * m->alpha_s + (p - 1) * blk * (b + (b > g ? b : g)) + s * g;
}

static size_t seg_elems(const ar_plan *pl)
{
    size_t s = (size_t)pl->prm.segment_bytes / pl->esize;
    return s > 0 ? s : 1;
}

static size_t segring_scratch_bytes(const ar_plan *pl, size_t count)
{
    return 2 * ar_block_len(pl, count, pl->p, 0) * pl->esize;  /* two step buffers */
}

static int segring_setup(ar_plan *pl)
{
    RS_CHECK(pl->prm.segment_bytes > 0, "segring: segment size must be positive (got %ld)",
          pl->prm.segment_bytes);
    segring *sr = calloc(1, sizeof *sr);
    RS_CHECK(sr, "out of memory");
    pl->priv = sr;
    snprintf(pl->describe, sizeof pl->describe, "segring segment_bytes=%ld", pl->prm.segment_bytes);
    return 0;
}

static int segring_reserve(ar_plan *pl, size_t count)
{
    segring *sr = pl->priv;
    size_t blk = ar_block_len(pl, count, pl->p, 0), s = seg_elems(pl);
    int n = (int)((blk + s - 1) / s);
    for (int i = 0; i < 2; i++) {
        free(sr->rreq[i]);
        free(sr->sreq[i]);
        sr->rreq[i] = malloc(sizeof(MPI_Request) * (size_t)(n > 0 ? n : 1));
        sr->sreq[i] = malloc(sizeof(MPI_Request) * (size_t)(n > 0 ? n : 1));
        RS_CHECK(sr->rreq[i] && sr->sreq[i], "out of memory for %d segment requests", n);
    }
    sr->nseg_max = n;
    return 0;
}

static void segring_teardown(ar_plan *pl)
{
    segring *sr = pl->priv;
    if (!sr)
        return;
    for (int i = 0; i < 2; i++) {
        free(sr->rreq[i]);
        free(sr->sreq[i]);
    }
    free(sr);
    pl->priv = NULL;
}

/* One step's view of the schedule. */
typedef struct {
    size_t off, len;  /* the block's elements */
    int nseg;
} blk;

static blk block_of(const ar_plan *pl, size_t count, int n, int b, size_t s)
{
    blk k = {ar_block_off(pl, count, n, b), ar_block_len(pl, count, n, b), 0};
    k.nseg = (int)((k.len + s - 1) / s);
    return k;
}

/* A block's nseg segments are equal to an element, none much shorter than the rest:
 * SMPI lets a message under its eager threshold overtake a larger one sent before it on
 * the same tag (a short last segment did, and deadlocked 16 simulated nodes). */
static size_t seg_off(const blk *k, int j)
{
    return k->nseg ? k->len * (size_t)j / (size_t)k->nseg : 0;
}
static size_t seg_len(const blk *k, int j) { return seg_off(k, j + 1) - seg_off(k, j); }

int ar_segring_steps(const ar_plan *pl, MPI_Comm comm, int me, int n, void *buf,
                     size_t count, const ar_segring_bufs *sb, int t0, int t1)
{
    const int right = ar_mod(me + 1, n), left = ar_mod(me - 1, n);
    const size_t s = sb->seg;
    char *const *scr = sb->scr;
    int posted = t0 - 1;  /* the last step whose receives are posted */

#define RECV_BLOCK(t) block_of(pl, count, n, ar_mod(me - (t) - 2, n), s)
#define SEND_BLOCK(t) block_of(pl, count, n, ar_mod(me - (t) - 1, n), s)
#define POST_RECVS(t)                                                                   \
    do {                                                                                \
        blk rb_ = RECV_BLOCK(t);                                                        \
        for (int j_ = 0; j_ < rb_.nseg; j_++) {                                         \
            char *dst_ = (t) < n - 1 ? scr[(t) & 1] + seg_off(&rb_, j_) * pl->esize      \
                                     : ar_at(pl, buf, rb_.off + seg_off(&rb_, j_));      \
            AR_MPI(MPI_Irecv(dst_, (int)seg_len(&rb_, j_), pl->mpi_dtype, left,         \
                             AR_TAG_RS, comm, &sb->rreq[(t) & 1][j_]));                 \
        }                                                                               \
        posted = (t);                                                                   \
    } while (0)
#define SEND_SEG(t, b, j)                                                               \
    AR_MPI(MPI_Isend(ar_at(pl, buf, (b).off + seg_off(&(b), j)), (int)seg_len(&(b), j),   \
                     pl->mpi_dtype, right, AR_TAG_RS, comm, &sb->sreq[(t) & 1][j]))

    if (t0 >= t1)
        return 0;
    POST_RECVS(t0);
    blk sb0 = SEND_BLOCK(t0);
    for (int j = 0; j < sb0.nseg; j++)
        SEND_SEG(t0, sb0, j);
    for (int t = t0; t < t1; t++) {
        /* The sends of step t-1 are done: their request slots (parity t+1) are free,
         * and so is the block they sent. */
        if (t > t0) {
            blk prev = SEND_BLOCK(t - 1);
            AR_MPI(MPI_Waitall(prev.nseg, sb->sreq[(t - 1) & 1], MPI_STATUSES_IGNORE));
        }
        if (posted < t)
            POST_RECVS(t);
        /* Post step t+1 early unless it is an allgather step whose block (sent at step
         * t+2-n) may still be in flight: only when n = 2 is that step t itself. */
        if (t + 1 < t1 && (t + 1 < n - 1 || n >= 3))
            POST_RECVS(t + 1);
        blk rb = RECV_BLOCK(t);
        for (int j = 0; j < rb.nseg; j++) {
            AR_MPI(MPI_Wait(&sb->rreq[t & 1][j], MPI_STATUS_IGNORE));
            if (t < n - 1)
                ar_reduce_local(ar_at(pl, buf, rb.off + seg_off(&rb, j)),
                                scr[t & 1] + seg_off(&rb, j) * pl->esize, seg_len(&rb, j),
                                pl->dtype, pl->op);
            if (t + 1 < t1)
                SEND_SEG(t + 1, rb, j);  /* the block received at t is sent at t+1 */
        }
    }
    blk last = SEND_BLOCK(t1 - 1);
    AR_MPI(MPI_Waitall(last.nseg, sb->sreq[(t1 - 1) & 1], MPI_STATUSES_IGNORE));
    return 0;
#undef RECV_BLOCK
#undef SEND_BLOCK
#undef POST_RECVS
#undef SEND_SEG
}

static int segring_run_mid(ar_plan *pl, void *buf, size_t count, ar_mid_fn mid, void *ctx)
{
    segring *sr = pl->priv;
    const int p = pl->p, me = pl->rank;
    const size_t blkmax = ar_block_len(pl, count, p, 0);
    ar_segring_bufs sb = {{pl->scratch, ar_at(pl, pl->scratch, blkmax)},
                          {sr->rreq[0], sr->rreq[1]}, {sr->sreq[0], sr->sreq[1]}, seg_elems(pl)};
    if (!mid)
        return ar_segring_steps(pl, pl->comm, me, p, buf, count, &sb, 0, 2 * (p - 1));
    if (ar_segring_steps(pl, pl->comm, me, p, buf, count, &sb, 0, p - 1) != 0)
        return -1;
    void *dst = mid(ctx, buf, ar_block_off(pl, count, p, me), ar_block_len(pl, count, p, me));
    return ar_segring_steps(pl, pl->comm, me, p, dst, count, &sb, p - 1, 2 * (p - 1));
}

const ar_algo allreduce_segring = {
    .name = "segring",
    .summary = "ring with segments pipelined by Isend/Irecv (--segment-size)",
    .cost = "2(p-1)k a + n(p-1)/p (b + max(b,g)) + s g with overlap, else + n(p-1)/p (2b + g); k = ceil(n/(p s))",
    .model_s = segring_model_s,
    .setup = segring_setup,
    .scratch_bytes = segring_scratch_bytes,
    .reserve = segring_reserve,
    .run_mid = segring_run_mid,
    .teardown = segring_teardown,
};
