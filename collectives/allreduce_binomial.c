/* allreduce_binomial.c — binomial-tree reduce to rank 0, then binomial-tree broadcast
 * from rank 0: the textbook composition (MPICH's fallback for non-commutative ops).
 * ceil(lg p) rounds each way, whole vector per message: simple and latency-friendly,
 * but 2n lg p bytes on the critical path.  Any p, no fold needed.  Every rank gets the
 * root's bits. */
#include "ar_internal.h"

/* Cost: 2 ceil(lg p) alpha + 2n ceil(lg p) beta + n ceil(lg p) gamma. */
static double binomial_model_s(const ar_model *m, const ar_params *prm, int p, double n)
{
    int lg = ar_ceil_log2(p);
    return lg * (2 * m->alpha_s + 2 * n * m->beta_s_per_byte + n * m->gamma_s_per_byte);
}

static size_t binomial_scratch_bytes(const ar_plan *pl, size_t count) { return count * pl->esize; }

static int binomial_run(ar_plan *pl, const void *sendbuf, void *buf, size_t count)
{
    const int p = pl->p, me = pl->rank;
    int mask;
    /* Reduce: in round k, ranks with bit k set send to rank - 2^k and drop out. */
    for (mask = 1; mask < p; mask <<= 1) {
        if (me & mask) {
            AR_MPI(MPI_Send(buf, (int)count, pl->mpi_dtype, me - mask, AR_TAG_REDUCE, pl->comm));
            break;
        }
        if (me + mask < p) {
            AR_MPI(MPI_Recv(pl->scratch, (int)count, pl->mpi_dtype, me + mask, AR_TAG_REDUCE,
                            pl->comm, MPI_STATUS_IGNORE));
            ar_reduce_local(buf, pl->scratch, count, pl->dtype, pl->op);
        }
    }
    /* Broadcast: receive from the rank that sent me out (rank - lowest set bit), then
     * pass on to rank + 2^k for the lower bits, largest first. */
    for (mask = 1; mask < p; mask <<= 1)
        if (me & mask) {
            AR_MPI(MPI_Recv(buf, (int)count, pl->mpi_dtype, me - mask, AR_TAG_BCAST, pl->comm,
                            MPI_STATUS_IGNORE));
            break;
        }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (me + mask < p)
            AR_MPI(MPI_Send(buf, (int)count, pl->mpi_dtype, me + mask, AR_TAG_BCAST, pl->comm));
    return 0;
}

const ar_algo allreduce_binomial = {
    .name = "binomial",
    .summary = "binomial-tree reduce to rank 0 + binomial-tree broadcast",
    .cost = "2 ceil(lg p) a + 2n ceil(lg p) b + n ceil(lg p) g",
    .model_s = binomial_model_s,
    .scratch_bytes = binomial_scratch_bytes,
    .run = binomial_run,
};
