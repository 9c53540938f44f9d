/* peak_kernels.h — the kernels and tables behind peak.h, shared by the files of
 * kernels/peak/, by `microbench peak` (microbench/peak/peak_run.h) and by
 * test/test_peak.c (peak.h is the public interface).
 *
 *   fma.c           the FMA registry (one row per ISA) and peak_fma_gflops()
 *   fma_<isa>.c     one FMA-throughput kernel per ISA, rows of peak_fma_variants[]
 *   stream.c        STREAM copy and triad, plain C (bandwidth needs no ISA flags)
 *   blas_probe.c    BLAS kernel names -> ISA level, and the dispatch probe */
#ifndef RS_PEAK_KERNELS_H
#define RS_PEAK_KERNELS_H

#include "bench.h"
#include "cpu.h"
#include "peak.h"

/* ---- FMA throughput ------------------------------------------------------------
 * Each repetition runs PEAK_FMA_ITERS rounds of `nacc` independent chains
 * acc = acc * mul + add (mul, add read from the context so nothing folds), then
 * stores the sum of the chains in sink[tid * PEAK_SINK_STRIDE] so the work is live.
 * mul < 1 and add > 0 keep every chain near add / (1 - mul): no overflow, no
 * subnormals, whatever the repetition count. */
#define PEAK_FMA_ITERS 256
#define PEAK_SINK_STRIDE 16     /* floats: one 64-byte line per thread, no sharing */

typedef struct {
    float mul, add;
    float *sink;                /* (nthreads * PEAK_SINK_STRIDE) */
} peak_fma_ctx;

typedef struct {
    rs_isa isa;
    rs_kernel_fn fn;
    int nacc;                   /* independent accumulators (vectors or scalars) */
    const char *what;           /* the instruction(s) one "FMA" is, e.g. "vfmadd ymm" */
} peak_fma_variant;

void peak_fma_avx512(void *ctx, int tid, long reps);
void peak_fma_avx2(void *ctx, int tid, long reps);
void peak_fma_portable(void *ctx, int tid, long reps);
#define PEAK_FMA_NACC_AVX512 16
#define PEAK_FMA_NACC_AVX2 12
#define PEAK_FMA_NACC_PORTABLE 12

/* One row per ISA, indexed by rs_isa. */
extern const peak_fma_variant peak_fma_variants[RS_ISA_COUNT];

/* Flops of one repetition of `v` on one thread: iterations x chains x lanes x 2. */
double peak_fma_flops_per_rep(const peak_fma_variant *v);

/* ---- STREAM ----------------------------------------------------------------------
 * n elements of double, as STREAM.  Bytes counted per element are in stream.c's
 * table (copy 16, triad 24); write-allocate traffic is not counted, as in STREAM. */
void peak_stream_copy(double *restrict c, const double *restrict a, long n);
void peak_stream_triad(double *restrict a, const double *restrict b,
                       const double *restrict c, double s, long n);
/* Inputs, a pure function of the index: small integers, so b + s*c is exact in
 * double however the compiler evaluates it and the check can demand equality. */
double peak_stream_a(long i);
double peak_stream_b(long i);
double peak_stream_c(long i);
#define PEAK_STREAM_SCALAR 3.0

/* ---- BLAS kernel names ------------------------------------------------------------
 * An OpenBLAS core name (openblas_get_corename: "Prescott", "Haswell", "SkylakeX")
 * or a BLIS sub-configuration ("haswell", "zen3", "skx"), case-insensitive, to the
 * rs_isa level its kernels use.  0 ok, -1 an unknown name (not judged). */
int peak_blas_kernel_isa(const char *name, rs_isa *out);

#endif
