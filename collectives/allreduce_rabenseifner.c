/* allreduce_rabenseifner.c — Rabenseifner's algorithm as MPICH implements it: a
 * reduce-scatter by recursive halving (each round exchanges half of what is left with
 * rank ^ 2^k) then an allgather by recursive doubling, on the p' ranks left after the
 * non-power-of-two fold.  Bandwidth-optimal like the ring, with 2 lg p' latencies.
 * The vector is cut into p' blocks (ar_block_*); a rank's share at any round is a run
 * of consecutive blocks [lo, hi), so every exchange is one contiguous message.  Works
 * for count < p' too (blocks may be empty), unlike Open MPI's version. */
#include "ar_internal.h"

/* Cost: 2 lg p' alpha + 2n(p'-1)/p' beta + n(p'-1)/p' gamma, plus the fold when
 * p != p': 2 alpha + 2n beta + n gamma. */
static double rab_model_s(const ar_model *m, const ar_params *prm, int p, double n)
{
    int pof2 = ar_pof2_floor(p), lg = ar_ceil_log2(pof2);
    double f = (double)(pof2 - 1) / pof2;
    double t = 2.0 * lg * m->alpha_s + 2.0 * n * f * m->beta_s_per_byte + n * f * m->gamma_s_per_byte;
    if (p != pof2)
        t += 2 * (m->alpha_s + n * m->beta_s_per_byte) + n * m->gamma_s_per_byte;
    return t;
}

static size_t rab_scratch_bytes(const ar_plan *pl, size_t count) { return count * pl->esize; }

static int rab_run_mid(ar_plan *pl, void *buf, size_t count, ar_mid_fn mid, void *ctx)
{
    ar_fold f;
    void *dst = buf;
    if (ar_fold_begin(pl, buf, count, pl->scratch, &f) != 0)
        return -1;
    if (f.newrank >= 0) {
        const int P = f.pof2, me = f.newrank;
#define OFF(b) ar_block_off(pl, count, P, (b))
#define SPAN(lo, hi) (int)(OFF(hi) - OFF(lo))
        /* Reduce-scatter by recursive halving, MPICH's order (nearest partner first, so
         * the largest messages stay between neighbouring ranks): my share [lo, hi)
         * halves each round; I keep the lower half if I am the lower rank. */
        int lo = 0, hi = P, mask;
        for (mask = 1; mask < P; mask <<= 1) {
            int peer = me ^ mask, mid = lo + (hi - lo) / 2;
            int keep_lo = me < peer ? lo : mid, keep_hi = me < peer ? mid : hi;
            int give_lo = me < peer ? mid : lo, give_hi = me < peer ? hi : mid;
            AR_MPI(MPI_Sendrecv(ar_at(pl, buf, OFF(give_lo)), SPAN(give_lo, give_hi), pl->mpi_dtype,
                                ar_fold_real(&f, peer), AR_TAG_RS,
                                ar_at(pl, pl->scratch, OFF(keep_lo)), SPAN(keep_lo, keep_hi),
                                pl->mpi_dtype, ar_fold_real(&f, peer), AR_TAG_RS, pl->comm,
                                MPI_STATUS_IGNORE));
            ar_reduce_local(ar_at(pl, buf, OFF(keep_lo)), ar_at(pl, pl->scratch, OFF(keep_lo)),
                            (size_t)SPAN(keep_lo, keep_hi), pl->dtype, pl->op);
            lo = keep_lo;
            hi = keep_hi;
        }
        if (mid)
            dst = mid(ctx, buf, OFF(lo), (size_t)SPAN(lo, hi));
        /* Now [lo, hi) is one block (block bit-reverse(me)), fully reduced.  Allgather
         * by recursive doubling, retracing the rounds backwards: the partner of a round
         * holds the neighbouring run of the same width, and my share doubles. */
        for (mask = P / 2; mask >= 1; mask >>= 1) {
            int peer = me ^ mask, width = hi - lo;
            int plo = me < peer ? hi : lo - width, phi = plo + width;  /* the partner's share */
            AR_MPI(MPI_Sendrecv(ar_at(pl, dst, OFF(lo)), SPAN(lo, hi), pl->mpi_dtype,
                                ar_fold_real(&f, peer), AR_TAG_AG, ar_at(pl, dst, OFF(plo)),
                                SPAN(plo, phi), pl->mpi_dtype, ar_fold_real(&f, peer), AR_TAG_AG,
                                pl->comm, MPI_STATUS_IGNORE));
            if (plo < lo)
                lo = plo;
            else
                hi = phi;
        }
#undef OFF
#undef SPAN
    } else if (mid) {   /* folded out: no block, but the call is every rank's */
        dst = mid(ctx, buf, 0, 0);
    }
    return ar_fold_end(pl, dst, count, &f);
}

const ar_algo allreduce_rabenseifner = {
    .name = "rabenseifner",
    .summary = "recursive-halving reduce-scatter + recursive-doubling allgather (MPICH)",
    .cost = "2 lg p' a + 2n(p'-1)/p' b + n(p'-1)/p' g [+ 2a + 2n b + n g if p != p']",
    .model_s = rab_model_s,
    .scratch_bytes = rab_scratch_bytes,
    .run_mid = rab_run_mid,
};
