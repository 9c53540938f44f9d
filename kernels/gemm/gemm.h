/* gemm.h — the sgemm backends, one file each behind one small interface, and what
 * their callers share (`microbench gemm`, rnn-train's matrix products, the tests): the
 * registry, deterministic inputs and the residual against the reference.
 *
 * Convention: COLUMN-MAJOR, as BLAS and DeepBench state their shapes:
 *   C (M x N, ldc >= M) = alpha * op(A) (M x K) * op(B) (K x N) + beta * C
 * op(A) is A stored M x K (lda >= M) for 'N', or A^T with A stored K x M (lda >= K) for
 * 'T'; likewise B.  "TN" means A transposed, B not (DeepBench's notation).  A row-major
 * library (oneDNN) is called with the operands swapped: C^T = op(B)^T op(A)^T.
 * flops = 2 M N K (DeepBench); beta's M N multiply-adds are not counted.
 *
 *   gemm_naive.c     the reference: double accumulation (the oracle, not a contender)
 *   gemm_blocked.c   portable cache blocking + packing around a register-blocked
 *                    micro-kernel (gemm_blocked_ukernel.h, one file per ISA)
 *   gemm_openblas.c  OpenBLAS  cblas_sgemm   } loaded with dlopen(RTLD_LOCAL): both
 *   gemm_blis.c      BLIS      bli_sgemm     } export sgemm_/cblas_sgemm (gemm_dl.c)
 *   gemm_libxsmm.c   libxsmm   its tiled GEMM (JIT kernels) where it has them, if a .so exists
 *   gemm_onednn.c    oneDNN    dnnl_sgemm, if libdnnl.so.2 exists
 *   gemm_dl.c        private loading (dlopen / dlmopen) and the dispatch probe
 *   gemm_registry.c  the one table of backends
 *   gemm_check.c     inputs, reference values, residual
 * The study itself is in microbench/gemm/: cmd_gemm.c the driver, gemm_shapes.c the
 * one table of shapes and the --shape parser (gemm_shapes.h), gemm_report.c after the
 * run: gain of the correction, dispatch, targets.
 *
 * Dispatch: OpenBLAS and BLIS pick their kernel once, at load, from CPUID and an
 * environment variable; OpenBLAS 0.3.21 runs SSE kernels on some AVX-512 Xeons.  The
 * backends `openblas` and `blis` load after kernels/peak's probe has set the fix;
 * `openblas:default` and `blis:default` are the same libraries loaded a second time,
 * into their own link namespace, with the variable hidden: what the library picks by
 * itself.  Side by side they show the gain of the correction. */
#ifndef RS_GEMM_H
#define RS_GEMM_H

#include <stdint.h>

#include "registry.h"

/* ---- one backend ----------------------------------------------------------------- */
typedef struct gemm_backend gemm_backend;
struct gemm_problem;   /* below */
struct gemm_backend {
    const char *name;    /* contract: naive, blocked, openblas, blis, libxsmm, onednn;
                            "<lib>:default" = that library with its own dispatch */
    const char *what;    /* one line for --list */
    const char *pair;    /* for a ":default" backend, the corrected one it pairs with */
    int variant;         /* backend-private (e.g. which copy of a library) */
    unsigned trans_unsupported; /* bit gemm_trans_bit(ta, tb) set: that case is not
                                   supported (skipped, not wrong); 0: all four are */
    int reentrant;       /* 1: sgemm may run on two threads at once (rnn-train --pipeline):
                            no state kept between calls, or locked buffer pools */
    /* Find and load; idempotent.  0 available, -1 not (rs_lasterr says why). */
    int (*load)(const gemm_backend *b);
    /* Threads the following calls use (the library's own setting). */
    void (*set_threads)(const gemm_backend *b, int nthreads);
    /* C = alpha op(A) op(B) + beta C, column-major, ta/tb 'N' or 'T'.  0, or -1 when
     * this backend cannot do the case (rs_lasterr says why; not a wrong result).
     * beta == 0 means C is not read (it may hold NaN), as in BLAS. */
    int (*sgemm)(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                 float alpha, const float *a, long lda, const float *bm, long ldb,
                 float beta, float *c, long ldc);
    /* Optional, after a successful load: 0 when sgemm will compute this product itself
     * (p's a, b, c0 unused), -1 when it would decline it (rs_lasterr says why; e.g.
     * libxsmm has no kernel for it).  NULL: it computes every supported transpose case.
     * Lets --gemm auto judge the product the trainer calls, not its timed slice. */
    int (*takes)(const gemm_backend *b, const struct gemm_problem *p);
    /* After a successful load: the kernel in use and how it was chosen, e.g.
     * "SkylakeX (fixed from Prescott)", "Zen", "Prescott (default)", "avx2 16x6". */
    const char *(*dispatch)(const gemm_backend *b);
};

/* The registry (gemm_registry.c), in display order: naive first (the oracle). */
extern const gemm_backend *const gemm_backends[];
extern const int gemm_nbackends;
extern const rs_registry gemm_registry;   /* the same rows, for registry.h's lookups */
const gemm_backend *gemm_find(const char *name);   /* NULL if none */

/* Rows of the registry, one file each. */
extern const gemm_backend gemm_backend_naive, gemm_backend_blocked,
    gemm_backend_openblas, gemm_backend_openblas_default, gemm_backend_blis,
    gemm_backend_blis_default, gemm_backend_libxsmm, gemm_backend_onednn;

/* ---- transpose cases ------------------------------------------------------------------ */
/* "NN", "NT", "TN", "TT" for (ta, tb) (static storage per value). */
static inline const char *gemm_trans_str(char ta, char tb)
{
    static const char *const s[4] = {"NN", "NT", "TN", "TT"};
    return s[(ta == 'T') * 2 + (tb == 'T')];
}
/* NN 1, NT 2, TN 4, TT 8: the bit of a transpose case in trans_unsupported. */
#define gemm_trans_bit(ta, tb) (1u << (((ta) == 'T') * 2 + ((tb) == 'T')))

/* ---- problems, inputs and the check ------------------------------------------------- */
typedef struct gemm_problem {
    char ta, tb;
    long m, n, k;
    float alpha, beta;
    const float *a, *b, *c0;   /* c0: C before the call */
    long lda, ldb, ldc;
} gemm_problem;

/* Stored sizes (elements) of A, B, C with the leading dimensions given. */
long gemm_size_a(const gemm_problem *p);
long gemm_size_b(const gemm_problem *p);
long gemm_size_c(const gemm_problem *p);

/* Deterministic inputs: uniform in [-1, 1), a pure function of (seed, which, index),
 * so any entry's exact value is known anywhere. */
float gemm_input(uint64_t seed, int which, long idx);
void gemm_fill(float *x, long n, uint64_t seed, int which);

/* One reference entry in double: alpha sum_k op(A)(i,k) op(B)(k,j) + beta C0(i,j). */
double gemm_ref_entry(const gemm_problem *p, long i, long j);
/* The whole reference in double (ldr = M); naive's kernel; nthreads OpenMP threads. */
void gemm_naive_double(const gemm_problem *p, double *ref, int nthreads);

/* The reference against which every backend is checked.  Up to GEMM_FULL_CHECK_MACS
 * multiply-adds every entry is compared; above, the four corners of C plus
 * GEMM_CHECK_SAMPLES entries drawn from (seed) — each a dot product in double — so
 * a 2048^3 check costs milliseconds instead of the ~17 GFLOP of a full double GEMM. */
#define GEMM_FULL_CHECK_MACS (1L << 26)
#define GEMM_CHECK_SAMPLES 1000
typedef struct {
    int full;          /* 1: every entry (ref is M x N); 0: sampled */
    long nent;         /* entries compared */
    long *ii, *jj;     /* sampled positions (NULL when full) */
    double *ref;       /* reference values */
    double scale;      /* the residual's unit, see gemm_residual */
} gemm_ref;
int gemm_ref_build(const gemm_problem *p, uint64_t seed, int nthreads, gemm_ref *r);
/* The same with another full-check limit (rnn-train's --gemm auto checks each backend on
 * every product at start-up, where a full double GEMM per product would cost more than
 * the timing: it samples above 2^20 multiply-adds). */
int gemm_ref_build_upto(const gemm_problem *p, uint64_t seed, int nthreads, long full_macs,
                        gemm_ref *r);
void gemm_ref_free(gemm_ref *r);

/* residual = max |C - C_ref| / (eps (|alpha| K max|A| max|B| + |beta| max|C0|)) over the
 * compared entries, eps = FLT_EPSILON: the error in units of eps times the largest
 * possible sum.  On these inputs (uniform in [-1, 1)) a float GEMM summing all K terms
 * in sequence is off by ~0.1 of that unit per entry, ~0.6 at the worst of 10^6 entries
 * (the error grows like K, as the unit does); blocked sums do better.  GEMM_RESIDUAL_MAX
 * leaves room for rounding products and sums separately (no FMA), while a missing or
 * doubled term (~0.25 / (K eps) >= 80 for K <= 10^4) or bf16-class internal precision
 * (>= 50) is far above it.  NaN gives +inf. */
#define GEMM_RESIDUAL_MAX 4.0
double gemm_residual(const gemm_problem *p, const gemm_ref *r, const float *c);

#endif
