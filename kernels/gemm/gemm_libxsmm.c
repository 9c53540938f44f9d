/* gemm_libxsmm.c — the `libxsmm` backend: libxsmm's tiled GEMM (JIT-generated
 * small-matrix kernels over tiles, OpenMP across tiles).
 *
 * Why not libxsmm_sgemm: it JITs only small problems (M N K up to ~64^3) and hands
 * everything larger to the BLAS it was linked with, so on DeepBench shapes it would
 * measure that BLAS.  The tiled GEMM keeps libxsmm's own kernels on any size.
 *
 * Loaded with dlopen like the other libraries, from (first found):
 *   <dir of this program>/../lib/libxsmmext.so.1  a shared object the build may make
 *       from Debian's static archives (libxsmm-dev ships no .so): libxsmmext.a,
 *       libxsmm.a and libxsmmnoblas.a linked whole into one -shared object;
 *   libxsmmext.so.1, libxsmmext.so               an upstream shared build.
 * None found: the backend is unavailable, with the reason.  libxsmm picks its JIT
 * target by CPUID (LIBXSMM_TARGET overrides); the row's dispatch is that target.
 *
 * Only what libxsmm computes itself.  libxsmm_xgemm_omp hands every product its tiled
 * GEMM has no kernel for to the BLAS it was linked with; in this build that is
 * libxsmmnoblas's sgemm_, which prints "LIBXSMM ERROR: application must be linked
 * against LAPACK/BLAS sgemm!" and runs a naive float loop (single-threaded, less
 * accurate than the check allows for alpha != 1).  So the tiled GEMM is driven here
 * (libxsmm_gemm_handle_init, libxsmm_gemm_thread): no handle means the product is
 * declined (-1, C untouched, takes() says so beforehand), never handed on.  In
 * libxsmm 1.17 the handle needs NN (NT and TN give wrong results, TT goes to the
 * BLAS, as test_gemm found), alpha = 1 and beta 0 or 1 (its kernels' only cases), and
 * an M with a factor between the vector width (8 floats AVX2, 16 AVX-512) and 48 or 64
 * (the tile); alpha and beta are therefore applied here (below). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <libgen.h>
#include <limits.h>
#include <omp.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "gemm.h"
#include "gemm_dl.h"

enum { XSMM_F32 = 1 };   /* libxsmm_gemm_precision LIBXSMM_GEMM_PRECISION_F32 (1.17) */
typedef int xsmm_int;    /* libxsmm_blasint: int unless built with BLAS=ILP64 */
typedef struct { char data[128]; } xsmm_blob;   /* libxsmm_gemm_blob */
typedef void *(*handle_init_fn)(xsmm_blob *blob, int iprec, int oprec, const char *ta,
                                const char *tb, const xsmm_int *m, const xsmm_int *n,
                                const xsmm_int *k, const xsmm_int *lda, const xsmm_int *ldb,
                                const xsmm_int *ldc, const void *alpha, const void *beta,
                                int flags, int ntasks);
typedef size_t (*scratch_size_fn)(const void *handle);
typedef void (*gemm_thread_fn)(const void *handle, void *scratch, const void *a, const void *b,
                               void *c, int tid, int nthreads);

static struct {
    int state;                 /* 0 not tried, 1 loaded, -1 unavailable (why) */
    char why[512];
    handle_init_fn handle_init;
    scratch_size_fn scratch_size;
    gemm_thread_fn gemm_thread;
    void (*omp_set_threads)(int);
    char dispatch[64];
} xs;

static void *open_libxsmm(char *tried, size_t len)
{
    char exe[PATH_MAX], path[PATH_MAX + 32];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    const char *cands[3] = {NULL, "libxsmmext.so.1", "libxsmmext.so"};
    if (n > 0) {
        exe[n] = 0;
        snprintf(path, sizeof path, "%s/../lib/libxsmmext.so.1", dirname(exe));
        cands[0] = path;
    }
    size_t used = 0;
    for (int i = 0; i < 3; i++) {
        if (!cands[i])
            continue;
        void *h = dlopen(cands[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
        used += (size_t)snprintf(tried + used, used < len ? len - used : 0, "%s%s", used ? ", " : "", cands[i]);
    }
    return NULL;
}

static int libxsmm_load(const gemm_backend *b)
{
    if (xs.state == 0) {
        xs.state = -1;
        char tried[400] = "";
        void *h = open_libxsmm(tried, sizeof tried);
        void (*init)(void) = NULL;
        const char *(*arch)(void) = NULL;
        if (!h)
            snprintf(xs.why, sizeof xs.why, "no libxsmm shared object (tried %s; Debian's libxsmm-dev "
                     "ships only static archives)", tried);
        else if ((xs.handle_init = (handle_init_fn)gemm_dl_sym(h, "libxsmm", "libxsmm_gemm_handle_init")) &&
                 (xs.scratch_size = (scratch_size_fn)gemm_dl_sym(h, "libxsmm",
                                                                 "libxsmm_gemm_handle_get_scratch_size")) &&
                 (xs.gemm_thread = (gemm_thread_fn)gemm_dl_sym(h, "libxsmm", "libxsmm_gemm_thread")) &&
                 (init = (void (*)(void))gemm_dl_sym(h, "libxsmm", "libxsmm_init")) &&
                 (arch = (const char *(*)(void))gemm_dl_sym(h, "libxsmm", "libxsmm_get_target_arch")) &&
                 (xs.omp_set_threads = (void (*)(int))gemm_dl_sym(h, "libxsmm", "omp_set_num_threads"))) {
            init();
            xs.state = 1;
            snprintf(xs.dispatch, sizeof xs.dispatch, "%s", arch());
        } else
            snprintf(xs.why, sizeof xs.why, "%s", rs_lasterr());
    }
    RS_CHECK(xs.state == 1, "%s", xs.why);
    return 0;
}

static void libxsmm_set_threads(const gemm_backend *b, int n) { xs.omp_set_threads(n); }

/* The tasks libxsmm_xgemm_omp would plan for: this thread's OpenMP count, 1 inside a
 * parallel region. */
static int xs_tasks(void) { return omp_in_parallel() ? 1 : omp_get_max_threads(); }

/* libxsmm's kernels take alpha = 1 and beta 0 or 1.  alpha = 1: they write C itself (a
 * pass over C first for another beta); else T = A B into a scratch T (ld m), then
 * C = alpha T + beta C: so the product is summed as a BLAS sums it, not onto a C scaled
 * by beta / alpha (which loses precision with alpha = 1/N, the trainer's mean). */
static int into_t(const gemm_problem *p) { return p->alpha != 1; }

/* libxsmm's handle for the product as run here, or NULL with rs_lasterr saying why
 * libxsmm would not compute it itself. */
static void *xs_handle(xsmm_blob *blob, const gemm_problem *p, int ntasks)
{
    RS_CHECK_NULL(p->ta == 'N' && p->tb == 'N', "libxsmm: the tiled GEMM of libxsmm 1.17 handles only NN");
    RS_CHECK_NULL(p->m <= INT_MAX && p->n <= INT_MAX && p->k <= INT_MAX && p->lda <= INT_MAX &&
                  p->ldb <= INT_MAX && p->ldc <= INT_MAX, "libxsmm: %ldx%ldx%ld exceeds its 32-bit sizes",
                  p->m, p->n, p->k);
    xsmm_int M = (xsmm_int)p->m, N = (xsmm_int)p->n, K = (xsmm_int)p->k;
    xsmm_int LDA = (xsmm_int)p->lda, LDB = (xsmm_int)p->ldb, LDC = (xsmm_int)(into_t(p) ? p->m : p->ldc);
    const float one = 1.0f, kbeta = into_t(p) || p->beta == 0 ? 0.0f : 1.0f;
    void *h = xs.handle_init(blob, XSMM_F32, XSMM_F32, "N", "N", &M, &N, &K, &LDA, &LDB, &LDC, &one,
                             &kbeta, 0 /* LIBXSMM_GEMM_HANDLE_FLAG_AUTO */, ntasks);
    RS_CHECK_NULL(h, "libxsmm: no tiled kernel for %ldx%ldx%ld (M needs a factor from the vector "
                  "width to 48; otherwise libxsmm 1.17 hands it to a BLAS this build lacks)",
                  p->m, p->n, p->k);
    return h;
}

/* No product to compute (BLAS then reads neither A nor B): C = beta C, done here. */
static int no_product(const gemm_problem *p)
{
    return p->m == 0 || p->n == 0 || p->k == 0 || p->alpha == 0;
}

static int libxsmm_takes(const gemm_backend *b, const gemm_problem *p)
{
    xsmm_blob blob;
    RS_CHECK(p->ta == 'N' && p->tb == 'N', "libxsmm: the tiled GEMM of libxsmm 1.17 handles only NN");
    return no_product(p) || xs_handle(&blob, p, xs_tasks()) ? 0 : -1;
}

/* C (m x n, ldc) *= s; s = 0 writes zeros (C may hold NaN: BLAS's beta = 0). */
static void scale_c(float *c, long m, long n, long ldc, float s)
{
    for (long j = 0; j < n; j++)
        for (long i = 0; i < m; i++)
            c[i + j * ldc] = s == 0 ? 0.0f : s * c[i + j * ldc];
}

static int libxsmm_sgemm(const gemm_backend *bk, char ta, char tb, long m, long n, long k,
                         float alpha, const float *a, long lda, const float *b, long ldb,
                         float beta, float *c, long ldc)
{
    gemm_problem p = {ta, tb, m, n, k, alpha, beta, a, b, NULL, lda, ldb, ldc};
    RS_CHECK(ta == 'N' && tb == 'N', "libxsmm: the tiled GEMM of libxsmm 1.17 handles only NN");
    if (no_product(&p)) {
        if (beta != 1)
            scale_c(c, m, n, ldc, beta);
        return 0;
    }
    int nt = xs_tasks();
    xsmm_blob blob;
    void *h = xs_handle(&blob, &p, nt);
    if (!h)
        return -1;
    size_t size = xs.scratch_size(h);
    void *scratch = NULL;
    float *t = NULL, *out = c;
    if (into_t(&p))
        out = t = malloc(sizeof *t * (size_t)m * (size_t)n);
    if ((size && posix_memalign(&scratch, 64, size) != 0) || (into_t(&p) && !t)) {
        free(t);
        RS_CHECK(0, "libxsmm: out of memory for the scratch of %ldx%ldx%ld", m, n, k);
    }
    if (!into_t(&p) && beta != 0 && beta != 1)
        scale_c(c, m, n, ldc, beta);
    /* the tasks as planned, whatever team OpenMP gives (libxsmm_gemm_thread assumes one
     * thread per task) */
#pragma omp parallel num_threads(nt) if (nt > 1)
    for (int i = omp_get_thread_num(); i < nt; i += omp_get_num_threads())
        xs.gemm_thread(h, scratch, a, b, out, i, nt);
    if (t)
        for (long j = 0; j < n; j++)
            for (long i = 0; i < m; i++)
                c[i + j * ldc] = beta == 0 ? alpha * t[i + j * m] : alpha * t[i + j * m] + beta * c[i + j * ldc];
    free(t);
    free(scratch);
    return 0;
}

static const char *libxsmm_dispatch(const gemm_backend *b) { return xs.dispatch; }

const gemm_backend gemm_backend_libxsmm = {
    .name = "libxsmm",
    .what = "libxsmm's tiled GEMM over JIT small-matrix kernels, NN only, shapes it has kernels for (if a .so exists)",
    .trans_unsupported = 0xe,   /* NT, TN, TT */
    .load = libxsmm_load,
    .set_threads = libxsmm_set_threads,
    .sgemm = libxsmm_sgemm,
    .takes = libxsmm_takes,
    .dispatch = libxsmm_dispatch,
};
