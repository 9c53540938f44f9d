/* allreduce_ring.c — ring allreduce: a reduce-scatter then an allgather around a ring
 * of p ranks, p-1 steps each, every step one MPI_Sendrecv of one block (count/p
 * elements) to the right neighbour and from the left.  Bandwidth-optimal (each rank
 * sends 2(p-1)/p of the vector, the lower bound of Patarasuk & Yuan), but 2(p-1)
 * latencies.  Any p; blocks differ by at most one element, and are empty when
 * count < p.  The two phases are also the building blocks of hier and torus2d. */
#include "ar_internal.h"

/* Cost: 2(p-1) alpha + 2n(p-1)/p beta + n(p-1)/p gamma. */
static double ring_model_s(const ar_model *m, const ar_params *prm, int p, double n)
{
    double f = (double)(p - 1) / p;
    return 2.0 * (p - 1) * m->alpha_s + 2.0 * n * f * m->beta_s_per_byte + n * f * m->gamma_s_per_byte;
}

/* Step s: send block me-s-1, receive block me-s-2 into tmp and reduce it into buf.
 * After step n-2 the block received is block me: every member's contribution to it
 * has travelled once around the ring. */
int ar_ring_reduce_scatter(const ar_plan *pl, MPI_Comm comm, int me, int n, void *buf,
                           size_t count, void *tmp)
{
    int right = ar_mod(me + 1, n), left = ar_mod(me - 1, n);
    for (int s = 0; s < n - 1; s++) {
        int sb = ar_mod(me - s - 1, n), rb = ar_mod(me - s - 2, n);
        size_t rlen = ar_block_len(pl, count, n, rb);
        AR_MPI(MPI_Sendrecv(ar_at(pl, buf, ar_block_off(pl, count, n, sb)), (int)ar_block_len(pl, count, n, sb),
                            pl->mpi_dtype, right, AR_TAG_RS, tmp, (int)rlen, pl->mpi_dtype, left,
                            AR_TAG_RS, comm, MPI_STATUS_IGNORE));
        ar_reduce_local(ar_at(pl, buf, ar_block_off(pl, count, n, rb)), tmp, rlen, pl->dtype, pl->op);
    }
    return 0;
}

/* Step s: send block me-s (the own one first), receive block me-s-1 in place. */
int ar_ring_allgather(const ar_plan *pl, MPI_Comm comm, int me, int n, void *buf, size_t count)
{
    int right = ar_mod(me + 1, n), left = ar_mod(me - 1, n);
    for (int s = 0; s < n - 1; s++) {
        int sb = ar_mod(me - s, n), rb = ar_mod(me - s - 1, n);
        AR_MPI(MPI_Sendrecv(ar_at(pl, buf, ar_block_off(pl, count, n, sb)), (int)ar_block_len(pl, count, n, sb),
                            pl->mpi_dtype, right, AR_TAG_AG,
                            ar_at(pl, buf, ar_block_off(pl, count, n, rb)), (int)ar_block_len(pl, count, n, rb),
                            pl->mpi_dtype, left, AR_TAG_AG, comm, MPI_STATUS_IGNORE));
    }
    return 0;
}

static size_t ring_scratch_bytes(const ar_plan *pl, size_t count)
{
    return ar_block_len(pl, count, pl->p, 0) * pl->esize;  /* block 0 is a largest one */
}

static int ring_run_mid(ar_plan *pl, void *buf, size_t count, ar_mid_fn mid, void *ctx)
{
    if (ar_ring_reduce_scatter(pl, pl->comm, pl->rank, pl->p, buf, count, pl->scratch) != 0)
        return -1;
    void *dst = mid ? mid(ctx, buf, ar_block_off(pl, count, pl->p, pl->rank),
                          ar_block_len(pl, count, pl->p, pl->rank))
                    : buf;
    return ar_ring_allgather(pl, pl->comm, pl->rank, pl->p, dst, count);
}

const ar_algo allreduce_ring = {
    .name = "ring",
    .summary = "reduce-scatter + allgather around a ring (bandwidth-optimal, 2(p-1) steps)",
    .cost = "2(p-1) a + 2n(p-1)/p b + n(p-1)/p g",
    .model_s = ring_model_s,
    .scratch_bytes = ring_scratch_bytes,
    .run_mid = ring_run_mid,
};
