/* gemm_openblas.c — the `openblas` and `openblas:default` backends: cblas_sgemm from
 * libopenblas.so.0, column-major.
 *
 * `openblas` is loaded after microbench/peak's probe set OPENBLAS_CORETYPE where the
 * library's own CPU detection picks a kernel below the CPU (Debian's 0.3.21 takes some
 * AVX-512 Xeons for "Prescott": ~30 instead of ~150 GFLOP/s).  `openblas:default` is a
 * second copy in its own link namespace that chose by itself (gemm_dl.c).  Each copy
 * has its own thread pool, sized per row with openblas_set_num_threads. */
#include <stdio.h>

#include "check.h"
#include "gemm.h"
#include "gemm_dl.h"

/* cblas.h values, fixed by the CBLAS standard. */
enum { CBLAS_COL_MAJOR = 102, CBLAS_NO_TRANS = 111, CBLAS_TRANS = 112 };
typedef void (*cblas_sgemm_fn)(int order, int ta, int tb, int m, int n, int k, float alpha,
                               const float *a, int lda, const float *b, int ldb, float beta,
                               float *c, int ldc);

typedef struct {
    int state;                 /* 0 not tried, 1 loaded, -1 unavailable (why) */
    char why[256];
    cblas_sgemm_fn sgemm;
    void (*set_threads)(int);
    char dispatch[96];
} openblas_copy;

static openblas_copy copies[2];   /* indexed by gemm_dl_mode */

static int openblas_load(const gemm_backend *b)
{
    openblas_copy *o = &copies[b->variant];
    if (o->state == 0) {
        o->state = -1;
        void *h = gemm_dl_open("libopenblas.so.0", "OPENBLAS_CORETYPE", (gemm_dl_mode)b->variant, NULL);
        char *(*corename)(void) = NULL;
        if (h && (o->sgemm = (cblas_sgemm_fn)gemm_dl_sym(h, "openblas", "cblas_sgemm")) &&
            (o->set_threads = (void (*)(int))gemm_dl_sym(h, "openblas", "openblas_set_num_threads")) &&
            (corename = (char *(*)(void))gemm_dl_sym(h, "openblas", "openblas_get_corename"))) {
            o->state = 1;
            gemm_dl_describe(o->dispatch, sizeof o->dispatch, corename(),
                             gemm_blas_probe("openblas"), "OPENBLAS_CORETYPE",
                             (gemm_dl_mode)b->variant);
        } else
            snprintf(o->why, sizeof o->why, "%s", rs_lasterr());
    }
    RS_CHECK(o->state == 1, "%s", o->why);
    return 0;
}

static void openblas_set_threads(const gemm_backend *b, int n) { copies[b->variant].set_threads(n); }

static int openblas_sgemm(const gemm_backend *bk, char ta, char tb, long m, long n, long k,
                          float alpha, const float *a, long lda, const float *b, long ldb,
                          float beta, float *c, long ldc)
{
    copies[bk->variant].sgemm(CBLAS_COL_MAJOR, ta == 'N' ? CBLAS_NO_TRANS : CBLAS_TRANS,
                              tb == 'N' ? CBLAS_NO_TRANS : CBLAS_TRANS, (int)m, (int)n, (int)k,
                              alpha, a, (int)lda, b, (int)ldb, beta, c, (int)ldc);
    return 0;
}

static const char *openblas_dispatch(const gemm_backend *b) { return copies[b->variant].dispatch; }

const gemm_backend gemm_backend_openblas = {
    .name = "openblas",
    .reentrant = 1,
    .what = "OpenBLAS cblas_sgemm, kernel dispatch corrected where the library picks below the CPU",
    .variant = GEMM_DL_FIXED,
    .load = openblas_load,
    .set_threads = openblas_set_threads,
    .sgemm = openblas_sgemm,
    .dispatch = openblas_dispatch,
};

const gemm_backend gemm_backend_openblas_default = {
    .name = "openblas:default",
    .what = "OpenBLAS as it dispatches by itself (a second copy, OPENBLAS_CORETYPE hidden)",
    .pair = "openblas",
    .variant = GEMM_DL_DEFAULT,
    .load = openblas_load,
    .set_threads = openblas_set_threads,
    .sgemm = openblas_sgemm,
    .dispatch = openblas_dispatch,
};
