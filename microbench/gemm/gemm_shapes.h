/* gemm_shapes.h — the shapes `microbench gemm` runs (gemm_shapes.c): the one table,
 * the model configuration its "models" set is derived from, and the --shape parser.
 * Shared by cmd_gemm.c and test/test_gemm.c; the kernels take any shape (gemm.h). */
#ifndef RS_GEMM_SHAPES_H
#define RS_GEMM_SHAPES_H

#include "gemm.h"

typedef struct {
    const char *set;   /* "deepbench", "square", "inference", "models", or "user" */
    const char *name;  /* a model GEMM's name ("lstm_input"), or "" */
    long m, n, k;
    char ta, tb;       /* 'N' or 'T' */
    int quick;         /* part of the --quick selection */
    const char *why;   /* models: what the GEMM computes, with its shape formula */
} gemm_shape;

/* The shape table (gemm_shapes.c) and the model configuration it is derived from. */
extern const gemm_shape gemm_shapes[];
extern const int gemm_nshapes;
#define GEMM_MODEL_H 512    /* LSTM hidden size (rnn-train --hidden default) */
#define GEMM_MODEL_E 512    /* embedding size */
#define GEMM_MODEL_B 32     /* batch */
#define GEMM_MODEL_T 35     /* BPTT steps */
#define GEMM_MODEL_V 10000  /* vocabulary */

/* Parse one --shape item: a model GEMM's name from the table, or MxNxK[:tAtB] with
 * positive integers and tA, tB each N or T (default NN), e.g. "1760x64x1760:TN".
 * 0, or -1 with rs_lasterr one line saying what is wrong and what is expected. */
int gemm_parse_shape(const char *s, gemm_shape *out);
/* Is `name` one of the set names (deepbench, square, inference, models, all)? */
int gemm_is_set(const char *name);

#endif
