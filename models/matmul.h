/* matmul.h — the model's matrix products, row-major, on the project's GEMM layer.
 *
 * gemm.h is column-major (BLAS); a row-major (R, C) matrix is the column-major
 * (C, R) one, so each product below is one sgemm call with the operands read as
 * their transposes — no copies.  Which backend runs a call is fixed at start-up:
 *   - `--gemm auto` (rnn-train's default, mm_init_auto): per call shape, the fastest
 *     backend that passed the reference check (gemm_auto.h); other shapes go to the
 *     backend fastest over the whole step;
 *   - one backend by name (mm_init): any row of gemm_backends[] that does all four
 *     transpose cases — openblas (kernels/peak's dispatch fix applied,
 *     gemm_openblas.c), blis, onednn, "blocked" (the portable fallback) or "naive"
 *     (the double-accumulating oracle); libxsmm does NN only, so only auto uses it;
 *   - a record (mm_init_record): what mm_record() said in an earlier run (a
 *     checkpoint's, or summary.json's gemm_plan given as --gemm), so a resumed or
 *     repeated run dispatches exactly as the earlier one: the same bits. */
#ifndef RS_MODELS_MATMUL_H
#define RS_MODELS_MATMUL_H

#include "gemm_auto.h"
#include "model.h"

/* `name` is NULL, "auto", a backend of the registry or a plan naming only such
 * ("auto:other=..."); else -1 with the one line "--gemm: ..." (rs_lasterr). */
int mm_check_name(const char *name);
/* One backend for every call: `backend` (NULL: openblas, falling back to blocked when
 * OpenBLAS is not installed), loaded, at `threads`.  "auto" needs the model: -1.
 * 0, or -1 (rs_lasterr). */
int mm_init(const char *backend, int threads);
/* --gemm auto for model c: tune its shapes at `threads` (gemm_auto.c); reentrant: only
 * backends that may be called from two threads at once (--pipeline).  0, or -1. */
int mm_init_auto(const model_cfg *c, int threads, int reentrant);
/* --gemm auto in context: the per-shape plan's products were timed alone, and libraries
 * that win alone may lose together (one's spinning threads beside another's).  So the
 * trainer times its own step (gemm_context.c) under each variant and keeps the fastest:
 * 0 the per-shape plan, then each candidate that passed the check and does every
 * product, alone.  mm_auto_variants() returns their count after mm_init_auto, 0 when
 * there is nothing to choose (one backend, or a recorded plan); mm_use_variant(i)
 * dispatches as variant i; mm_keep_variant(i, ms, rounds, seconds) keeps it for the
 * run and adds every variant's step time (ms[v]) and the trial's rounds and seconds to
 * the plan's notes. */
int mm_auto_variants(void);
const char *mm_variant_name(int i);
void mm_use_variant(int i);
void mm_keep_variant(int i, const double *ms, int rounds, double seconds);
/* Dispatch as `record` (an earlier mm_record()) says, without timing; c names the
 * shapes in reports.  0, or -1 when the record is malformed, names a product that is
 * none of c's, or a backend it names cannot load here (rs_lasterr says which and why). */
int mm_init_record(const char *record, const model_cfg *c, int threads);
/* A record's compact label (as mm_backend_name would give), without loading anything. */
void mm_record_label(const char *record, const model_cfg *c, char *buf, size_t len);
/* The choice, compact: "openblas", or "auto:fwd=onednn,bwd_in=blis(rec=openblas),...". */
const char *mm_backend_name(void);
/* The choice, complete and parseable: a backend name or an auto plan
 * ("auto:other=openblas;2048x1120x512:TN=onednn;..."), at most GA_RECORD_MAX bytes. */
const char *mm_record(void);
/* auto's plan (timings, notes), or NULL when one backend runs every call. */
const ga_plan *mm_auto_plan(void);
/* Change every backend's thread count (the pipeline runs its stages at 1 thread each).
 * The calling thread becomes the one that may split loops (mm_split_begin). */
void mm_set_threads(int threads);
/* A loop of small products split over the run's threads, each product single-threaded,
 * so that exactly that many threads are busy (a library's threads nested in the loop's
 * would oversubscribe the cores, and their spin barriers stall under load).  Returns
 * the threads the caller may use in its `omp parallel ... num_threads(n)`, with every
 * backend set to 1 thread; or 1 (nothing changed: run the loop serially) when the run
 * has 1 thread, the caller is not the thread that set the threads (--eval-async's),
 * it is inside a parallel region, or the fallback backend is not re-entrant.  Inside
 * the loop a product whose planned backend is not re-entrant runs on the fallback.
 * After the loop, mm_split_end(n) restores the backends' threads. */
int mm_split_begin(void);
void mm_split_end(int n);
/* The kernel the library runs, e.g. "Zen"; for auto "onednn avx2; openblas Zen". */
const char *mm_dispatch(void);
/* 1 if every backend in use may be called from two threads at once (--pipeline). */
int mm_reentrant(void);

/* out (N, O) = alpha inp (N, I) W^T + beta out,      W (O, I) */
void mm_forward(float *out, const float *inp, const float *w, long N, long I, long O,
                float alpha, float beta);
/* dinp (N, I) = alpha dout (N, O) W + beta dinp,      W (O, I) */
void mm_backward_input(float *dinp, const float *dout, const float *w, long N, long I, long O,
                       float alpha, float beta);
/* dW (O, I) += alpha dout^T (O, N) inp (N, I) */
void mm_backward_weight(float *dw, const float *dout, const float *inp, long N, long I, long O,
                        float alpha);
/* One of the three for a class layer's word product (output_class.c): op's product
 * with c, x, w as op's out/dinp/dw, inp/dout/dout, w/w/inp (MM_BACKWARD_WEIGHT ignores
 * beta: it adds).  Their shapes vary with the class and its rows, so they always take
 * the fallback (auto's "other"), never the pick of a planned shape they happen to
 * match, whose backend may differ inside a split: the same bits at every thread count. */
typedef enum { MM_FORWARD, MM_BACKWARD_INPUT, MM_BACKWARD_WEIGHT } mm_op;
void mm_word(mm_op op, float *c, const float *x, const float *w, long N, long I, long O, float alpha,
             float beta);
/* db (O) += alpha sum_n dout (N, O)[n]: a GEMM with ones (N), so it is threaded and
 * vectorized like the rest. */
void mm_colsum(float *db, const float *dout, const float *ones, long N, long O, float alpha);

#endif
