/* pipeline.h — the two-stage (recurrence | output layer) pipeline on CPU threads and
 * its measurement against the sequential order (pipeline.c says how). */
#ifndef RS_MODELS_PIPELINE_H
#define RS_MODELS_PIPELINE_H

#include "model.h"

/* modes: batched; sequential and pipelined by single steps; the same by chunks */
enum { PIPE_NMODES = 5 };
#define PIPE_CHUNK 5   /* steps per chunk in the chunked modes */

typedef struct {
    const char *name;          /* "batched", "sequential", "pipelined" */
    int chunk_steps;           /* steps per output call (0: the whole window, batched) */
    int seq_index;             /* the sequential mode this one is compared with */
    int threads;               /* threads the mode uses */
    double ms_median, ms_min;  /* per window (forward with dlogits) */
    double tokens_per_window;
    int identical;             /* bit-identical to the sequential order (-1: not compared) */
} pipeline_result;

/* 1 if the GEMM backend may be called from two threads at once: openblas, blis, onednn,
 * the project's blocked GEMM (packing buffers per thread) and naive are re-entrant;
 * libxsmm is not known to be (pipeline.c). */
int pipeline_backend_ok(const char *gemm_backend);

/* Time the forward of `windows` windows of data (n tokens, the model's B and T) in
 * every mode, interleaved window by window, after one untimed window; threads: the
 * batched mode's.  Returns 0, or 1 when the pipelined losses or dlogits differ from
 * the sequential ones in any bit; -1 when memory runs out (rs_lasterr). */
int pipeline_bench(model *m, const int *data, long n, int threads, long windows,
                   pipeline_result res[PIPE_NMODES]);

#endif
