/* gemm_blocked.h — the register-blocked micro-kernels of the `blocked` backend, one
 * per ISA (gemm_blocked_<isa>.c, each the template gemm_blocked_ukernel.h compiled
 * with that ISA's flags), and the cache-block sizes that go with them.
 *
 * A micro-kernel computes one MR x NR tile of C from packed panels, BLIS-style:
 *   a: kc x MR, MR contiguous floats per k (a column of op(A) per step)
 *   b: kc x NR, NR contiguous floats per k (a row of op(B) per step)
 *   C (MR x NR, ldc) = alpha a^T b + beta C       (beta == 0: C is not read)
 * The driver (gemm_blocked.c) packs, blocks for the caches and handles edges. */
#ifndef RS_GEMM_BLOCKED_H
#define RS_GEMM_BLOCKED_H

#include "cpu.h"

typedef void (*gemm_ukr_fn)(long kc, const float *a, const float *b, float *c, long ldc,
                            float alpha, float beta);
/* The tile with b read in place: cols[j] is column j's run of kc floats; t gets the
 * MR x NR tile (ld MR, alpha 1, beta 0). */
typedef void (*gemm_ukr_cols_fn)(long kc, const float *a, const float *const *cols, float *t);

typedef struct {
    const char *name;   /* "gemm_blocked_ukernel_avx2_16x6" */
    const char *label;  /* "avx2 16x6": the row's dispatch string */
    rs_isa isa;         /* checked with rs_isa_supported() before use */
    int mr, nr;         /* register tile: MR = 2 vectors, NR broadcasts of B */
    int mc, kc, nc;     /* cache blocks: mc x kc of A in L2, kc x nc of B in L3 */
    gemm_ukr_fn run;
    gemm_ukr_cols_fn cols;
} gemm_ukernel;

extern const gemm_ukernel gemm_ukernel_avx512, gemm_ukernel_avx2, gemm_ukernel_portable;

/* C = alpha op(A) op(B) + beta C for op(A) = A^T and few columns, A read in place
 * (gemm_blocked_skinny.c); lp holds ceil(n / MR) x gemm_blocked_skinny_kc(k) x MR floats. */
void gemm_blocked_skinny(const gemm_ukernel *ukr, int nt, char tb, long m, long n, long k,
                         float alpha, const float *a, long lda, const float *b, long ldb,
                         float beta, float *c, long ldc, float *lp);

/* The chunk of K the skinny path takes (lp's kc). */
long gemm_blocked_skinny_kc(long k);

/* dst: ceil(mc/MR) micro-panels of kc x MR of op(A) (rows i0.., columns p0..), rows
 * past m zero.  B's panels too: op(B)'s columns are rows of op(B)^T, the transpose
 * flipped. */
void gemm_blocked_pack(char ta, const float *a, long lda, long i0, long p0, long mc, long kc, long m,
                       int mr, float *dst);

/* Make the `blocked` backend run micro-kernel k (NULL: back to the widest this CPU
 * runs), so the tests drive every ISA's kernel through the whole driver.  0, or -1
 * (rs_lasterr) when this CPU lacks k's ISA. */
int gemm_blocked_force(const gemm_ukernel *k);

#endif
