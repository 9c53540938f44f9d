/* cmd_softmax.c — `microbench softmax`: every softmax variant and the fused cross-entropy
 * are checked against the double reference (random, huge, masked and NaN inputs, odd
 * row lengths, every internal path), then timed on rows x cols shapes — vocabulary-like
 * rows in cache and one row larger than the LLC — on 1 and all threads.  Each speed is
 * also shown as a speedup over the naive libm softmax (the Sunway TaihuLight study's "before") and as a
 * fraction of the applicable bound (softmax.h: exp FMA-port bound in cache, STREAM copy
 * bandwidth beyond the LLC, measured right after the shape's timing).  A shape's
 * variants are timed side by side (rs_bench_rounds), then each is run once more and its
 * output checked. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"
#include "check.h"
#include "counters.h"
#include "fsio.h"
#include "peak.h"
#include "softmax.h"
#include "softmax_check.h"
#include "kernel_study.h"
#include "timer.h"

#define MAX_LIST 16
#define TIMING_SEED 1

static const char usage[] =
    "usage: microbench softmax [options]\n"
    "Checks every softmax variant and the fused cross-entropy (xent: loss and dlogits =\n"
    "softmax - onehot) against a double-precision reference on random, huge (|x| to 1e4\n"
    "and 3e38), masked (-inf) and NaN inputs, then times them on rows x cols shapes:\n"
    "ns/element, GB/s (8 bytes per element: read x, write y), speedup over naive, and the\n"
    "fraction of the bound (exp FMA-port bound in cache, STREAM copy bandwidth beyond the\n"
    "LLC, measured right after).  A shape's variants are timed side by side, one sample of\n"
    "each per round, so a noisy moment falls on all of them.  The default grid is rows x\n"
    "cols with shapes over 4M elements left out, plus rows of 2x the LLC in floats each,\n"
    "as many as the largest thread count; --quick:\n"
    "rows 1,32 x cols 64,1000,10000 and rows of 1x the LLC.  Threads: the rows are split\n"
    "in contiguous blocks, each thread its own rows (a row is never split), so a shape\n"
    "with fewer rows than threads is skipped for that thread count.  Special rows: a NaN\n"
    "or +inf gives a NaN row, a fully -inf row gives NaN (as PyTorch); dlogits are not\n"
    "divided by rows (softmax.h).";

/* ---- options (the shared ones are the runner's: kernel_study.h) ---- */
static struct {
    const char *rows;      /* --rows LIST (default 1,32,512) */
    const char *cols;      /* --cols LIST (default 64,1000,10000,50000) */
} opt;

static const rs_opt options[] = {
    {"rows", RS_OPT_STR, &opt.rows, "LIST", "rows (batch), e.g. 1,32,512 (default 1,32,512)", 0, 0},
    {"cols", RS_OPT_STR, &opt.cols, "LIST", "columns (vocabulary), e.g. 64,1000,50000 (default 64,1000,10000,50000 + rows > LLC)", 0, 0},
};

/* ---- shapes ---- */
typedef struct {
    long rows, cols;
} shape;

/* A list of positive counts that fit an int ("--rows", "--cols"). */
static int parse_counts(const char *name, const char *s, long *out)
{
    char buf[512], *items[MAX_LIST];
    snprintf(buf, sizeof buf, "%s", s);
    int k = rs_split_list(buf, items, MAX_LIST);
    RS_CHECK(k > 0, "--%s: empty list (expected e.g. %s)", name,
          strcmp(name, "rows") == 0 ? "1,32,512" : "1000,50000");
    for (int i = 0; i < k; i++) {
        RS_CHECK(rs_parse_size(items[i], &out[i]) == 0 && out[i] > 0,
              "--%s: '%s' is not a positive count (expected e.g. %s)", name, items[i],
              strcmp(name, "rows") == 0 ? "1,32,512" : "1000,50000");
        RS_CHECK(out[i] <= 0x7fffffff, "--%s: '%s' is too large (at most 2147483647)", name, items[i]);
    }
    return k;
}

/* The --rows / --cols list, or its default where the option is not given. */
static int counts_or_default(const char *name, const char *arg, const long *def, int ndef, long *out)
{
    if (arg)
        return parse_counts(name, arg, out);
    memcpy(out, def, (size_t)ndef * sizeof(long));
    return ndef;
}

/* Default grid: rows x cols up to 4M elements (32 MiB moved per call), then rows larger
 * than the LLC: 2x the LLC in floats each (x alone twice the LLC: the second pass cannot
 * find x in cache), one per thread of the largest thread count — rows are never split,
 * so that is the shape on which all threads stream from memory at once (on one core,
 * exp's FMA work per element can take as long as moving its 8 bytes). */
static int make_shapes(shape *sh, int max, int tmax, int quick)
{
    static const long def_rows[] = {1, 32, 512}, def_cols[] = {64, 1000, 10000, 50000};
    static const long quick_rows[] = {1, 32}, quick_cols[] = {64, 1000, 10000};
    long rows[MAX_LIST], cols[MAX_LIST];
    int n = 0, user = opt.rows || opt.cols;
    int nr = counts_or_default("rows", opt.rows, quick ? quick_rows : def_rows, quick ? 2 : 3, rows);
    if (nr < 0)
        return -1;
    int nc = counts_or_default("cols", opt.cols, quick ? quick_cols : def_cols, quick ? 3 : 4, cols);
    if (nc < 0)
        return -1;
    long mem = sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
    for (int c = 0; c < nc; c++)
        for (int r = 0; r < nr && n < max; r++) {
            double bytes = SOFTMAX_BYTES_PER_ELEM * rows[r] * cols[c];
            if (!user && rows[r] * cols[c] > (4L << 20))
                continue;
            RS_CHECK(bytes <= mem / 2, "--rows/--cols: %ld x %ld needs %.1f GiB (x and y), more than "
                                    "half this machine's %.1f GiB of memory", rows[r], cols[c],
                  bytes / (1 << 30), (double)mem / (1 << 30));
            sh[n++] = (shape){rows[r], cols[c]};
        }
    if (!opt.cols && n < max) {
        long llc_floats = rs_llc_bytes() / 4;
        long big = quick ? llc_floats : 2 * llc_floats;
        if (big > 0x7fffffff)
            big = 0x7fffffff;
        if (SOFTMAX_BYTES_PER_ELEM * big * tmax <= mem / 2)
            sh[n++] = (shape){tmax, big};
        else
            printf("note: the %d row(s) larger than the LLC (%ld floats each) are left out: over "
                   "half this machine's memory\n", tmax, big);
    }
    return n;
}

static const char *cache_label(long rows, long cols, int threads)
{
    rs_machine m;
    rs_machine_probe(&m);
    double per_thread = SOFTMAX_BYTES_PER_ELEM * ((rows + threads - 1) / threads) * cols;
    if (m.l1d_bytes > 0 && per_thread <= m.l1d_bytes)
        return "L1";
    if (m.l2_bytes > 0 && per_thread <= m.l2_bytes)
        return "L2";
    if (SOFTMAX_BYTES_PER_ELEM * rows * cols <= rs_llc_bytes())
        return "L3";
    return "DRAM";
}

/* ---- bounds (softmax.h, "work and bounds") ---- */

/* STREAM copy GB/s on `threads` threads, measured now (quick, arrays of max(2x LLC,
 * 64 MiB)): called next to each timing beyond the LLC, so the kernel and its bound see
 * the same moment of a shared machine (its bandwidth here swings from 19 to 33 GB/s
 * between minutes; machine.json's figure is one such minute).  (The FMA peak's
 * counterpart is peak_fma_gflops_for in peak.h.) */
static double copy_gbytes_now(int threads)
{
    rs_bench_cfg cfg = rs_bench_defaults(1);
    long bytes = 2 * rs_llc_bytes();
    bytes = bytes > (64L << 20) ? bytes : 64L << 20;
    peak_stream s;
    if (peak_stream_measure(threads, bytes, &cfg, &s) != 0)
        return -1;
    return s.copy_gbytes_per_s;
}

/* exp FMA-port bound: SOFTMAX_BOUND_VECOPS vector ops per vector at the measured rate;
 * bound_cycles_per_elem = SOFTMAX_BOUND_VECOPS * 2 * tsc_ghz / gflops (lanes cancel). */
static double exp_bound_ns(double gflops)
{
    return gflops > 0 ? SOFTMAX_BOUND_VECOPS * 2 / gflops : NAN;
}

/* memory bound: SOFTMAX_BYTES_PER_ELEM at the STREAM copy rate. */
static double mem_bound_ns(double gbytes_per_s)
{
    return gbytes_per_s > 0 ? SOFTMAX_BYTES_PER_ELEM / gbytes_per_s : NAN;
}

/* ---- the timed kernel: each thread its own contiguous block of rows ---- */
typedef struct {
    const softmax_variant *v;
    float *x, *y, *loss;       /* x, y (rows, cols); loss (rows) */
    int *targets;              /* (rows) */
    double *m, *s;             /* reference normalizers (rows) */
    long rows, cols;
    int nthreads;
} work;

static void thread_rows(const work *w, int tid, long *r0, long *r1)
{
    *r0 = w->rows * tid / w->nthreads;
    *r1 = w->rows * (tid + 1) / w->nthreads;
}

/* First touch by the thread that will use the rows; the reference normalizers too. */
static void init_thread(void *ctx, int tid)
{
    work *w = ctx;
    long r0, r1;
    thread_rows(w, tid, &r0, &r1);
    size_t off = (size_t)r0 * w->cols, n = (size_t)(r1 - r0) * w->cols;
    softmax_fill(w->x + off, r0, r1, (int)w->cols, SOFTMAX_IN_UNIFORM, TIMING_SEED);
    memset(w->y + off, 0, n * sizeof(float));
    for (long r = r0; r < r1; r++) {
        /* every row has a target when timing: an ignored row would do no work */
        int t = softmax_target(TIMING_SEED, r, (int)w->cols);
        w->targets[r] = t >= 0 ? t : (int)(r % w->cols);
        w->loss[r] = 0;
    }
    softmax_ref_norms(w->x + off, (int)(r1 - r0), (int)w->cols, w->m + r0, w->s + r0);
}

static void run_kernel(void *ctx, int tid, long reps)
{
    work *w = ctx;
    long r0, r1;
    thread_rows(w, tid, &r0, &r1);
    size_t off = (size_t)r0 * w->cols;
    for (long k = 0; k < reps; k++) {
        softmax_run(w->v, SOFTMAX_PATH_AUTO, w->x + off, w->targets + r0, w->y + off,
                    w->loss + r0, (int)(r1 - r0), (int)w->cols);
        __asm__ volatile("" ::: "memory");   /* repetitions are idempotent: keep them all */
    }
}

/* One run of the variant on each thread's rows: the output that is checked. */
static void run_once(void *ctx, int tid) { run_kernel(ctx, tid, 1); }

/* Large arrays on 2 MiB boundaries with huge pages advised, as STREAM's (the bound). */
static void *alloc_big(size_t bytes)
{
    void *p = NULL;
    bytes = (bytes + 63) / 64 * 64;
    if (posix_memalign(&p, bytes >= (2u << 20) ? 2u << 20 : 64, bytes) != 0)
        return NULL;
    if (bytes >= (2u << 20))
        madvise(p, bytes, MADV_HUGEPAGE);   /* advice only */
    return p;
}

static const rs_col columns[] = {
    {"variant", RS_STR, 0}, {"isa", RS_STR, 0}, {"threads", RS_INT, 0}, {"rows", RS_INT, 0},
    {"cols", RS_INT, 0}, {"cache", RS_STR, 0}, RS_STUDY_PER_ELEM_COLUMNS, {"gbytes_per_s", RS_DBL, 4},
    {"max_rel_err", RS_DBL, 3}, {"row_sum_err", RS_DBL, 3}, {"loss_err", RS_DBL, 3},
    {"speedup_vs_naive", RS_DBL, 4}, {"frac_of_bound", RS_DBL, 3}, {"bound", RS_STR, 0},
    {"bound_ns_per_elem", RS_DBL, 4}, {"samples", RS_INT, 0},
};

/* ---- the targets, read back from the table ---- */
static double cell(const rs_table *t, int row, const char *col)
{
    int c = rs_table_col_index(t, col);
    if (!rs_cell_isset(t, row, c))
        return NAN;
    return rs_table_col(t, c)->type == RS_INT ? (double)rs_cell_int(t, row, c) : rs_cell_dbl(t, row, c);
}

static const char *scell(const rs_table *t, int row, const char *col)
{
    return rs_cell_str(t, row, rs_table_col_index(t, col));
}

static int same_shape(const rs_table *t, int a, int b)
{
    return cell(t, a, "threads") == cell(t, b, "threads") && cell(t, a, "rows") == cell(t, b, "rows") &&
           cell(t, a, "cols") == cell(t, b, "cols");
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Per shape (rows, cols, threads): the best speedup over naive, the best fraction of
 * the memory bound, and xent's time over the fastest plain softmax's. */
static void print_targets(const rs_table *t)
{
    int n = rs_table_nrows(t), l2_shapes = 0, l2_met = 0, nratio = 0;
    double l2_min = INFINITY, l2_max = 0, dram_best = NAN, *ratio = malloc(sizeof(double) * (n + 1));
    char dram[512] = "";
    for (int i = 0; i < n; i++) {
        int first = 1;
        for (int j = 0; j < i && first; j++)
            first = !same_shape(t, i, j);
        if (!first)
            continue;
        double best_sp = NAN, best_plain = INFINITY, best_xent = INFINITY, best_frac = NAN;
        for (int j = i; j < n; j++) {
            if (!same_shape(t, i, j))
                continue;
            double sp = cell(t, j, "speedup_vs_naive"), ns = cell(t, j, "ns_per_elem");
            if (!(sp <= best_sp))
                best_sp = sp;
            if (strcmp(scell(t, j, "variant"), "xent") == 0)
                best_xent = fmin(best_xent, ns);
            else
                best_plain = fmin(best_plain, ns);
            if (strcmp(scell(t, j, "bound"), "memory") == 0 && !(cell(t, j, "frac_of_bound") <= best_frac))
                best_frac = cell(t, j, "frac_of_bound");
        }
        const char *cache = scell(t, i, "cache");
        if (cell(t, i, "threads") == 1 && (!strcmp(cache, "L1") || !strcmp(cache, "L2")) && isfinite(best_sp)) {
            l2_shapes++;
            l2_met += best_sp >= 12.63;
            l2_min = fmin(l2_min, best_sp);
            l2_max = fmax(l2_max, best_sp);
        }
        if (isfinite(best_frac)) {
            size_t len = strlen(dram);
            snprintf(dram + len, sizeof dram - len, "%s%.0f x %.0f on %.0f thr: %.2f", len ? "; " : "",
                     cell(t, i, "rows"), cell(t, i, "cols"), cell(t, i, "threads"), best_frac);
            dram_best = isfinite(dram_best) ? fmax(dram_best, best_frac) : best_frac;
        }
        if (isfinite(best_xent / best_plain))
            ratio[nratio++] = best_xent / best_plain;
    }
    printf("targets (one run on a possibly shared machine):\n");
    if (l2_shapes)
        printf("  in L2, 1 thread: best speedup over naive %.1fx .. %.1fx; >= 12.63x on %d of %d shapes\n",
               l2_min, l2_max, l2_met, l2_shapes);
    if (isfinite(dram_best))
        printf("  beyond the LLC, best variant's fraction of the bandwidth bound: %s; target >= 0.80 "
               "(within 1.25x): %s\n", dram, dram_best >= 0.8 ? "met" : "not met");
    if (nratio) {
        qsort(ratio, (size_t)nratio, sizeof(double), cmp_dbl);
        printf("  xent / fastest plain softmax over %d shapes: median %.2fx, worst %.2fx; target <= 1.2x: %s\n",
               nratio, ratio[nratio / 2], ratio[nratio - 1], ratio[nratio - 1] <= 1.2 ? "met" : "not met");
    }
    free(ratio);
}

/* ---- the study: what the runner (kernel_study.h) calls ---- */
static struct {
    shape shapes[MAX_LIST * MAX_LIST + 1];
    int any_beyond_llc;   /* some shape's x and y together exceed the LLC */
    double exp_ns;        /* the exp bound of the current thread count, ns/element */
    int skipped;          /* (thread count, shape) pairs with fewer rows than threads */
} st;

static const softmax_variant *selected(const rs_study_run *r, int s) { return r->sel[s]; }

static void print_list(const rs_study_run *r)
{
    printf("%-8s %-9s %-5s %-4s %s\n", "variant", "isa", "safe", "runs", "algorithm");
    for (int k = 0; k < softmax_nvariants; k++)
        printf("%-8s %-9s %-5s %-4s %s\n", softmax_variants[k].variant,
               rs_isa_name(softmax_variants[k].isa), softmax_variants[k].overflow_safe ? "yes" : "no",
               rs_isa_supported(softmax_variants[k].isa) ? "yes" : "no", softmax_variants[k].algo);
}

static int prepare(rs_study_run *r)
{
    int tmax = 1;
    for (int i = 0; i < r->nthreads; i++)
        tmax = r->threads[i] > tmax ? r->threads[i] : tmax;
    int n = make_shapes(st.shapes, RS_ARRAY_LEN(st.shapes), tmax, r->c.quick);
    for (int i = 0; i < n; i++)
        st.any_beyond_llc |= SOFTMAX_BYTES_PER_ELEM * st.shapes[i].rows * st.shapes[i].cols > rs_llc_bytes();
    return n;
}

/* Correctness first, outside any timed region. */
static int check_variants(rs_study_run *r)
{
    printf("checking %d variants on random, huge, masked and NaN inputs (cols 1..3000, every path) ...\n", r->nsel);
    fflush(stdout);
    for (int s = 0; s < r->nsel; s++) {
        const softmax_variant *v = selected(r, s);
        softmax_err e;
        char what[400];
        if (!softmax_check_variant(v, &e, what, sizeof what)) {
            r->wrong = 1;
            fprintf(stderr, "WRONG: %s %s: %s\n", v->variant, rs_isa_name(v->isa), what);
        } else {
            char loss[32] = "";
            if (v->xent)
                snprintf(loss, sizeof loss, ", loss %.3g", e.loss_err);
            printf("  %-7s %-9s ok: max_rel_err %.3g, row sums %.3g%s%s\n", v->variant,
                   rs_isa_name(v->isa), e.max_rel_err, e.row_sum_err, loss,
                   v->overflow_safe ? "" : " (huge inputs skipped: not overflow-safe)");
        }
    }
    return rs_interrupted() ? rs_interrupt_code() : 0;
}

static void begin(rs_study_run *r)
{
    rs_table *t = r->table;
    rs_table_meta(t, "inputs", "uniform [-10, 10], every row with a target");
    rs_table_meta(t, "counters", rs_counters_status());
    char buf[64];
    snprintf(buf, sizeof buf, "%g", SOFTMAX_BOUND_VECOPS);
    rs_table_meta(t, "bound_vecops", buf);
    snprintf(buf, sizeof buf, "%g", SOFTMAX_BYTES_PER_ELEM);
    rs_table_meta(t, "bytes_per_elem", buf);
    snprintf(buf, sizeof buf, "%g", SOFTMAX_MAX_REL_ERR);
    rs_table_meta(t, "max_rel_err_tolerance", buf);
    rs_table_meta(t, "dlogits", "softmax - onehot, not divided by rows");
    rs_study_meta_peak_source(r);
}

/* A shape with fewer rows than threads is skipped: a row is never split. */
static int steps(const rs_study_run *r, int ti, int i)
{
    return st.shapes[i].rows >= r->threads[ti] ? r->nsel : 0;
}

static int thread_count(rs_study_run *r, int ti)
{
    st.exp_ns = exp_bound_ns(peak_fma_gflops_for(r->threads[ti], r->machine));
    return 0;
}

static int work_alloc(work *w)
{
    size_t n = (size_t)w->rows * w->cols;
    w->x = alloc_big(n * sizeof(float));
    w->y = alloc_big(n * sizeof(float));
    w->loss = malloc((size_t)w->rows * sizeof(float));
    w->targets = malloc((size_t)w->rows * sizeof(int));
    w->m = malloc((size_t)w->rows * sizeof(double));
    w->s = malloc((size_t)w->rows * sizeof(double));
    RS_CHECK(w->x && w->y && w->loss && w->targets && w->m && w->s, "out of memory for %ld x %ld",
          w->rows, w->cols);
    return 0;
}

static void work_free(work *w)
{
    void *blocks[] = {w->x, w->y, w->loss, w->targets, w->m, w->s};
    for (int i = 0; i < RS_ARRAY_LEN(blocks); i++)
        free(blocks[i]);
}

/* Bound of one shape: the exp bound, or beyond the LLC the memory bound if it binds. */
typedef struct {
    double ns;
    const char *name;
} bound;

static void add_row(rs_table *t, const work *w, const char *cache, const rs_bench_result *r,
                    const softmax_err *e, bound b, double naive_ns)
{
    double n = (double)w->rows * w->cols, ns = r->ns.median / n;   /* wall time per element */
    int row = rs_table_row(t);
    rs_set_str(t, row, "variant", w->v->variant);
    rs_set_str(t, row, "isa", rs_isa_name(w->v->isa));
    rs_set_int(t, row, "threads", w->nthreads);
    rs_set_int(t, row, "rows", w->rows);
    rs_set_int(t, row, "cols", w->cols);
    rs_set_str(t, row, "cache", cache);
    rs_study_set_per_elem(t, row, r, n);
    rs_set_dbl(t, row, "gbytes_per_s", SOFTMAX_BYTES_PER_ELEM / ns);
    rs_set_dbl(t, row, "max_rel_err", e->max_rel_err);
    rs_set_dbl(t, row, "row_sum_err", e->row_sum_err);
    if (w->v->xent)
        rs_set_dbl(t, row, "loss_err", e->loss_err);
    if (isfinite(naive_ns))
        rs_set_dbl(t, row, "speedup_vs_naive", naive_ns / ns);
    if (isfinite(b.ns)) {
        rs_set_dbl(t, row, "frac_of_bound", b.ns / ns);
        rs_set_str(t, row, "bound", b.name);
        rs_set_dbl(t, row, "bound_ns_per_elem", b.ns);
    }
    rs_set_int(t, row, "samples", r->ns.n);
}

/* Each variant's timed output checked; its row. */
static void check_and_record(rs_study_run *r, work *ws, const rs_bench_result *res, bound b)
{
    const char *cache = cache_label(ws[0].rows, ws[0].cols, ws[0].nthreads);
    size_t n = (size_t)ws[0].rows * ws[0].cols;
    long stride = (long)(n / 65536) + 1;   /* ~64k outputs in full; NaN-ness and sums: all */
    double naive_ns = NAN;
    for (int s = 0; s < r->nsel; s++) {
        const work *w = &ws[s];
        rs_parallel(w->nthreads, run_once, &ws[s]);
        softmax_err e;
        softmax_compare(w->x, w->targets, w->y, w->loss, (int)w->rows, (int)w->cols, w->v->xent != NULL,
                        stride, w->m, w->s, &e);
        if (!softmax_err_ok(&e)) {
            r->wrong = 1;
            fprintf(stderr, "WRONG: %s %s: timed output %ld x %ld (%d threads): max_rel_err %.3g "
                            "at row %ld col %ld, row sums %.3g, loss %.3g\n",
                    w->v->variant, rs_isa_name(w->v->isa), w->rows, w->cols, w->nthreads, e.max_rel_err,
                    e.worst_row, e.worst_col, e.row_sum_err, e.loss_err);
        }
        if (strcmp(w->v->variant, "naive") == 0)
            naive_ns = res[s].ns.median / (double)n;
        add_row(r->table, w, cache, &res[s], &e, b, naive_ns);
    }
}

/* Every variant timed side by side (rounds of one sample each: a noisy spell falls on
 * all, so speedups and xent / fast hold), then each run once more and its output
 * checked; beyond the LLC the bandwidth bound right after. */
static int time_shape(rs_study_run *r, int ti, int i)
{
    int T = r->threads[ti];
    work w = {.rows = st.shapes[i].rows, .cols = st.shapes[i].cols, .nthreads = T};
    if (w.rows < T) {
        st.skipped++;
        return 0;
    }
    if (work_alloc(&w) != 0)
        return RS_EXIT_USAGE;
    rs_parallel(T, init_thread, &w);
    int beyond = SOFTMAX_BYTES_PER_ELEM * w.rows * w.cols > rs_llc_bytes();
    rs_study_progress(r, r->nsel, "softmax %ldx%ld t=%d (%d variants)", w.rows, w.cols, T, r->nsel);
    work ws[RS_STUDY_MAX_SEL];
    void *ctxs[RS_STUDY_MAX_SEL];
    rs_bench_result res[RS_STUDY_MAX_SEL];
    for (int s = 0; s < r->nsel; s++) {
        ws[s] = w;
        ws[s].v = selected(r, s);
        ctxs[s] = &ws[s];
    }
    int rc = rs_study_bench_rounds(r, T, r->nsel, run_kernel, ctxs, res);
    if (rc != 0)
        return rc;
    double mem_ns = beyond ? mem_bound_ns(copy_gbytes_now(T)) : NAN;
    bound b = {st.exp_ns, "exp"};
    if (beyond && mem_ns > b.ns)   /* the binding one of the two */
        b = (bound){mem_ns, "memory"};
    check_and_record(r, ws, res, b);
    work_free(&w);
    return 0;
}

static void finish(rs_study_run *r)
{
    rs_table_meta(r->table, "stream_source",
                  st.any_beyond_llc ? "STREAM copy on the row's threads, measured right after each timing "
                                      "beyond the LLC (quick)"
                                    : "not needed (no shape beyond the LLC)");
}

static void notes(rs_study_run *r)
{
    if (st.skipped)
        printf("skipped %d shape(s) with fewer rows than threads (a row is never split)\n", st.skipped);
    printf("cycles are TSC cycles at %.3f GHz; bound: exp = %g vector ops per vector at the measured "
           "FMA rate, memory = %g bytes/element at STREAM copy (beyond the LLC, %ld MiB); %s\n",
           rs_tsc_ghz(), SOFTMAX_BOUND_VECOPS, SOFTMAX_BYTES_PER_ELEM, rs_llc_bytes() >> 20,
           rs_counters_status());
    print_targets(r->table);
}

static const rs_study softmax_study = {
    .name = "softmax", .usage = usage, .counters = 1, .registry = &softmax_registry,
    .variant_help = "variants to run: naive,safe,online,fast,xent (default all)",
    .opts = options, .nopts = RS_ARRAY_LEN(options),
    .threads_help = "thread counts, e.g. 1,2 or all (default 1,all); rows are split across threads",
    .machine_help = "machine.json from `microbench peak`: its FMA peak (default: measured now; the "
                    "bandwidth is always measured next to each row beyond the LLC)",
    .columns = columns, .ncols = RS_ARRAY_LEN(columns),
    .console_columns = "variant,isa,threads,rows,cols,cache,ns_per_elem,cycles_per_elem,cv,"
                       "gbytes_per_s,max_rel_err,row_sum_err,speedup_vs_naive,frac_of_bound,bound",
    .print_list = print_list, .prepare = prepare, .before = check_variants,
    .begin = begin, .steps = steps, .thread_count = thread_count,
    .time_item = time_shape, .finish = finish, .notes = notes,
};

int cmd_softmax(int argc, char **argv) { return rs_study_main(&softmax_study, argc, argv); }
