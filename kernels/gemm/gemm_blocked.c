/* gemm_blocked.c — the `blocked` backend: a portable GEMM in the BLIS/GotoBLAS layout,
 * to show how much of a library's speed comes from the algorithm alone.
 *
 *   for jc over N in nc          B block kc x nc packed once, shared (L3)
 *     for pc over K in kc        beta applies on the first pc only
 *       pack op(B)(pc, jc)       into NR-wide micro-panels, zero-padded
 *       for ic over M in mc      split over threads; each packs its own
 *         pack op(A)(ic, pc)     mc x kc block (L2) into MR-tall micro-panels
 *         for jr over nc in NR   B micro-panel stays in L1 ...
 *           for ir over mc in MR ... while A micro-panels stream from L2
 *             micro-kernel       MR x NR of C in registers (gemm_blocked_<isa>.c)
 *
 * Packing makes every operand contiguous whatever the transposes, so one micro-kernel
 * serves NN, NT, TN and TT.  Edge tiles run into a zero-padded scratch tile and are
 * merged.  One special path: few columns with A transposed skip packing A
 * (gemm_blocked_skinny.c), where copying M x K floats for N columns of use costs too
 * much.  What a library adds on top: hand-scheduled assembly with prefetching, kernels
 * and block sizes tuned per microarchitecture, more skinny paths. */
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#include "check.h"
#include "gemm.h"
#include "gemm_blocked.h"

#define BLOCKED_MAX_THREADS 256

static const gemm_ukernel *ukr;     /* chosen at load by CPUID */
/* TN/TT with n up to this take gemm_blocked_skinny.c: it won at n = 16-128 on a Zen 3
 * (2048 x n x 2048), and the two paths were even at 256. */
#define SKINNY_N 128
static int blk_threads = 1;
/* Packing buffers, kept between calls: a 4 MiB malloc per call would be an mmap and
 * page faults inside every timed repetition.  One set per thread, so that threads may
 * call at once (a class layer's products split over the threads, matmul.h): a call's
 * B block is its caller's, shared with its team; each team thread packs A into its own. */
static __thread float *buf_b, *buf_a;
static __thread size_t cap_b, cap_a;

static int ensure(float **buf, size_t *cap, size_t floats)
{
    if (*cap >= floats)
        return 0;
    free(*buf);
    size_t bytes = (floats * sizeof(float) + 63) / 64 * 64;
    *buf = aligned_alloc(64, bytes);
    *cap = *buf ? floats : 0;
    return *buf ? 0 : -1;
}

/* gemm_blocked.h.  A full panel is copied along the operand's contiguous direction
 * (MR floats per k for 'N', a run of kc per row for 'T'); the element-wise loop, with
 * its edge test on every element, is left for edge panels (it held blocked's NN
 * N = 64 products at 0.25 of peak, 0.36-0.46 without it). */
void gemm_blocked_pack(char ta, const float *a, long lda, long i0, long p0, long mc, long kc, long m,
                       int mr, float *dst)
{
    for (long ir = 0; ir < mc; ir += mr, dst += kc * mr) {
        const long ib = i0 + ir;
        if (ib + mr <= m && ta == 'N')
            for (long p = 0; p < kc; p++)
                memcpy(dst + p * mr, a + ib + (p0 + p) * lda, sizeof(float) * (size_t)mr);
        else if (ib + mr <= m)
            for (int i = 0; i < mr; i++)
                for (long p = 0; p < kc; p++)
                    dst[p * mr + i] = a[p0 + p + (ib + i) * lda];
        else
            for (long p = 0; p < kc; p++)
                for (int i = 0; i < mr; i++) {
                    long ii = ib + i, pp = p0 + p;
                    dst[p * mr + i] = ii >= m ? 0.0f : ta == 'N' ? a[ii + pp * lda] : a[pp + ii * lda];
                }
    }
}

static void scale_c(long m, long n, float beta, float *c, long ldc)
{
    for (long j = 0; j < n; j++)
        for (long i = 0; i < m; i++)
            c[i + j * ldc] = beta == 0 ? 0.0f : beta * c[i + j * ldc];
}

static int blocked_sgemm(const gemm_backend *bk, char ta, char tb, long m, long n, long k,
                         float alpha, const float *a, long lda, const float *b, long ldb,
                         float beta, float *c, long ldc)
{
    if (m <= 0 || n <= 0)
        return 0;
    if (k <= 0 || alpha == 0) {   /* BLAS: C = beta C, C not read when beta == 0 */
        scale_c(m, n, beta, c, ldc);
        return 0;
    }
    const int mr = ukr->mr, nr = ukr->nr, kcmax = ukr->kc;
    /* a call from inside a parallel region (a split loop) is that thread's alone */
    int nt = omp_in_parallel() ? 1 : blk_threads;
    if (ta == 'T' && n <= SKINNY_N) {
        RS_CHECK(ensure(&buf_b, &cap_b, (size_t)((n + mr - 1) / mr * mr) *
                                            (size_t)gemm_blocked_skinny_kc(k)) == 0,
                 "blocked: out of memory for the packed B block");
        gemm_blocked_skinny(ukr, nt, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, buf_b);
        return 0;
    }
    /* At least one ic block per thread, in whole micro-tiles. */
    long per = (m + nt - 1) / nt;
    long mc = per < ukr->mc ? (per + mr - 1) / mr * mr : ukr->mc;
    long ncmax = n < ukr->nc ? (n + nr - 1) / nr * nr : ukr->nc;
    RS_CHECK(ensure(&buf_b, &cap_b, (size_t)kcmax * (size_t)ncmax) == 0,
          "blocked: out of memory for the packed B block");
    float *const bpk = buf_b;
    int failed = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        float *ap = NULL;
        if (ensure(&buf_a, &cap_a, (size_t)mc * (size_t)kcmax) == 0)
            ap = buf_a;
        else {
#pragma omp atomic write
            failed = 1;
        }
        float tile[32 * 16] __attribute__((aligned(64)));   /* >= MR x NR of every kernel */
        for (long jc = 0; jc < n; jc += ncmax) {
            long nc = n - jc < ncmax ? n - jc : ncmax;
            for (long pc = 0; pc < k; pc += kcmax) {
                long kc = k - pc < kcmax ? k - pc : kcmax;
                float beta_eff = pc == 0 ? beta : 1.0f;
                long npanels = (nc + nr - 1) / nr;
#pragma omp for schedule(static)
                for (long q = 0; q < npanels; q++)
                    /* op(B)'s panel: op(B)^T's rows, the transpose flipped */
                    gemm_blocked_pack(tb == 'N' ? 'T' : 'N', b, ldb, jc + q * nr, pc, nr, kc, n, nr,
                           bpk + q * kc * nr);
#pragma omp for schedule(static)
                for (long ic = 0; ic < m; ic += mc) {
                    if (!ap)
                        continue;
                    long mcb = m - ic < mc ? m - ic : mc;
                    gemm_blocked_pack(ta, a, lda, ic, pc, mcb, kc, m, mr, ap);
                    for (long jr = 0; jr < nc; jr += nr) {
                        const float *bp = bpk + (jr / nr) * kc * nr;
                        long nb = nc - jr < nr ? nc - jr : nr;
                        for (long ir = 0; ir < mcb; ir += mr) {
                            const float *apan = ap + (ir / mr) * kc * mr;
                            float *cij = c + (ic + ir) + (jc + jr) * ldc;
                            long mb = mcb - ir < mr ? mcb - ir : mr;
                            if (mb == mr && nb == nr) {
                                ukr->run(kc, apan, bp, cij, ldc, alpha, beta_eff);
                                continue;
                            }
                            /* Edge tile: compute the whole padded tile, merge what exists. */
                            ukr->run(kc, apan, bp, tile, mr, alpha, 0.0f);
                            for (long j = 0; j < nb; j++)
                                for (long i = 0; i < mb; i++)
                                    cij[i + j * ldc] = tile[i + j * mr] +
                                        (beta_eff == 0 ? 0.0f : beta_eff * cij[i + j * ldc]);
                        }
                    }
                }
            }
        }
    }
    RS_CHECK(!failed, "blocked: out of memory for a packed A block");
    return 0;
}

static int blocked_load(const gemm_backend *b)
{
    /* The widest kernel this CPU runs (files named *_avx512.c need the CPUID check). */
    const gemm_ukernel *order[] = {&gemm_ukernel_avx512, &gemm_ukernel_avx2, &gemm_ukernel_portable};
    for (int i = 0; i < RS_ARRAY_LEN(order) && !ukr; i++)
        if (rs_isa_supported(order[i]->isa))
            ukr = order[i];
    RS_ASSERT(ukr && ukr->mr <= 32 && ukr->nr <= 16);   /* the tiles and cols[] on the stack */
    return 0;
}

int gemm_blocked_force(const gemm_ukernel *k)
{
    RS_CHECK(!k || rs_isa_supported(k->isa), "blocked: %s needs %s, which this CPU lacks",
          k->name, rs_isa_name(k->isa));
    ukr = k;   /* NULL: the next load picks the widest again */
    return k ? 0 : blocked_load(NULL);
}

static void blocked_set_threads(const gemm_backend *b, int n)
{
    blk_threads = n < 1 ? 1 : n > BLOCKED_MAX_THREADS ? BLOCKED_MAX_THREADS : n;
}

static const char *blocked_dispatch(const gemm_backend *b) { return ukr ? ukr->label : "?"; }

const gemm_backend gemm_backend_blocked = {
    .name = "blocked",
    .what = "portable C: packing + cache blocking + vector-extension micro-kernel per ISA",
    .load = blocked_load,
    .set_threads = blocked_set_threads,
    .sgemm = blocked_sgemm,
    .dispatch = blocked_dispatch,
    .reentrant = 1,
};
