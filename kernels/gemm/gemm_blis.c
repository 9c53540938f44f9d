/* gemm_blis.c — the `blis` and `blis:default` backends: BLIS's typed API bli_sgemm
 * from libblis.so.4, with explicit strides (column-major: row stride 1, column stride
 * ld), so no BLAS/CBLAS layer sits in between.
 *
 * `blis` is loaded after kernels/peak's probe set BLIS_ARCH_TYPE where BLIS 0.9
 * falls back to a sub-configuration below the CPU (AVX-512 Xeons get "haswell");
 * `blis:default` is a second copy in its own link namespace that chose by itself.
 * BLIS reads BLIS_ARCH_TYPE when it initializes, so bli_init and the kernel query run
 * inside gemm_dl_open's window (copy_init).  Threads: bli_thread_set_num_threads. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "gemm.h"
#include "gemm_dl.h"

/* blis.h (0.9, 64-bit): dim_t and inc_t are int64_t; trans_t BLIS_TRANSPOSE is the
 * trans bit, 1 << 3. */
typedef int64_t blis_dim;
enum { BLIS_NO_TRANS = 0, BLIS_TRANS = 1 << 3 };
typedef void (*bli_sgemm_fn)(int ta, int tb, blis_dim m, blis_dim n, blis_dim k, float *alpha,
                             float *a, blis_dim rsa, blis_dim csa, float *b, blis_dim rsb,
                             blis_dim csb, float *beta, float *c, blis_dim rsc, blis_dim csc);

typedef struct {
    int state;                 /* 0 not tried, 1 loaded, -1 unavailable (why) */
    char why[256];
    bli_sgemm_fn sgemm;
    void (*set_threads)(blis_dim);
    char kernel[32];
    char dispatch[96];
} blis_copy;

static blis_copy copies[2];   /* indexed by gemm_dl_mode */
static blis_copy *loading;

static void copy_init(void *h)
{
    void (*init)(void) = (void (*)(void))dlsym(h, "bli_init");
    int (*query)(void) = (int (*)(void))dlsym(h, "bli_arch_query_id");
    const char *(*name)(int) = (const char *(*)(int))dlsym(h, "bli_arch_string");
    /* bli_init first: bli_arch_query_id before it aborts when BLIS_ARCH_TYPE is set. */
    if (init && query && name) {
        init();
        snprintf(loading->kernel, sizeof loading->kernel, "%s", name(query()));
    }
}

static int blis_load(const gemm_backend *b)
{
    blis_copy *o = &copies[b->variant];
    if (o->state == 0) {
        o->state = -1;
        loading = o;
        void *h = gemm_dl_open("libblis.so.4", "BLIS_ARCH_TYPE", (gemm_dl_mode)b->variant, copy_init);
        if (h && (o->sgemm = (bli_sgemm_fn)gemm_dl_sym(h, "blis", "bli_sgemm")) &&
            (o->set_threads = (void (*)(blis_dim))gemm_dl_sym(h, "blis", "bli_thread_set_num_threads"))) {
            if (o->kernel[0]) {
                o->state = 1;
                gemm_dl_describe(o->dispatch, sizeof o->dispatch, o->kernel, gemm_blas_probe("blis"),
                                 "BLIS_ARCH_TYPE", (gemm_dl_mode)b->variant);
            } else
                snprintf(o->why, sizeof o->why, "blis: no bli_init/bli_arch_query_id/bli_arch_string");
        } else
            snprintf(o->why, sizeof o->why, "%s", rs_lasterr());
    }
    RS_CHECK(o->state == 1, "%s", o->why);
    return 0;
}

static void blis_set_threads(const gemm_backend *b, int n) { copies[b->variant].set_threads(n); }

static int blis_sgemm(const gemm_backend *bk, char ta, char tb, long m, long n, long k,
                      float alpha, const float *a, long lda, const float *b, long ldb,
                      float beta, float *c, long ldc)
{
    /* BLIS's typed API takes non-const pointers to everything; it writes only C. */
    copies[bk->variant].sgemm(ta == 'N' ? BLIS_NO_TRANS : BLIS_TRANS, tb == 'N' ? BLIS_NO_TRANS : BLIS_TRANS,
                              m, n, k, &alpha, (float *)a, 1, lda, (float *)b, 1, ldb, &beta, c, 1, ldc);
    return 0;
}

static const char *blis_dispatch(const gemm_backend *b) { return copies[b->variant].dispatch; }

const gemm_backend gemm_backend_blis = {
    .name = "blis",
    .reentrant = 1,
    .what = "BLIS bli_sgemm (typed API), sub-configuration corrected where BLIS picks below the CPU",
    .variant = GEMM_DL_FIXED,
    .load = blis_load,
    .set_threads = blis_set_threads,
    .sgemm = blis_sgemm,
    .dispatch = blis_dispatch,
};

const gemm_backend gemm_backend_blis_default = {
    .name = "blis:default",
    .what = "BLIS as it dispatches by itself (a second copy, BLIS_ARCH_TYPE hidden)",
    .pair = "blis",
    .variant = GEMM_DL_DEFAULT,
    .load = blis_load,
    .set_threads = blis_set_threads,
    .sgemm = blis_sgemm,
    .dispatch = blis_dispatch,
};
