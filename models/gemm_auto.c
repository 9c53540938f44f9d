/* gemm_auto.c — the per-shape choice of `--gemm auto` (gemm_auto.h).
 *
 * Order of work: every shape's slice is allocated and its reference built once; then
 * backends outermost (a library's idle pool — OpenBLAS spins ~0.1 s after a call — is
 * switched once, as in microbench gemm), each shape checked, then timed by rs_bench
 * (warm-up and repetitions, the minimum kept).  rs_bench pins its single harness thread
 * to the first CPU; a backend running threads of its own gets the process's CPUs back
 * before each sample (threads a library creates inherit its creator's mask), and the
 * mask is restored at the end. */
#define _GNU_SOURCE
#include "gemm_auto.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "check.h"
#include "pipeline.h"
#include "timer.h"

/* About 1 ms per call per thread at this machine class's ~100 GFLOP/s a core. */
#define GA_SLICE_FLOPS 1e8
/* k is cut no lower (a few kc blocks of every library), nor m or n: per-call packing
 * stays a small share, and the libraries' choice of algorithm by size stays the full
 * product's (oneDNN's AVX2 sgemm, e.g., skips packing when 1/m + 1/n >= 0.0038). */
#define GA_SLICE_KMIN 512
#define GA_SLICE_MNMIN 640
#define GA_SEED 20240601ull
/* Products up to this many multiply-adds are checked entry by entry, larger ones on
 * gemm_check.c's sample (the corners and 1000 entries): a full double reference of
 * every slice would cost more than timing them. */
#define GA_FULL_CHECK_MACS (1L << 20)
/* A backend whose checked call took this many times the best time so far on the shape
 * is not timed further (it cannot be picked); its one call is its estimate. */
#define GA_HOPELESS 4.0

/* ---- the model's shapes ---- */

static void add_shape(ga_shape *out, int *n, int max, char ta, char tb, long m, long nn, long k,
                      const char *role, const char *where, double calls, float alpha)
{
    if (m <= 0 || nn <= 0 || k <= 0 || calls <= 0)
        return;
    for (int i = 0; i < *n; i++) {
        ga_shape *s = &out[i];
        if (s->ta == ta && s->tb == tb && s->m == m && s->n == nn && s->k == k) {
            s->calls += calls;
            if (alpha != 1)   /* shared by a product with alpha 1 and one without: check the latter */
                s->alpha = alpha;
            size_t l = strlen(s->where);
            if (strcmp(s->where, where) != 0 && l + 1 + strlen(where) < sizeof s->where)
                snprintf(s->where + l, sizeof s->where - l, "/%s", where);
            return;
        }
    }
    RS_ASSERT(*n < max);
    ga_shape *s = &out[(*n)++];
    memset(s, 0, sizeof *s);
    *s = (ga_shape){ta, tb, m, nn, k, "", "", calls, alpha};
    snprintf(s->role, sizeof s->role, "%s", role);
    snprintf(s->where, sizeof s->where, "%s", where);
}

/* The sgemm calls of matmul.c's four products (matmul.c says which is which):
 *   mm_forward(N, I, O)          T N  O x N x I
 *   mm_backward_input(N, I, O)   N N  I x N x O
 *   mm_backward_weight(N, I, O)  N T  I x O x N
 *   mm_colsum(N, O)              N N  O x 1 x N
 * with the arguments (and alpha) lstm.c / elman.c / output.c / output_class.c pass. */
int ga_model_shapes(const model_cfg *c, ga_shape *out, int max)
{
    int n = 0;
    long B = c->batch, T = c->bptt, N = B * T, H = c->hidden, G = (long)model_gates(c) * H;
    char in[16], rec[16], bias[16];
    for (int l = 0; l < c->layers; l++) {
        long I = model_layer_in(c, l);
        snprintf(in, sizeof in, c->layers > 1 ? "l%d.in" : "in", l);
        snprintf(rec, sizeof rec, c->layers > 1 ? "l%d.rec" : "rec", l);
        snprintf(bias, sizeof bias, c->layers > 1 ? "l%d" : "rnn", l);
        add_shape(out, &n, max, 'T', 'N', G, N, I, "fwd", in, 1, 1.0f);
        add_shape(out, &n, max, 'T', 'N', G, B, H, "fwd", rec, (double)T, 1.0f);
        add_shape(out, &n, max, 'N', 'N', H, B, G, "bwd_in", rec, (double)(T - 1), 1.0f);
        add_shape(out, &n, max, 'N', 'N', I, N, G, "bwd_in", in, 1, 1.0f);
        add_shape(out, &n, max, 'N', 'T', I, G, N, "bwd_w", in, 1, 1.0f);
        add_shape(out, &n, max, 'N', 'T', H, G, N, "bwd_w", rec, 1, 1.0f);
        add_shape(out, &n, max, 'N', 'N', G, 1, N, "colsum", bias, 1, 1.0f);
    }
    /* the output layer: the full softmax, or the class layer of --classes (its per-class
     * word products vary with the class and its rows: they take the fallback) */
    long O = c->classes > 0 ? c->classes : c->vocab;
    const char *w = c->classes > 0 ? "cls" : "out";
    float mean = 1.0f / (float)N;   /* output.c / output_class.c: the mean loss's 1/N */
    add_shape(out, &n, max, 'T', 'N', O, N, H, "fwd", w, 1, 1.0f);
    add_shape(out, &n, max, 'N', 'N', H, N, O, "bwd_in", w, 1, mean);
    add_shape(out, &n, max, 'N', 'T', H, O, N, "bwd_w", w, 1, mean);
    add_shape(out, &n, max, 'N', 'N', O, 1, N, "colsum", w, 1, mean);
    return n;
}

/* ---- candidates ---- */

static void note(char *notes, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void note(char *notes, size_t len, const char *fmt, ...)
{
    size_t l = strlen(notes);
    va_list ap;
    va_start(ap, fmt);
    if (l < len)
        vsnprintf(notes + l, len - l, fmt, ap);
    va_end(ap);
}

/* The memory limit in force, as the shell sets it ("ulimit -v 200000 KiB"), or "". */
static void limit_text(char *buf, size_t len)
{
    struct rlimit as, data;
    buf[0] = 0;
    if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
        snprintf(buf, len, "ulimit -v %lu KiB", (unsigned long)(as.rlim_cur / 1024));
    else if (getrlimit(RLIMIT_DATA, &data) == 0 && data.rlim_cur != RLIM_INFINITY)
        snprintf(buf, len, "ulimit -d %lu KiB", (unsigned long)(data.rlim_cur / 1024));
}

int ga_load_threads = 1;

int ga_load(const gemm_backend *b)
{
    static const gemm_backend *tried[32];
    static int ntried;
    if (b->load(b) != 0)
        return -1;
    char lim[64];
    limit_text(lim, sizeof lim);
    if (!lim[0])
        return 0;   /* no limit: nothing to fear from a first allocation */
    for (int i = 0; i < ntried; i++)
        if (tried[i] == b)
            return 0;
    fflush(NULL);
    pid_t pid = fork();
    RS_CHECK(pid >= 0, "%s: cannot fork to try it under %s: %s", b->name, lim, strerror(errno));
    if (pid == 0) {   /* at the threads the run will use; a hang is a failure too */
        static float x[64 * 64], y[64 * 64];
        int null = open("/dev/null", O_WRONLY);   /* the library's dying words are ours to say */
        if (null >= 0)
            dup2(null, 2);
        alarm(3);
        if (b->set_threads)
            b->set_threads(b, ga_load_threads);
        b->sgemm(b, 'N', 'N', 64, 64, 64, 1.0f, x, 64, x, 64, 0.0f, y, 64);
        _exit(0);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    char how[96] = "fails";
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
        snprintf(how, sizeof how, "hangs");
    else if (WIFSIGNALED(st))
        snprintf(how, sizeof how, "crashes (%s)", strsignal(WTERMSIG(st)));
    RS_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s %s on a first product under %s (memory "
             "it could not get): raise the limit, or use --gemm blocked", b->name, how, lim);
    if (ntried < RS_ARRAY_LEN(tried))
        tried[ntried++] = b;
    return 0;
}

int ga_candidates(int reentrant, const gemm_backend **out, int max, char *notes, size_t len)
{
    int n = 0;
    /* Registry order, except: the portable blocked GEMM after the libraries (it is
     * rarely close, and GA_HOPELESS then spares most of its timing), and OpenBLAS last:
     * its own thread pool spins ~0.1 s after a call, which would slow the OpenMP
     * backends (BLIS, oneDNN, libxsmm, blocked share libgomp's pool) timed after it. */
    const gemm_backend *last[] = {&gemm_backend_blocked, &gemm_backend_openblas};
    for (int k = 0; k < gemm_nbackends + RS_ARRAY_LEN(last) && n < max; k++) {
        const gemm_backend *b = k < gemm_nbackends ? gemm_backends[k] : last[k - gemm_nbackends];
        if (b == &gemm_backend_naive || b->pair ||
            (k < gemm_nbackends && (b == last[0] || b == last[1])))
            continue;
        if (reentrant && !pipeline_backend_ok(b->name)) {
            note(notes, len, "%s left out: --pipeline calls GEMM from two threads at once (not known to be re-entrant)\n",
                 b->name);
            continue;
        }
        if (ga_load(b) != 0) {
            note(notes, len, "%s not available: %s\n", b->name, rs_lasterr());
            continue;
        }
        out[n++] = b;
    }
    return n;
}

/* ---- tuning ---- */

typedef struct {
    gemm_problem p;
    float *a, *b, *c0, *c;
    gemm_ref ref;
    double scale;   /* full m n k / slice m n k */
} slice_data;

static long round16(long v, long cap) { v = (v + 15) / 16 * 16; return v < cap ? v : cap; }

/* The slice of s timed in its place: k first, then the longer of m and n. */
static void slice_dims(const ga_shape *s, int threads, long *m, long *n, long *k)
{
    double budget = GA_SLICE_FLOPS * (threads > 0 ? threads : 1);
    *m = s->m, *n = s->n, *k = s->k;
    if (2.0 * *m * *n * *k <= budget)
        return;
    long kk = (long)(budget / (2.0 * *m * *n));
    *k = round16(kk > GA_SLICE_KMIN ? kk : GA_SLICE_KMIN, s->k);
    for (int it = 0; it < 2 && 2.0 * *m * *n * *k > budget; it++) {
        long *big = *m >= *n ? m : n, other = big == m ? *n : *m;
        long v = (long)(budget / (2.0 * other * *k));
        v = round16(v > GA_SLICE_MNMIN ? v : GA_SLICE_MNMIN, *big);
        *big = v;
    }
}

/* An ld x cols block of microbench gemm's deterministic inputs (gemm_fill). */
static float *alloc_fill(long ld, long cols, int which)
{
    float *x = malloc(sizeof *x * (size_t)(ld * cols));
    if (x)
        gemm_fill(x, ld * cols, GA_SEED, which);
    return x;
}

static int slice_alloc(const ga_shape *s, int threads, slice_data *d)
{
    long m, n, k;
    slice_dims(s, threads, &m, &n, &k);
    /* the leading dimensions of the full product (matmul.c passes packed matrices) */
    long lda = s->ta == 'N' ? s->m : s->k, ldb = s->tb == 'N' ? s->k : s->n, ldc = s->m;
    d->p = (gemm_problem){s->ta, s->tb, m, n, k, s->alpha, 1.0f, NULL, NULL, NULL, lda, ldb, ldc};
    d->scale = (double)s->m * s->n * s->k / ((double)m * n * k);
    d->a = alloc_fill(lda, s->ta == 'N' ? k : m, 0);
    d->b = alloc_fill(ldb, s->tb == 'N' ? n : k, 1);
    d->c0 = alloc_fill(ldc, n, 2);
    d->c = calloc((size_t)(ldc * n), sizeof *d->c);
    RS_CHECK(d->a && d->b && d->c0 && d->c, "--gemm auto: out of memory for %ldx%ldx%ld", m, n, k);
    /* C0 of the size of what the product adds (|alpha| sqrt(k) for these inputs), as a
     * gradient accumulates onto one of its size: a library that computes
     * alpha (A B + (beta / alpha) C0), oneDNN's order, adds the sum's rounding at
     * the scale of C0 / alpha, which a C0 of 1 under alpha = 1/N (residual 4.1 on the
     * class layer's 100x1x1120 column sum) would flag as wrong; a C0 term dropped or
     * doubled still shows at 10^4 and above. */
    double c0_scale = fabs((double)s->alpha) * sqrt((double)k);
    if (c0_scale < 1)
        for (long i = 0; i < ldc * n; i++)
            d->c0[i] = (float)(d->c0[i] * c0_scale);
    d->p.a = d->a, d->p.b = d->b, d->p.c0 = d->c0;
    return gemm_ref_build_upto(&d->p, GA_SEED, threads, GA_FULL_CHECK_MACS, &d->ref);
}

static void slice_free(slice_data *d)
{
    free(d->a), free(d->b), free(d->c0), free(d->c);
    gemm_ref_free(&d->ref);
}

static cpu_set_t start_mask;

typedef struct {
    const gemm_backend *b;
    const gemm_problem *p;
    float *c;
    int threads;
} kernel_ctx;

static void kernel(void *vctx, int tid, long reps)
{
    kernel_ctx *w = vctx;
    const gemm_problem *p = w->p;
    (void)tid;
    if (w->threads > 1)
        sched_setaffinity(0, sizeof start_mask, &start_mask);
    for (long r = 0; r < reps; r++)
        w->b->sgemm(w->b, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b, p->ldb,
                    p->beta, w->c, p->ldc);
}

/* One checked call of b on d (C from C0): est. ms per full-size call; -1 when b
 * declines the case; -2 when the result is wrong (why says so). */
static double check_once(const gemm_backend *b, slice_data *d, int threads, char *why, size_t len)
{
    const gemm_problem *p = &d->p;
    for (long j = 0; j < p->n; j++)
        memcpy(d->c + j * p->ldc, d->c0 + j * p->ldc, (size_t)p->m * sizeof(float));
    if (threads > 1)
        sched_setaffinity(0, sizeof start_mask, &start_mask);
    uint64_t t0 = rs_now_ns();
    if (b->sgemm(b, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b, p->ldb,
                 p->beta, d->c, p->ldc) != 0)
        return -1;
    double first = (double)(rs_now_ns() - t0) * d->scale * 1e-6;
    double res = gemm_residual(p, &d->ref, d->c);
    if (!(res <= GEMM_RESIDUAL_MAX)) {
        snprintf(why, len, "residual %.3g > %g on %ldx%ldx%ld:%s", res, GEMM_RESIDUAL_MAX, p->m,
                 p->n, p->k, gemm_trans_str(p->ta, p->tb));
        return -2;
    }
    return first;
}

/* Check b on d, then time it: est. ms per full-size call; -1 when b declines the case;
 * -2 when the result is wrong (why says so).  best: the least estimate so far on this
 * shape (0 none). */
static double check_and_time(const gemm_backend *b, slice_data *d, int threads, double best,
                             char *why, size_t len)
{
    const gemm_problem *p = &d->p;
    double first = check_once(b, d, threads, why, len);
    if (first < 0)
        return first;
    if (best > 0 && first > GA_HOPELESS * best)
        return first;
    rs_bench_cfg cfg = {.warmup_s = 0, .min_sample_s = 2e-4, .min_samples = 3, .max_samples = 50,
                        .min_time_s = 1e-3, .max_time_s = 0.05};
    kernel_ctx w = {b, p, d->c, threads};
    rs_bench_result r;
    int rc = rs_bench(&cfg, 1, kernel, &w, &r);
    sched_setaffinity(0, sizeof start_mask, &start_mask);
    if (rc != 0)
        return -3;
    return r.ns.min * d->scale * 1e-6;
}

/* One small call per transpose case the shapes use, so that a library's one-time work
 * (oneDNN and libxsmm generate their kernels at the first call of a case; thread
 * pools start) is not in the first checked call, which GA_HOPELESS judges. */
static void warm_up(const gemm_backend *b, const ga_shape *shapes, int nshapes, int threads)
{
    enum { W = 64 };
    static float a[W * W], bb[W * W], c[W * W];
    unsigned done = 0;
    if (threads > 1)
        sched_setaffinity(0, sizeof start_mask, &start_mask);
    for (int s = 0; s < nshapes; s++) {
        unsigned bit = gemm_trans_bit(shapes[s].ta, shapes[s].tb);
        if ((done & bit) || (b->trans_unsupported & bit))
            continue;
        done |= bit;
        b->sgemm(b, shapes[s].ta, shapes[s].tb, W, W, W, 1.0f, a, W, bb, W, 1.0f, c, W);
    }
}

/* OpenBLAS runs its own pthread pool; every other backend threads with OpenMP, in the
 * libgomp pool rnn-train's own kernels use too.  With more than one thread a plan keeps
 * to the fallback's kind: after an OpenBLAS call its pool spins (~0.1 s) while an
 * OpenMP backend wants the same cores, and the other way round.  On 2 cores here,
 * OpenBLAS with oneDNN for the two bias sums alone (0.2 against 0.8 ms each, timed
 * apart) took LSTM-512 from 340-420 to 520 ms a step. */
static int own_pool(const gemm_backend *b) { return strncmp(b->name, "openblas", 8) == 0; }

/* The class layer's per-class products (output_class.c), which run on the fallback,
 * one thread each inside the split: the S words of one class against its n rows,
 *   TN S x n x H, NT H x S x n (alpha 1/N), NN H x n x S (alpha 1/N),
 * S from 1 to the largest class, n from 1 to the window's rows.  Checked, not timed,
 * at S = n = 1 and at an odd S = 37 with n = 13: the fallback must compute them.
 * Found from the model's "bwd_in cls" (H x N x C). */
#define GA_NSPLIT 6
static int split_shapes(const ga_shape *shapes, int nshapes, ga_shape *out)
{
    for (int i = 0; i < nshapes; i++) {
        const ga_shape *s = &shapes[i];
        if (strcmp(s->role, "bwd_in") != 0 || strcmp(s->where, "cls") != 0)
            continue;
        static const long sizes[][2] = {{1, 1}, {37, 13}};   /* S, n */
        int n = 0;
        for (int j = 0; j < 2; j++) {
            long S = sizes[j][0], R = sizes[j][1];
            out[n++] = (ga_shape){'T', 'N', S, R, s->m, "fwd", "cls.word", 1, 1.0f};
            out[n++] = (ga_shape){'N', 'T', s->m, S, R, "bwd_w", "cls.word", 1, s->alpha};
            out[n++] = (ga_shape){'N', 'N', s->m, R, S, "bwd_in", "cls.word", 1, s->alpha};
        }
        return n;
    }
    return 0;
}

int ga_tune(const ga_shape *shapes, int nshapes, const gemm_backend *const *cands, int ncand,
            int threads, ga_plan *plan)
{
    RS_CHECK(nshapes <= GA_MAX_SHAPES && ncand <= GA_MAX_CANDS && ncand > 0,
          "--gemm auto: %d shapes, %d backends (at most %d, %d; at least one backend)", nshapes,
          ncand, GA_MAX_SHAPES, GA_MAX_CANDS);
    char notes[sizeof plan->notes];   /* kept: ga_candidates's lines */
    memcpy(notes, plan->notes, sizeof notes);
    notes[sizeof notes - 1] = 0;
    memset(plan, 0, sizeof *plan);
    memcpy(plan->notes, notes, sizeof notes);
    plan->nshapes = nshapes;
    memcpy(plan->shape, shapes, sizeof *shapes * (size_t)nshapes);
    plan->ncand = ncand;
    memcpy(plan->cand, cands, sizeof *cands * (size_t)ncand);
    plan->threads = threads;
    sched_getaffinity(0, sizeof start_mask, &start_mask);
    slice_data *d = calloc((size_t)nshapes, sizeof *d);
    RS_CHECK(d, "out of memory");
    int rc = 0;
    for (int s = 0; s < nshapes && rc == 0; s++)
        rc = slice_alloc(&shapes[s], threads, &d[s]);
    for (int c = 0; c < ncand && rc == 0; c++) {
        const gemm_backend *b = cands[c];
        if (b->set_threads)
            b->set_threads(b, threads);
        for (int s = 0; s < nshapes; s++)
            plan->ms[s][c] = -1;
        warm_up(b, shapes, nshapes, threads);
        for (int s = 0; s < nshapes; s++) {
            if (b->trans_unsupported & gemm_trans_bit(shapes[s].ta, shapes[s].tb))
                continue;
            /* the product as the trainer calls it, not the slice checked and timed
             * (whose m and n are rounded to 16): a backend that would decline it there
             * (libxsmm without a kernel for it) is not picked for it */
            if (b->takes && b->takes(b, &(gemm_problem){shapes[s].ta, shapes[s].tb, shapes[s].m,
                                     shapes[s].n, shapes[s].k, shapes[s].alpha, 1.0f, NULL, NULL,
                                     NULL, d[s].p.lda, d[s].p.ldb, d[s].p.ldc}) != 0)
                continue;
            char why[160];
            double best = 0;
            for (int o = 0; o < c; o++)
                if (!plan->excluded[o] && plan->ms[s][o] >= 0 && (best == 0 || plan->ms[s][o] < best))
                    best = plan->ms[s][o];
            double ms = check_and_time(b, &d[s], threads, best, why, sizeof why);
            if (ms == -3) {
                rc = -1;
                break;
            }
            if (ms == -2) {
                plan->excluded[c] = 1;
                note(plan->notes, sizeof plan->notes, "%s excluded: WRONG result, %s\n", b->name, why);
                break;
            }
            plan->ms[s][c] = ms;
        }
    }
    for (int s = 0; s < nshapes; s++)
        slice_free(&d[s]);
    free(d);
    if (rc != 0)
        return -1;
    /* the split's per-class products, at one thread as there */
    ga_shape split[GA_NSPLIT];
    int nsplit = split_shapes(shapes, nshapes, split), no_split[GA_MAX_CANDS] = {0};
    for (int i = 0; i < nsplit && rc == 0; i++) {
        slice_data sd = {0};
        rc = slice_alloc(&split[i], 1, &sd);
        for (int c = 0; c < ncand && rc == 0; c++) {
            const gemm_backend *b = cands[c];
            char why[160];
            if (plan->excluded[c] || no_split[c])
                continue;
            if (b->set_threads)
                b->set_threads(b, 1);
            int unsup = (b->trans_unsupported & gemm_trans_bit(split[i].ta, split[i].tb)) != 0;
            double ms = unsup ? -1 : check_once(b, &sd, 1, why, sizeof why);
            if (b->set_threads)
                b->set_threads(b, threads);
            if (ms == -2) {
                plan->excluded[c] = 1;
                note(plan->notes, sizeof plan->notes, "%s excluded: WRONG result on a per-class "
                     "word product, %s\n", b->name, why);
            } else if (ms == -1) {   /* it may take shapes, never be the fallback */
                no_split[c] = 1;
                if (!unsup)
                    note(plan->notes, sizeof plan->notes, "%s declines a per-class word product "
                         "(%s): not the fallback\n", b->name, rs_lasterr());
            }
        }
        slice_free(&sd);
    }
    if (rc != 0)
        return -1;
    /* the fallback: the least time over the step among those that do every shape */
    double best = 0;
    for (int c = 0; c < ncand; c++) {
        double t = 0;
        for (int s = 0; s < nshapes && t >= 0; s++)
            t = plan->ms[s][c] < 0 ? -1 : t + shapes[s].calls * plan->ms[s][c];
        if (!plan->excluded[c] && !no_split[c] && t >= 0 && (!plan->fallback || t < best))
            plan->fallback = cands[c], best = t;
    }
    if (!plan->fallback) {   /* one line: the notes' line breaks become "; " */
        char why[2 * sizeof plan->notes];
        size_t w = 0;
        for (const char *q = plan->notes; *q; q++)
            if (*q != '\n')
                why[w++] = *q;
            else if (q[1])
                why[w++] = ';', why[w++] = ' ';
        why[w] = 0;
        RS_CHECK(0, "--gemm auto: no backend can do every product of the model (%s)",
              why[0] ? why : "none available");
    }
    int fb = 0;
    while (cands[fb] != plan->fallback)
        fb++;
    for (int s = 0; s < nshapes; s++) {
        int bc = fb;
        for (int c = 0; c < ncand; c++)
            if (!plan->excluded[c] && plan->ms[s][c] >= 0 && plan->ms[s][c] < plan->ms[s][bc] &&
                (threads == 1 || own_pool(cands[c]) == own_pool(plan->fallback)))
                bc = c;
        double margin = threads > 1 ? GA_MARGIN_THREADS : GA_MARGIN;
        plan->pick[s] = plan->ms[s][bc] < (1 - margin) * plan->ms[s][fb] ? cands[bc] : plan->fallback;
    }
    return 0;
}

const gemm_backend *ga_lookup(const ga_plan *p, char ta, char tb, long m, long n, long k)
{
    for (int i = 0; i < p->nshapes; i++) {
        const ga_shape *s = &p->shape[i];
        if (s->m == m && s->n == n && s->k == k && s->ta == ta && s->tb == tb)
            return p->pick[i];
    }
    return p->fallback;
}
