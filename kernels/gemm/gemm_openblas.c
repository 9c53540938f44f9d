/* gemm_openblas.c — the `openblas` and `openblas:default` backends: cblas_sgemm from
 * libopenblas.so.0, column-major.
 *
 * `openblas` is loaded after kernels/peak's probe set OPENBLAS_CORETYPE where the
 * library's own CPU detection picks a kernel below the CPU (Debian's 0.3.21 takes some
 * AVX-512 Xeons for "Prescott": ~30 instead of ~150 GFLOP/s).  `openblas:default` is a
 * second copy in its own link namespace that chose by itself (gemm_dl.c).  Each copy
 * has its own thread pool, sized per row with openblas_set_num_threads.
 *
 * Memory: OpenBLAS takes a packing buffer (~128 MiB on Haswell/Zen/SkylakeX builds) per
 * thread: each worker of its pool when the pool starts (at load), the calling thread on
 * its first call; and it retries for ever when one cannot be had (under ulimit -v the
 * process spins and never returns).  So, before any copy loads, the pool is sized
 * (OPENBLAS_NUM_THREADS, unless the user set it) to the buffers that can be mapped;
 * each load checks that its pool's buffers fit, then makes one call that takes the
 * caller's buffer for good; set_threads never grows the pool past what fits.  A copy
 * that does not fit fails to load with the limit named: --gemm auto goes on without it. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

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

/* One thread's buffer as OpenBLAS 0.3 maps it (BUFFER_SIZE 128 MiB, plus alignment). */
#define OPENBLAS_BUFFER_BYTES (135266304UL)
#define OPENBLAS_MOST_THREADS 256
/* What loading a copy maps besides (the library, libgfortran, the workers' stacks). */
#define OPENBLAS_LOAD_BYTES (64UL << 20)

/* n buffers (and, loading, the copy itself) can be mapped now: a reservation that
 * touches no page, released at once.  MAP_NORESERVE still counts against RLIMIT_AS and
 * RLIMIT_DATA as the real ones will. */
static int room_for(long n, int loading)
{
    size_t bytes = (size_t)n * OPENBLAS_BUFFER_BYTES + (loading ? OPENBLAS_LOAD_BYTES : 0);
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED)
        return 0;
    munmap(p, bytes);
    return 1;
}

/* The threads a copy's pool starts with: as OpenBLAS counts them (its variables, else
 * the CPUs this process may run on). */
static long pool_threads(void)
{
    static const char *vars[] = {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        long n = v ? strtol(v, NULL, 10) : 0;
        if (n > 0)
            return n < OPENBLAS_MOST_THREADS ? n : OPENBLAS_MOST_THREADS;
    }
    cpu_set_t set;
    long n = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    return n > 0 ? n : 1;
}

void gemm_openblas_fit_threads(void)
{
    static int done;
    if (done || getenv("OPENBLAS_NUM_THREADS"))
        return;
    done = 1;
    long want = pool_threads(), n = want;
    while (n > 1 && !room_for(n, 1))
        n--;
    if (n < want) {
        char v[24];
        snprintf(v, sizeof v, "%ld", n);
        setenv("OPENBLAS_NUM_THREADS", v, 1);
    }
}

/* The one line for a process that cannot map one buffer. */
static void say_no_room(char *why, size_t len, long n)
{
    struct rlimit as, data;
    char lim[96] = "";
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
        snprintf(lim, sizeof lim, "ulimit -v %lu KiB", (unsigned long)(as.rlim_cur / 1024));
    else if (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY)
        snprintf(lim, sizeof lim, "ulimit -d %lu KiB", (unsigned long)(data.rlim_cur / 1024));
    else
        snprintf(lim, sizeof lim, "the memory available");
    snprintf(why, len, "%s leaves no room for the %ld x %lu MiB OpenBLAS takes (a buffer per "
             "thread, retried for ever when refused): raise the limit%s, or use --gemm blocked",
             lim, n, (unsigned long)(OPENBLAS_BUFFER_BYTES >> 20),
             n > 1 ? " or lower OPENBLAS_NUM_THREADS" : "");
}

static int openblas_load(const gemm_backend *b)
{
    openblas_copy *o = &copies[b->variant];
    if (o->state == 0 && (gemm_openblas_fit_threads(), !room_for(pool_threads(), 1))) {
        o->state = -1;
        say_no_room(o->why, sizeof o->why, pool_threads());
    }
    if (o->state == 0) {
        o->state = -1;
        void *h = gemm_dl_open("libopenblas.so.0", "OPENBLAS_CORETYPE", (gemm_dl_mode)b->variant, NULL);
        char *(*corename)(void) = NULL;
        if (h && (o->sgemm = (cblas_sgemm_fn)gemm_dl_sym(h, "openblas", "cblas_sgemm")) &&
            (o->set_threads = (void (*)(int))gemm_dl_sym(h, "openblas", "openblas_set_num_threads")) &&
            (corename = (char *(*)(void))gemm_dl_sym(h, "openblas", "openblas_get_corename"))) {
            o->state = room_for(1, 0) ? 1 : -1;   /* the caller's buffer, after the load */
        }
        if (o->state == 1) {
            gemm_dl_describe(o->dispatch, sizeof o->dispatch, corename(),
                             gemm_blas_probe("openblas"), "OPENBLAS_CORETYPE",
                             (gemm_dl_mode)b->variant);
            /* one single-threaded call large enough to take the buffer now, while it fits
             * (smaller ones may skip it) */
            static float x[64 * 64], y[64 * 64];
            o->set_threads(1);
            o->sgemm(CBLAS_COL_MAJOR, CBLAS_NO_TRANS, CBLAS_NO_TRANS, 64, 64, 64, 1.0f, x, 64, x, 64,
                     0.0f, y, 64);
        } else if (h && corename)
            say_no_room(o->why, sizeof o->why, 1);
        else
            snprintf(o->why, sizeof o->why, "%s", rs_lasterr());
    }
    RS_CHECK(o->state == 1, "%s", o->why);
    return 0;
}

/* Past the pool it started with, OpenBLAS starts workers, each taking a buffer: only
 * as many as fit now. */
static void openblas_set_threads(const gemm_backend *b, int n)
{
    long pool = pool_threads();
    while (n > pool && !room_for(n - pool, 0))
        n--;
    copies[b->variant].set_threads(n);
}

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
