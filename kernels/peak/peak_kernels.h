/* peak_kernels.h — the kernels and tables behind peak.h, shared by the files of
 * microbench/peak/ and by test/test_peak.c (peak.h is the public interface).
 *
 *   fma_<isa>.c     one FMA-throughput kernel per ISA, rows of peak_fma_variants[]
 *   stream.c        STREAM copy and triad, plain C (bandwidth needs no ISA flags)
 *   blas_probe.c    BLAS kernel names -> ISA level
 *   likwid_bench.c  the same limits measured by likwid-bench, side by side
 *   cmd_peak.c      `microbench peak`: measures into a peak_run ...
 *   machine_json.c  ... which is written out as machine.json */
#ifndef RS_PEAK_KERNELS_H
#define RS_PEAK_KERNELS_H

#include <stdio.h>

#include "bench.h"
#include "cpu.h"
#include "json.h"
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

/* ---- likwid-bench cross-check -------------------------------------------------------
 * GFLOP/s and GB/s in units of 10^9 (likwid-bench prints 10^6 units); ratios are
 * peak's / likwid-bench's, NAN where either side has no figure. */
#define PEAK_LIKWID_TOLERANCE 0.05

typedef struct {
    int available;                 /* likwid-bench ran and gave at least one rate */
    char why[200];                 /* what failed (all of it when not available) */
    char fma_test[40], copy_test[40], triad_test[40];   /* likwid-bench -t names */
    int threads;
    long array_bytes;              /* per array, as peak's STREAM */
    double fma_gflops, copy_gbs, triad_gbs;             /* likwid-bench's; NAN: none */
    double peak_fma_gflops, peak_copy_gbs, peak_triad_gbs; /* peak's own, side by side */
    double ratio_fma, ratio_copy, ratio_triad;
    int agree;                     /* every ratio within 1 +- PEAK_LIKWID_TOLERANCE */
    double load_1min;              /* /proc/loadavg when likwid-bench ran; NAN unknown */
} peak_likwid;

/* likwid-bench's output to its "MFlops/s:" and "MByte/s:" figures (NAN where a line is
 * missing): 0, or -1 when it has neither. */
int peak_likwid_parse(const char *text, double *mflops_per_s, double *mbytes_per_s);
/* The ratios and the verdict, from peak's own figures and lw's likwid-bench ones. */
void peak_likwid_compare(peak_likwid *lw, double fma_gflops, double copy_gbs, double triad_gbs);

/* ---- one `microbench peak` run ----------------------------------------------------- */

typedef struct {
    int threads_all;                  /* --threads */
    double fma_gflops_1t[RS_ISA_COUNT];  /* -1: ISA not supported here */
    double fma_gflops_all[RS_ISA_COUNT];
    peak_stream stream_1t, stream_all;   /* NaN rates where the check failed */
    peak_blas blas[2];
    peak_likwid likwid;               /* likwid-bench on the best ISA, threads_all */
    const char *command;              /* "microbench peak ..." */
} peak_run;

/* Runs likwid-bench for `isa` at run's threads_all and STREAM array size into lw and
 * compares (never fails: lw->available 0 and lw->why say what was missing). */
void peak_likwid_crosscheck(const peak_run *run, rs_isa isa, peak_likwid *lw);
/* One line of figures, and a WARNING line when they disagree (or why unavailable). */
void peak_likwid_report(const peak_likwid *lw);
/* machine.json's "likwid" object. */
void peak_likwid_write_json(rs_jw *w, const peak_likwid *lw);

/* Vector FMAs per TSC cycle per thread: gflops / (2 flops x lanes x GHz x threads). */
double peak_fma_per_cycle(rs_isa isa, double gflops, int threads);

/* machine.json (schema rnnscale.machine/1, results/README.md): an rs_writer_fn. */
int peak_write_machine_json(FILE *f, void *run /* peak_run */);

#endif
