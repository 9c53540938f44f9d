/* allreduce_recdbl.c — recursive doubling: lg p rounds, in round k every rank exchanges
 * its whole vector with rank ^ 2^k and reduces.  Fewest rounds for a full-vector
 * algorithm (latency-optimal for small messages), but n lg p bytes per rank.
 * Non-power-of-two p: MPICH's fold (ar_fold_begin/end).  Ranks of a pair reduce the
 * same two partials in opposite order; sum and max are commutative, so they agree
 * bitwise. */
#include "ar_internal.h"

/* Cost: lg p' (alpha + n beta + n gamma), plus for p != p' the fold:
 * 2 alpha + 2n beta + n gamma (send in, reduce, send the result back). */
static double recdbl_model_s(const ar_model *m, const ar_params *prm, int p, double n)
{
    int pof2 = ar_pof2_floor(p), lg = ar_ceil_log2(pof2);
    double t = lg * (m->alpha_s + n * m->beta_s_per_byte + n * m->gamma_s_per_byte);
    if (p != pof2)
        t += 2 * (m->alpha_s + n * m->beta_s_per_byte) + n * m->gamma_s_per_byte;
    return t;
}

static size_t recdbl_scratch_bytes(const ar_plan *pl, size_t count) { return count * pl->esize; }

static int recdbl_run(ar_plan *pl, const void *sendbuf, void *buf, size_t count)
{
    ar_fold f;
    if (ar_fold_begin(pl, buf, count, pl->scratch, &f) != 0)
        return -1;
    if (f.newrank >= 0) {
        for (int mask = 1; mask < f.pof2; mask <<= 1) {
            int peer = ar_fold_real(&f, f.newrank ^ mask);
            AR_MPI(MPI_Sendrecv(buf, (int)count, pl->mpi_dtype, peer, AR_TAG_XCHG, pl->scratch,
                                (int)count, pl->mpi_dtype, peer, AR_TAG_XCHG, pl->comm,
                                MPI_STATUS_IGNORE));
            ar_reduce_local(buf, pl->scratch, count, pl->dtype, pl->op);
        }
    }
    return ar_fold_end(pl, buf, count, &f);
}

const ar_algo allreduce_recdbl = {
    .name = "recdbl",
    .summary = "recursive doubling: lg p full-vector exchanges (latency-optimal)",
    .cost = "lg p' (a + n b + n g) [+ 2a + 2n b + n g if p != p']",
    .model_s = recdbl_model_s,
    .scratch_bytes = recdbl_scratch_bytes,
    .run = recdbl_run,
};
