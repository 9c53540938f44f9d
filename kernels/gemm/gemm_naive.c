/* gemm_naive.c — the reference sgemm: every product and sum in double, rounded to
 * float once at the end.  It is the oracle the other backends are checked against
 * (gemm_check.c) and the plainest possible baseline; the driver times it only on
 * small shapes, where it finishes in reasonable time.
 *
 * Loop order is chosen for unit stride, not for speed: with op(A) = A the column of C
 * is accumulated as a sum of columns of A (axpy form); with op(A) = A^T each entry is
 * a dot product of two contiguous vectors.  Columns of C are split over threads. */
#include <stdlib.h>

#include "check.h"
#include "gemm.h"

/* acc[0..M) = alpha op(A) op(B)(:, j) + beta C0(:, j), in double. */
static void naive_column(const gemm_problem *q, long j, double *acc)
{
    long m = q->m, k = q->k;
    if (q->ta == 'N') {
        for (long i = 0; i < m; i++)
            acc[i] = 0;
        for (long p = 0; p < k; p++) {
            double b = q->tb == 'N' ? q->b[p + j * q->ldb] : q->b[j + p * q->ldb];
            const float *a = q->a + p * q->lda;
            for (long i = 0; i < m; i++)
                acc[i] += (double)a[i] * b;
        }
    } else {
        for (long i = 0; i < m; i++) {
            const float *a = q->a + i * q->lda;
            double s = 0;
            if (q->tb == 'N')
                for (long p = 0; p < k; p++)
                    s += (double)a[p] * (double)q->b[p + j * q->ldb];
            else
                for (long p = 0; p < k; p++)
                    s += (double)a[p] * (double)q->b[j + p * q->ldb];
            acc[i] = s;
        }
    }
    const float *c0 = q->c0 + j * q->ldc;
    for (long i = 0; i < m; i++)
        acc[i] = (double)q->alpha * acc[i] + (q->beta != 0 ? (double)q->beta * c0[i] : 0.0);
}

void gemm_naive_double(const gemm_problem *q, double *ref, int nthreads)
{
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads > 0 ? nthreads : 1)
    for (long j = 0; j < q->n; j++)
        naive_column(q, j, ref + j * q->m);
}

/* ---- the backend ---- */
static int naive_threads = 1;

static int naive_load(const gemm_backend *b) { return 0; }

static void naive_set_threads(const gemm_backend *b, int n) { naive_threads = n > 0 ? n : 1; }

static int naive_sgemm(const gemm_backend *bk, char ta, char tb, long m, long n, long k,
                       float alpha, const float *a, long lda, const float *b, long ldb,
                       float beta, float *c, long ldc)
{
    /* C is both C0 and the output: each column is finished in `acc` before it is written. */
    gemm_problem q = {ta, tb, m, n, k, alpha, beta, a, b, c, lda, ldb, ldc};
    int failed = 0;
#pragma omp parallel num_threads(naive_threads)
    {
        double *acc = malloc(sizeof *acc * (size_t)(m > 0 ? m : 1));
        if (!acc) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (long j = 0; j < n; j++) {
            if (!acc)
                continue;
            naive_column(&q, j, acc);
            for (long i = 0; i < m; i++)
                c[i + j * ldc] = (float)acc[i];
        }
        free(acc);
    }
    RS_CHECK(!failed, "naive: out of memory for a column of %ld doubles", m);
    return 0;
}

static const char *naive_dispatch(const gemm_backend *b) { return "portable C (double sums)"; }

const gemm_backend gemm_backend_naive = {
    .name = "naive",
    .reentrant = 1,
    .what = "reference: triple loop, products and sums in double (the oracle)",
    .load = naive_load,
    .set_threads = naive_set_threads,
    .sgemm = naive_sgemm,
    .dispatch = naive_dispatch,
};
