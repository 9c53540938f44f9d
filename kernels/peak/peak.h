/* peak.h — this machine's measured limits: FMA throughput per ISA and memory
 * bandwidth (STREAM-style), and the BLAS libraries' dispatch.  `microbench peak`
 * (microbench/peak/) writes them to machine.json (schema in results/README.md); other
 * studies read them back, or measure the FMA peak here (rnn-train), to express every
 * speed as a fraction of a limit; the GEMM backends load BLAS after the probe. */
#ifndef RS_PEAK_H
#define RS_PEAK_H

#include "bench.h"
#include "cpu.h"
#include "json.h"

/* fp32 FMA throughput of `isa` on nthreads threads, GFLOP/s (2 flops per FMA lane),
 * best (minimum-time) sample.  -1 if the ISA is not supported here. */
int peak_fma_gflops(rs_isa isa, int nthreads, const rs_bench_cfg *cfg, double *gflops);

/* The best ISA's FMA peak (GFLOP/s) for a thread count: from machine.json (the
 * output of `microbench peak`) when it has that thread count, else measured now with
 * a quick run.  -1 if neither works.  Every study's fraction of peak uses this. */
double peak_fma_gflops_for(int threads, const rs_json *machine);

/* STREAM copy (16 B/elem) and triad (24 B/elem, a = b + s*c) on arrays of `bytes`
 * each (choose > 4x the LLC), GB/s (1e9), best sample.  Results are checked. */
typedef struct {
    double copy_gbytes_per_s, triad_gbytes_per_s;
    long array_bytes;
} peak_stream;
int peak_stream_measure(int nthreads, long array_bytes, const rs_bench_cfg *cfg,
                        peak_stream *out);

/* BLAS dispatch.  For each library found (OpenBLAS, BLIS), which kernel it picks,
 * the ISA level of that kernel against the CPU's, and the environment fix. */
typedef struct {
    char name[16];            /* "openblas", "blis" */
    int found;
    char version[64];
    char detected[32];        /* kernel chosen with the fix not applied */
    char used[32];            /* kernel in use for this run (after the fix if applied) */
    rs_isa detected_isa, used_isa;
    int below_cpu;            /* the kernel in use runs an ISA below the CPU's best */
    char chosen_by[16];       /* who picked the kernel in use: "library" (its own
                                 dispatch), "fix" (ours) or "environment" (the user's
                                 variable, always respected) */
    char fix[64];             /* e.g. "OPENBLAS_CORETYPE=SkylakeX" ("" if none needed) */
    int fix_applied;
} peak_blas;

/* Probe OpenBLAS and BLIS (dlopen in a child process so the probe itself does not
 * fix the kernel choice); with allow_fix, set the fixing environment variables in
 * this process (so BLAS loaded later, or by children, uses the right kernel). */
int peak_blas_probe(int allow_fix, peak_blas out[2]);

#endif
