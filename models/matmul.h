/* matmul.h — the model's matrix products, row-major, on the project's GEMM layer.
 *
 * gemm.h is column-major (BLAS); a row-major (R, C) matrix is the column-major
 * (C, R) one, so each product below is one sgemm call with the operands read as
 * their transposes — no copies.  The backend is chosen once (mm_init): OpenBLAS by
 * default, with microbench/peak's dispatch fix applied (gemm_openblas.c), or any
 * row of gemm_backends[] by name ("blocked" is the portable fallback, "naive" the
 * double-accumulating oracle). */
#ifndef RS_MODELS_MATMUL_H
#define RS_MODELS_MATMUL_H

/* Load `backend` (NULL: openblas, falling back to blocked when OpenBLAS is not
 * installed) and set its threads.  0, or -1 (rs_lasterr). */
int mm_init(const char *backend, int threads);
const char *mm_backend_name(void);
/* Change the backend's thread count (the pipeline runs its stages at 1 thread each). */
void mm_set_threads(int threads);
const char *mm_dispatch(void);     /* the kernel the library runs, e.g. "Zen" */

/* out (N, O) = alpha inp (N, I) W^T + beta out,      W (O, I) */
void mm_forward(float *out, const float *inp, const float *w, long N, long I, long O,
                float alpha, float beta);
/* dinp (N, I) = alpha dout (N, O) W + beta dinp,      W (O, I) */
void mm_backward_input(float *dinp, const float *dout, const float *w, long N, long I, long O,
                       float alpha, float beta);
/* dW (O, I) += alpha dout^T (O, N) inp (N, I) */
void mm_backward_weight(float *dw, const float *dout, const float *inp, long N, long I, long O,
                        float alpha);
/* db (O) += alpha sum_n dout (N, O)[n]: a GEMM with ones (N), so it is threaded and
 * vectorized like the rest. */
void mm_colsum(float *db, const float *dout, const float *ones, long N, long O, float alpha);

#endif
