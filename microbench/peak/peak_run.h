/* peak_run.h — one `microbench peak` run: what cmd_peak.c measures with the kernels of
 * kernels/peak/ (peak_kernels.h), the likwid-bench cross-check beside it, and the
 * machine.json it writes; shared by the files of microbench/peak/ and test/test_peak.c.
 *
 *   cmd_peak.c      `microbench peak`: measures into a peak_run ...
 *   machine_json.c  ... which is written out as machine.json
 *   likwid_bench.c  the same limits measured by likwid-bench, side by side */
#ifndef RS_PEAK_RUN_H
#define RS_PEAK_RUN_H

#include <stdio.h>

#include "json.h"
#include "peak_kernels.h"

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
