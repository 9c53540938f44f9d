/* gemm_onednn.c — the `onednn` backend: dnnl_sgemm from libdnnl.so.2 (oneDNN 2.x), if
 * installed (Debian: libdnnl-dev).  dnnl_sgemm is ROW-major, so the column-major
 * problem is passed transposed: C^T (N x M, ld ldc) = op(B)^T op(A)^T, which is the
 * same memory as C (M x N, column-major); the operands swap and keep their flags.
 *
 * oneDNN picks its kernels by CPUID itself (no misdetection known); the row's dispatch
 * is dnnl_get_effective_cpu_isa().  It threads with the OpenMP runtime it is linked
 * with, so the thread count is set through that runtime's omp_set_num_threads. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "gemm.h"
#include "gemm_dl.h"

typedef int (*dnnl_sgemm_fn)(char ta, char tb, int64_t m, int64_t n, int64_t k, float alpha,
                             const float *a, int64_t lda, const float *b, int64_t ldb,
                             float beta, float *c, int64_t ldc);

static struct {
    int state;                 /* 0 not tried, 1 loaded, -1 unavailable (why) */
    char why[256];
    dnnl_sgemm_fn sgemm;
    void (*omp_set_threads)(int);
    char dispatch[64];
} dn;

/* dnnl_cpu_isa_t values of oneDNN 2.6 (dnnl_types.h). */
static const char *isa_name(int isa)
{
    switch (isa) {
    case 0x1: return "sse41";
    case 0x3: return "avx";
    case 0x7: return "avx2";
    case 0x407: return "avx2_vnni";
    case 0xf: return "avx512_mic";
    case 0x1f: return "avx512_mic_4ops";
    case 0x27: return "avx512_core";
    case 0x67: return "avx512_core_vnni";
    case 0xe7: return "avx512_core_bf16";
    case 0x3e7: return "avx512_core_amx";
    default: return "unknown";
    }
}

static int onednn_load(const gemm_backend *b)
{
    if (dn.state == 0) {
        dn.state = -1;
        void *h = dlopen("libdnnl.so.2", RTLD_NOW | RTLD_LOCAL);
        int (*isa)(void) = NULL;
        if (!h)
            snprintf(dn.why, sizeof dn.why, "libdnnl.so.2 not loadable: %s (Debian: libdnnl-dev)", dlerror());
        else if ((dn.sgemm = (dnnl_sgemm_fn)gemm_dl_sym(h, "onednn", "dnnl_sgemm")) &&
                 (isa = (int (*)(void))gemm_dl_sym(h, "onednn", "dnnl_get_effective_cpu_isa")) &&
                 (dn.omp_set_threads = (void (*)(int))gemm_dl_sym(h, "onednn", "omp_set_num_threads"))) {
            dn.state = 1;
            snprintf(dn.dispatch, sizeof dn.dispatch, "%s", isa_name(isa()));
        } else
            snprintf(dn.why, sizeof dn.why, "%s", rs_lasterr());
    }
    RS_CHECK(dn.state == 1, "%s", dn.why);
    return 0;
}

static void onednn_set_threads(const gemm_backend *b, int n) { dn.omp_set_threads(n); }

static int onednn_sgemm(const gemm_backend *bk, char ta, char tb, long m, long n, long k,
                        float alpha, const float *a, long lda, const float *b, long ldb,
                        float beta, float *c, long ldc)
{
    int st = dn.sgemm(tb, ta, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc);
    RS_CHECK(st == 0, "onednn: dnnl_sgemm returned status %d", st);
    return 0;
}

static const char *onednn_dispatch(const gemm_backend *b) { return dn.dispatch; }

const gemm_backend gemm_backend_onednn = {
    .name = "onednn",
    .reentrant = 1,
    .what = "oneDNN dnnl_sgemm (row-major; called with the operands swapped)",
    .load = onednn_load,
    .set_threads = onednn_set_threads,
    .sgemm = onednn_sgemm,
    .dispatch = onednn_dispatch,
};
