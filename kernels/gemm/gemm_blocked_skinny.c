/* gemm_blocked_skinny.c — the `blocked` backend's path for few columns with A
 * transposed (op(A) = A^T: each row of op(A) is a contiguous run of K), the shape of
 * DeepBench's N = 64 "TN" products.
 *
 * The general path packs all of A, M x K floats, for only N columns of use; at N = 64
 * that copy costs a large part of the product.  Here the product is formed as
 *   C^T (N x M) = op(B)^T (N x K) op(A)^T (K x M)
 * so only op(B) (K x N, small) is packed, into MR-tall panels along N, and A is read in
 * place: the micro-kernel's NR broadcast columns are NR rows of op(A), streamed along K
 * (gemm_blocked_ukernel.h, the cols kernel).  Each run of kc floats of A is read from
 * memory once and reused from the cache for every panel of op(B); the tiles,
 * transposed, are merged into C. */
#include "gemm_blocked.h"

#ifdef _OPENMP
#include <omp.h>
#endif

/* K in equal chunks of at most SKINNY_KC: each tile's merge into C (transposed, a
 * cache line of C per column) is paid once a chunk, so chunks are longer than the
 * general path's kc; NR rows of a chunk of A and the panels of op(B) stay in L2. */
#define SKINNY_KC 1024
long gemm_blocked_skinny_kc(long k)
{
    long chunks = (k + SKINNY_KC - 1) / SKINNY_KC;
    return (k + chunks - 1) / chunks;
}

/* lp: room for ceil(n / MR) panels of kc x MR floats. */
void gemm_blocked_skinny(const gemm_ukernel *ukr, int nt, char tb, long m, long n, long k,
                         float alpha, const float *a, long lda, const float *b, long ldb,
                         float beta, float *c, long ldc, float *lp)
{
    const int mr = ukr->mr, nr = ukr->nr;
    const long npan = (n + mr - 1) / mr, ngrp = (m + nr - 1) / nr;
    const long kcs = gemm_blocked_skinny_kc(k);
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        float tile[32 * 16] __attribute__((aligned(64)));   /* >= MR x NR of every kernel */
        const float *cols[16];                               /* >= NR */
        for (long pc = 0; pc < k; pc += kcs) {
            long kc = k - pc < kcs ? k - pc : kcs;
            float beta_eff = pc == 0 ? beta : 1.0f;
#pragma omp for schedule(static)
            for (long q = 0; q < npan; q++)   /* panel q: columns q MR .. of C, zero past n */
                gemm_blocked_pack(tb == 'N' ? 'T' : 'N', b, ldb, q * mr, pc, mr, kc, n, mr,
                                  lp + q * kc * mr);
#pragma omp for schedule(static)
            for (long g = 0; g < ngrp; g++) {
                long i0 = g * nr, mb = m - i0 < nr ? m - i0 : nr;
                for (int j = 0; j < nr; j++)   /* past m: repeat a row, its tile is dropped */
                    cols[j] = a + (i0 + (j < mb ? j : 0)) * lda + pc;
                /* The next group's rows of A, asked for ahead of their first use (NR
                 * new streams a group; its effect alone was not measured). */
                for (long j = i0 + nr; j < i0 + 2 * nr && j < m; j++) {
                    for (long p = 0; p < kc; p += 16)
                        __builtin_prefetch(a + j * lda + pc + p);
                    __builtin_prefetch(a + j * lda + pc + kc - 1);   /* a run off the lines */
                }
                for (long q = 0; q < npan; q++) {
                    ukr->cols(kc, lp + q * kc * mr, cols, tile);
                    long nb = n - q * mr < mr ? n - q * mr : mr;
                    for (long r = 0; r < nb; r++) {
                        float *cr = c + i0 + (q * mr + r) * ldc;
                        for (long j = 0; j < mb; j++)
                            cr[j] = alpha * tile[r + j * mr] +
                                (beta_eff == 0 ? 0.0f : beta_eff * cr[j]);
                    }
                }
            }
        }
    }
}
