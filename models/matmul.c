/* matmul.c — row-major products on gemm.h's column-major sgemm (see matmul.h).
 *
 * Row-major X (R, C) is column-major X^T (C x R) with leading dimension C.  So:
 * each call below says which column-major product it is. */
#include "matmul.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm.h"

static const gemm_backend *be;

int mm_init(const char *name, int threads)
{
    if (!name) {
        be = gemm_find("openblas");
        if (!be || be->load(be) != 0)
            be = gemm_find("blocked");
    } else {
        be = gemm_find(name);
        CHECK(be, "--gemm: unknown backend '%s' (expected one of openblas, blis, blocked, "
                  "libxsmm, onednn, naive)", name);
    }
    CHECK(be && be->load(be) == 0, "GEMM backend %s: %s", be ? be->name : "blocked", rs_lasterr());
    CHECK(be->trans_unsupported == 0, "--gemm %s: it cannot do the transposed products the "
          "model needs (use openblas, blis or blocked)", be->name);
    if (be->set_threads)
        be->set_threads(be, threads);
    return 0;
}

void mm_set_threads(int threads)
{
    if (be && be->set_threads)
        be->set_threads(be, threads);
}

const char *mm_backend_name(void) { return be ? be->name : "none"; }
const char *mm_dispatch(void) { return be && be->dispatch ? be->dispatch(be) : ""; }

static void sgemm(char ta, char tb, long m, long n, long k, float alpha, const float *a, long lda,
                  const float *b, long ldb, float beta, float *c, long ldc)
{
    if (m == 0 || n == 0)
        return;
    int rc = be->sgemm(be, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    RS_ASSERT(rc == 0);
}

/* out^T (O x N) = W (stored I x O col-major, so 'T') * inp^T (I x N). */
void mm_forward(float *out, const float *inp, const float *w, long N, long I, long O,
                float alpha, float beta)
{
    sgemm('T', 'N', O, N, I, alpha, w, I, inp, I, beta, out, O);
}

/* dinp^T (I x N) = W^T (I x O: W stored col-major I x O, 'N') * dout^T (O x N). */
void mm_backward_input(float *dinp, const float *dout, const float *w, long N, long I, long O,
                       float alpha, float beta)
{
    sgemm('N', 'N', I, N, O, alpha, w, I, dout, O, beta, dinp, I);
}

/* dW^T (I x O) += inp^T (I x N) * dout (N x O: dout^T stored O x N, 'T'). */
void mm_backward_weight(float *dw, const float *dout, const float *inp, long N, long I, long O,
                        float alpha)
{
    sgemm('N', 'T', I, O, N, alpha, inp, I, dout, O, 1.0f, dw, I);
}

/* db (O x 1) += dout^T (O x N, col-major with ld O) * ones (N x 1). */
void mm_colsum(float *db, const float *dout, const float *ones, long N, long O, float alpha)
{
    sgemm('N', 'N', O, 1, N, alpha, dout, O, ones, N, 1.0f, db, O);
}
