/* stream.c — STREAM-style memory bandwidth: copy (c = a) and triad (a = b + s*c).
 *
 * peak_stream_measure() is the bandwidth limit of `microbench peak`.  As in
 * McCalpin's STREAM, each kernel declares the bytes it moves per element in a table
 * (reads + writes of double, write-allocate not counted), the arrays are far larger
 * than the last-level cache, and results are checked after timing.  Each array of
 * array_bytes is split in contiguous, 64-byte-aligned chunks, one per thread; the
 * thread that will stream a chunk first-touches it (rs_parallel, same pinning as
 * rs_bench) so its pages sit on that thread's NUMA node. */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "check.h"
#include "peak.h"
#include "peak_kernels.h"

/* ---- the kernels: plain loops, vectorized by `omp simd` with baseline SSE2 ----
 * Copy is kept a loop: gcc would turn it into memcpy(), which for large sizes
 * switches to non-temporal stores and would measure a different kind of store
 * than triad's (ordinary stores, write-allocate). */

__attribute__((optimize("no-tree-loop-distribute-patterns")))
void peak_stream_copy(double *restrict c, const double *restrict a, long n)
{
#pragma omp simd
    for (long i = 0; i < n; i++)
        c[i] = a[i];
}

void peak_stream_triad(double *restrict a, const double *restrict b,
                       const double *restrict c, double s, long n)
{
#pragma omp simd
    for (long i = 0; i < n; i++)
        a[i] = b[i] + s * c[i];
}

double peak_stream_a(long i) { return 1.0 + (double)(i & 15); }
double peak_stream_b(long i) { return 2.0 + (double)(i & 7); }
double peak_stream_c(long i) { return 0.5 * (double)(i & 3); }

/* ---- the table: what each kernel moves (STREAM's bytes[] array) ---- */

enum { STREAM_COPY, STREAM_TRIAD, STREAM_NKERNELS };
static const struct {
    const char *name;
    int bytes_per_elem;   /* reads + writes of 8-byte doubles */
} stream_kernels[STREAM_NKERNELS] = {
    [STREAM_COPY] = {"copy", 16},   /* read a, write c */
    [STREAM_TRIAD] = {"triad", 24}, /* read b and c, write a */
};

/* ---- the harness side: chunks, first touch, timing, check ---- */

typedef struct {
    double *a, *b, *c;    /* (n) each */
    long n;
    int nthreads;
    int kernel;           /* STREAM_COPY or STREAM_TRIAD */
} stream_ctx;

/* Thread tid's chunk [*lo, *hi): boundaries on multiples of 8 doubles (64 bytes),
 * so no cache line is written by two threads. */
static void stream_chunk(const stream_ctx *s, int tid, long *lo, long *hi)
{
    long lines = (s->n + 7) / 8;
    *lo = lines * tid / s->nthreads * 8;
    *hi = lines * (tid + 1) / s->nthreads * 8;
    if (*lo > s->n) *lo = s->n;
    if (*hi > s->n) *hi = s->n;
}

static void stream_first_touch(void *ctx, int tid)
{
    stream_ctx *s = ctx;
    long lo, hi;
    stream_chunk(s, tid, &lo, &hi);
    for (long i = lo; i < hi; i++) {
        s->a[i] = peak_stream_a(i);
        s->b[i] = peak_stream_b(i);
        s->c[i] = peak_stream_c(i);
    }
}

static void stream_run(void *ctx, int tid, long reps)
{
    stream_ctx *s = ctx;
    long lo, hi;
    stream_chunk(s, tid, &lo, &hi);
    for (long r = 0; r < reps; r++) {
        if (s->kernel == STREAM_COPY)
            peak_stream_copy(s->c + lo, s->a + lo, hi - lo);
        else
            peak_stream_triad(s->a + lo, s->b + lo, s->c + lo, PEAK_STREAM_SCALAR, hi - lo);
        /* Repetitions are idempotent; the barrier keeps the compiler from merging them. */
        __asm__ volatile("" ::: "memory");
    }
}

/* The whole array against the expected values: 0, or -1 naming the first error. */
static int stream_check(const stream_ctx *s)
{
    long wrong = 0, first = -1;
    for (long i = 0; i < s->n; i++) {
        /* Copy ran first, so c holds a's initial values when triad runs. */
        int bad = s->kernel == STREAM_COPY
                      ? s->c[i] != peak_stream_a(i)
                      : s->a[i] != peak_stream_b(i) + PEAK_STREAM_SCALAR * peak_stream_a(i);
        if (bad && wrong++ == 0)
            first = i;
    }
    RS_CHECK(wrong == 0, "peak stream %s: %ld of %ld elements wrong (first at index %ld)",
          stream_kernels[s->kernel].name, wrong, s->n, first);
    return 0;
}

static double *stream_alloc(long n)
{
    /* Huge pages where the kernel allows them (THP "madvise" mode is common): first
     * touch of GiB-sized arrays then costs ~500x fewer page faults, and TLB misses
     * do not eat into the bandwidth being measured. */
    void *p = NULL;
    size_t bytes = (size_t)n * sizeof(double);
    if (posix_memalign(&p, 2L << 20, bytes) != 0)
        return NULL;
    madvise(p, bytes, MADV_HUGEPAGE);   /* advice only: ignored where unsupported */
    return p;
}

int peak_stream_measure(int nthreads, long array_bytes, const rs_bench_cfg *cfg,
                        peak_stream *out)
{
    memset(out, 0, sizeof(*out));
    RS_CHECK(nthreads >= 1, "peak stream: %d threads (expected >= 1)", nthreads);
    long n = array_bytes / (long)sizeof(double);
    RS_CHECK(n >= 8L * nthreads, "peak stream: arrays of %ld bytes are too small for %d threads",
          array_bytes, nthreads);
    out->array_bytes = n * (long)sizeof(double);

    stream_ctx s = {stream_alloc(n), stream_alloc(n), stream_alloc(n), n, nthreads, 0};
    int rc = 0;
    if (!s.a || !s.b || !s.c) {
        rs_seterr("peak stream: cannot allocate 3 arrays of %ld bytes", out->array_bytes);
        rc = -1;
        goto done;
    }
    rs_parallel(nthreads, stream_first_touch, &s);

    /* Copy first (c = a), then triad (a = b + s*c): each is idempotent, so warm-up
     * and repetitions leave exactly one expected result to check. */
    double *gbytes_per_s[STREAM_NKERNELS] = {&out->copy_gbytes_per_s, &out->triad_gbytes_per_s};
    for (int k = 0; k < STREAM_NKERNELS && rc == 0; k++) {
        s.kernel = k;
        rs_bench_result r;
        if (rs_bench(cfg, nthreads, stream_run, &s, &r) != 0 || stream_check(&s) != 0) {
            rc = -1;
            break;
        }
        /* A repetition moves the whole array set once: n elements x bytes per element. */
        *gbytes_per_s[k] = (double)n * stream_kernels[k].bytes_per_elem / r.ns.min;
    }
done:
    free(s.a);
    free(s.b);
    free(s.c);
    return rc;
}
