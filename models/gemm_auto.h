/* gemm_auto.h — `rnn-train --gemm auto`: the GEMM backend chosen per call shape.
 *
 * At start-up the distinct (ta, tb, m, n, k) products the model issues (forward,
 * backward-input, backward-weight, bias column sums of every layer and of the output
 * layer: ga_model_shapes) are each run on every candidate backend, checked against
 * the double reference of kernels/gemm (gemm_ref_build, GEMM_RESIDUAL_MAX) and
 * timed with common/bench.h at the run's thread count; each shape then goes to the
 * fastest backend that passed, every other shape (a short last window, the class
 * softmax's per-class products, the pipeline's chunks) to the backend fastest over
 * the whole step (the fallback).  matmul.c dispatches by this plan (matmul.h).
 *
 * Large shapes are timed on a slice, not whole: k cut first (the cost of packing and
 * of the kernel both scale with k), then the longer of m and n, to about
 * GA_SLICE_FLOPS per call, with the leading dimensions of the full product; the time
 * is scaled back by m n k.  So LSTM-512 (vocabulary 10k) tunes in well under 2 s,
 * where timing whole products would cost a few training steps per backend.
 *
 * A plan is also a line of text (ga_plan_format / ga_plan_parse), which checkpoints
 * carry so that a resumed run dispatches exactly as the run that wrote them. */
#ifndef RS_MODELS_GEMM_AUTO_H
#define RS_MODELS_GEMM_AUTO_H

#include <stddef.h>

#include "gemm.h"
#include "model.h"

#define GA_MAX_SHAPES 48   /* 7 per layer (4 layers) + 4 output + 4 class layer, with room */
#define GA_MAX_CANDS 8
#define GA_RECORD_MAX 2048 /* a formatted plan, NUL included (train_state.gemm) */

typedef struct {
    char ta, tb;
    long m, n, k;
    char role[8];     /* fwd, bwd_in, bwd_w, colsum */
    char where[32];   /* in, rec (the input and recurrent weights), rnn (the cell's bias),
                         out, cls; "l1.in", "l1" with layers > 1; "in/rec" if shared */
    double calls;     /* calls per training step (the recurrence: one per time step) */
    float alpha;      /* the alpha the trainer passes (the output layer's 1/N mean); the
                         check and timing use it (libxsmm's kernels, e.g., take only 1) */
} ga_shape;

/* The distinct products of one training step of model c (full windows), at most max.
 * Returns the count. */
int ga_model_shapes(const model_cfg *c, ga_shape *out, int max);

typedef struct {
    int nshapes;
    ga_shape shape[GA_MAX_SHAPES];
    const gemm_backend *pick[GA_MAX_SHAPES];
    const gemm_backend *fallback;      /* shapes not in the table */
    /* how the plan was made (empty for a parsed plan) */
    int ncand;
    const gemm_backend *cand[GA_MAX_CANDS];
    double ms[GA_MAX_SHAPES][GA_MAX_CANDS];  /* est. ms per full-size call; < 0 not run */
    int excluded[GA_MAX_CANDS];        /* 1: failed the check on some shape */
    int threads;
    double tune_ms;                    /* wall time of ga_tune, loading included */
    char notes[1024];                  /* one line per excluded or unavailable backend */
} ga_plan;

/* Pick per shape among cands (loaded, set to `threads` here): every shape is checked
 * and timed on every candidate that supports its transposes; one that fails the check
 * anywhere is excluded (a line in plan->notes), one whose sgemm refuses a shape (-1)
 * only skips it.  A shape keeps the fallback unless another backend is more than
 * GA_MARGIN faster on it (GA_MARGIN_THREADS with more than one thread): fewer libraries
 * in play, fewer flips between runs.  With threads, libraries interfere (OpenBLAS's
 * pool spins after each call while an OpenMP library wants the cores) and timings are
 * noisier: on 2 cores here a plan mixing four libraries ran LSTM-512 at 620 ms a step
 * against 340-420 for any one of them alone.  So with threads only a clear gain splits
 * the work, and never between OpenBLAS and the OpenMP backends (gemm_auto.c).
 * plan->notes is kept (the caller may put ga_candidates's lines there first); the rest
 * of *plan is overwritten.  0, or -1 (rs_lasterr) when no candidate can do every shape. */
#define GA_MARGIN 0.05
#define GA_MARGIN_THREADS 0.15
int ga_tune(const ga_shape *shapes, int nshapes, const gemm_backend *const *cands, int ncand,
            int threads, ga_plan *plan);

/* The candidates of --gemm auto: every registry row that loads, except naive (the
 * oracle) and the ":default" copies (measurement aids); with reentrant, only those
 * pipeline_backend_ok allows.  Unavailable ones get a line in notes.  Returns the count. */
int ga_candidates(int reentrant, const gemm_backend **out, int max, char *notes, size_t len);
/* Load backend b and, under a memory limit (ulimit -v / -d), try its first product in a
 * forked child: a library may crash or spin there when an allocation fails (oneDNN's
 * JIT, a BLAS's buffer).  0, or -1 (rs_lasterr: why, and the limit). */
int ga_load(const gemm_backend *b);
extern int ga_load_threads;   /* the threads ga_load's trial runs at (mm_init* set it) */

/* The backend a plan gives the product (ta, tb, m, n, k). */
const gemm_backend *ga_lookup(const ga_plan *p, char ta, char tb, long m, long n, long k);

/* "auto:other=openblas;2048x1120x512:TN=onednn;..." (the record) and back.  Parsing
 * checks names only; parse fails (-1, rs_lasterr) on a malformed line or an unknown
 * backend name.  Backends are not loaded. */
int ga_plan_format(const ga_plan *p, char *buf, size_t len);
int ga_plan_parse(const char *s, ga_plan *p);

/* The compact label: "auto:fwd=onednn,bwd_in=blis(rec=openblas),bwd_w=onednn,
 * colsum=onednn,other=onednn" — per role the backend of most of its time, then the
 * shapes that differ by their place. */
void ga_plan_label(const ga_plan *p, char *buf, size_t len);

#endif
