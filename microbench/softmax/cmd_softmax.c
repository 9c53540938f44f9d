/* cmd_softmax.c — `microbench softmax`: every softmax variant and the fused cross-entropy
 * are checked against the double reference (random, huge, masked and NaN inputs, odd
 * row lengths, every internal path), then timed on rows x cols shapes — vocabulary-like
 * rows in cache and one row larger than the LLC — on 1 and all threads.  Each speed is
 * also shown as a speedup over the naive libm softmax (the seed's "before") and as a
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
#include "json.h"
#include "meta.h"
#include "opts.h"
#include "peak.h"
#include "progress.h"
#include "record.h"
#include "softmax.h"
#include "softmax_check.h"
#include "timer.h"

#define MAX_LIST 16
#define MAX_THREADS 16
#define MAX_SEL 64   /* variants x ISAs selected */
#define TIMING_SEED 1

/* ---- options ---- */
static struct {
    rs_common_opts c;
    const char *variants;  /* --variant LIST (default all) */
    const char *isas;      /* --isa LIST (default all supported) */
    const char *rows;      /* --rows LIST (default 1,32,512) */
    const char *cols;      /* --cols LIST (default 64,1000,10000,50000) */
    const char *threads;   /* --threads LIST (default 1,all) */
    const char *machine;   /* --machine FILE: machine.json with the FMA peak */
    int list;              /* --list: print the registry and exit */
} opt;

static const rs_opt options[] = {
    {"variant", RS_OPT_STR, &opt.variants, "LIST", "variants to run: naive,safe,online,fast,xent (default all)", 0, 0},
    {"isa", RS_OPT_STR, &opt.isas, "LIST", "ISAs to run: avx512,avx2,portable (default all this CPU has)", 0, 0},
    {"rows", RS_OPT_STR, &opt.rows, "LIST", "rows (batch), e.g. 1,32,512 (default 1,32,512)", 0, 0},
    {"cols", RS_OPT_STR, &opt.cols, "LIST", "columns (vocabulary), e.g. 64,1000,50000 (default 64,1000,10000,50000 + rows > LLC)", 0, 0},
    {"threads", RS_OPT_STR, &opt.threads, "LIST", "thread counts, e.g. 1,2 or all (default 1,all); rows are split across threads", 0, 0},
    {"machine", RS_OPT_STR, &opt.machine, "FILE", "machine.json from `microbench peak`: its FMA peak (default: measured now; the bandwidth is always measured next to each row beyond the LLC)", 0, 0},
    {"list", RS_OPT_FLAG, &opt.list, NULL, "list the variants compiled in and exit", 0, 0},
    RS_COMMON_OPTS(opt.c),
};

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

/* ---- selection ---- */

/* Every name in a --variant / --isa list must exist (a typo is an error, not a no-op). */
static int validate_lists(void)
{
    const char *names[64];
    int n = 0;
    for (int k = 0; k < softmax_nvariants && n < 64; k++)
        names[n++] = softmax_variants[k].variant;
    if (opt.variants && rs_list_check("variant", "variant", opt.variants, names, n) != 0)
        return -1;
    if (opt.isas && rs_list_check("isa", "ISA", opt.isas, rs_isa_names, RS_ISA_COUNT) != 0)
        return -1;
    return 0;
}

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
    CHECK(k > 0, "--%s: empty list (expected e.g. %s)", name,
          strcmp(name, "rows") == 0 ? "1,32,512" : "1000,50000");
    for (int i = 0; i < k; i++) {
        CHECK(rs_parse_size(items[i], &out[i]) == 0 && out[i] > 0,
              "--%s: '%s' is not a positive count (expected e.g. %s)", name, items[i],
              strcmp(name, "rows") == 0 ? "1,32,512" : "1000,50000");
        CHECK(out[i] <= 0x7fffffff, "--%s: '%s' is too large (at most 2147483647)", name, items[i]);
    }
    return k;
}

/* Default grid: rows x cols up to 4M elements (32 MiB moved per call), then rows larger
 * than the LLC: 2x the LLC in floats each (x alone twice the LLC: the second pass cannot
 * find x in cache), one per thread of the largest thread count — rows are never split,
 * so that is the shape on which all threads stream from memory at once (on one core,
 * exp's FMA work per element can take as long as moving its 8 bytes). */
static int make_shapes(shape *sh, int max, int tmax)
{
    static const long def_rows[] = {1, 32, 512}, def_cols[] = {64, 1000, 10000, 50000};
    static const long quick_rows[] = {1, 32}, quick_cols[] = {64, 1000, 10000};
    long rows[MAX_LIST], cols[MAX_LIST];
    int nr, nc, n = 0;
    int user = opt.rows || opt.cols;
    if (opt.rows) {
        if ((nr = parse_counts("rows", opt.rows, rows)) < 0)
            return -1;
    } else {
        nr = opt.c.quick ? 2 : 3;
        memcpy(rows, opt.c.quick ? quick_rows : def_rows, (size_t)nr * sizeof(long));
    }
    if (opt.cols) {
        if ((nc = parse_counts("cols", opt.cols, cols)) < 0)
            return -1;
    } else {
        nc = opt.c.quick ? 3 : 4;
        memcpy(cols, opt.c.quick ? quick_cols : def_cols, (size_t)nc * sizeof(long));
    }
    long mem = sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
    for (int c = 0; c < nc; c++)
        for (int r = 0; r < nr && n < max; r++) {
            double bytes = SOFTMAX_BYTES_PER_ELEM * rows[r] * cols[c];
            if (!user && rows[r] * cols[c] > (4L << 20))
                continue;
            CHECK(bytes <= mem / 2, "--rows/--cols: %ld x %ld needs %.1f GiB (x and y), more than "
                                    "half this machine's %.1f GiB of memory", rows[r], cols[c],
                  bytes / (1 << 30), (double)mem / (1 << 30));
            sh[n++] = (shape){rows[r], cols[c]};
        }
    if (!opt.cols && n < max) {
        long llc_floats = rs_llc_bytes() / 4;
        long big = opt.c.quick ? llc_floats : 2 * llc_floats;
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
    {"variant", RS_STR, 0},           {"isa", RS_STR, 0},               {"threads", RS_INT, 0},
    {"rows", RS_INT, 0},              {"cols", RS_INT, 0},              {"cache", RS_STR, 0},
    {"ns_per_elem", RS_DBL, 4},       {"cycles_per_elem", RS_DBL, 4},   {"ns_per_elem_min", RS_DBL, 4},
    {"cv", RS_DBL, 2},                {"gbytes_per_s", RS_DBL, 4},      {"max_rel_err", RS_DBL, 3},
    {"row_sum_err", RS_DBL, 3},       {"loss_err", RS_DBL, 3},          {"speedup_vs_naive", RS_DBL, 4},
    {"frac_of_bound", RS_DBL, 3},     {"bound", RS_STR, 0},             {"bound_ns_per_elem", RS_DBL, 4},
    {"samples", RS_INT, 0},
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

int cmd_softmax(int argc, char **argv)
{
    int rc = rs_opts_parse(argc, argv, options, RS_ARRAY_LEN(options), usage, NULL, NULL);
    if (rc == 1)
        return RS_EXIT_OK;
    if (rc < 0 || validate_lists() != 0)
        rs_die(RS_EXIT_USAGE);
    if (opt.list) {
        printf("%-8s %-9s %-5s %-4s %s\n", "variant", "isa", "safe", "runs", "algorithm");
        for (int k = 0; k < softmax_nvariants; k++)
            printf("%-8s %-9s %-5s %-4s %s\n", softmax_variants[k].variant,
                   rs_isa_name(softmax_variants[k].isa), softmax_variants[k].overflow_safe ? "yes" : "no",
                   rs_isa_supported(softmax_variants[k].isa) ? "yes" : "no", softmax_variants[k].algo);
        return RS_EXIT_OK;
    }
    int threads[MAX_THREADS], nthr;
    char all[32];
    snprintf(all, sizeof all, "1,%d", rs_ncpus());
    if ((nthr = rs_parse_threads(opt.threads ? opt.threads : all, threads, MAX_THREADS)) < 0)
        rs_die(RS_EXIT_USAGE);
    int tmax = 1;
    for (int i = 0; i < nthr; i++)
        tmax = threads[i] > tmax ? threads[i] : tmax;
    shape shapes[MAX_LIST * MAX_LIST + 1];
    int nshapes = make_shapes(shapes, RS_ARRAY_LEN(shapes), tmax);
    if (nshapes < 0 || rs_common_check_outputs(&opt.c) != 0)
        rs_die(RS_EXIT_USAGE);
    rs_json *machine = NULL;
    if (opt.machine && !(machine = rs_json_load(opt.machine)))
        rs_die(RS_EXIT_USAGE);

    /* Select: by name and ISA; ISAs this CPU lacks are skipped with a note. */
    const softmax_variant *sel[MAX_SEL];
    int nsel = 0;
    for (int k = 0; k < softmax_nvariants && nsel < MAX_SEL; k++) {
        const softmax_variant *v = &softmax_variants[k];
        if (!rs_list_has(opt.variants, v->variant) || !rs_list_has(opt.isas, rs_isa_name(v->isa)))
            continue;
        if (!rs_isa_supported(v->isa)) {
            printf("skipped: %s %s: this CPU lacks %s\n", v->variant, rs_isa_name(v->isa),
                   rs_isa_name(v->isa));
            continue;
        }
        sel[nsel++] = v;
    }
    if (nsel == 0)
        rs_fatal(RS_EXIT_USAGE, "no selected variant runs on this CPU (see --list)");

    /* 1. Correctness first, outside any timed region. */
    printf("checking %d variants on random, huge, masked and NaN inputs (cols 1..3000, every path) ...\n", nsel);
    fflush(stdout);
    int wrong = 0;
    for (int s = 0; s < nsel; s++) {
        softmax_err e;
        char what[400];
        if (!softmax_check_variant(sel[s], &e, what, sizeof what)) {
            wrong = 1;
            fprintf(stderr, "WRONG: %s %s: %s\n", sel[s]->variant, rs_isa_name(sel[s]->isa), what);
        } else {
            char loss[32] = "";
            if (sel[s]->xent)
                snprintf(loss, sizeof loss, ", loss %.3g", e.loss_err);
            printf("  %-7s %-9s ok: max_rel_err %.3g, row sums %.3g%s%s\n", sel[s]->variant,
                   rs_isa_name(sel[s]->isa), e.max_rel_err, e.row_sum_err, loss,
                   sel[s]->overflow_safe ? "" : " (huge inputs skipped: not overflow-safe)");
        }
    }
    if (rs_interrupted())
        rs_die(RS_EXIT_INTR);

    /* 2. Speed. */
    rs_counters_init();
    rs_markers_init();
    rs_bench_cfg cfg = rs_bench_defaults(opt.c.quick);
    rs_table *t = rs_table_new("softmax", columns, RS_ARRAY_LEN(columns));
    rs_table_meta_std(t, argc, argv);
    rs_table_meta(t, "inputs", "uniform [-10, 10], every row with a target");
    rs_table_meta(t, "counters", rs_counters_status());
    char buf[160];
    snprintf(buf, sizeof buf, "%g", SOFTMAX_BOUND_VECOPS);
    rs_table_meta(t, "bound_vecops", buf);
    snprintf(buf, sizeof buf, "%g", SOFTMAX_BYTES_PER_ELEM);
    rs_table_meta(t, "bytes_per_elem", buf);
    snprintf(buf, sizeof buf, "%g", SOFTMAX_MAX_REL_ERR);
    rs_table_meta(t, "max_rel_err_tolerance", buf);
    rs_table_meta(t, "dlogits", "softmax - onehot, not divided by rows");
    rs_table_meta(t, "fma_peak_source", opt.machine ? opt.machine : "measured now (quick)");

    int any_beyond_llc = 0;
    for (int i = 0; i < nshapes; i++)
        any_beyond_llc |= SOFTMAX_BYTES_PER_ELEM * shapes[i].rows * shapes[i].cols > rs_llc_bytes();
    int total = 0, done = 0, skipped = 0;
    for (int ti = 0; ti < nthr; ti++)
        for (int i = 0; i < nshapes; i++)
            total += shapes[i].rows >= threads[ti] ? nsel : 0;
    rs_progress_begin(total);
    const char *stream_source = "not needed (no shape beyond the LLC)";
    for (int ti = 0; ti < nthr; ti++) {
        int T = threads[ti];
        double exp_ns = exp_bound_ns(peak_fma_gflops_for(T, machine));
        if (any_beyond_llc)
            stream_source = "STREAM copy on the row's threads, measured right after each timing "
                            "beyond the LLC (quick)";
        for (int i = 0; i < nshapes; i++) {
            long rows = shapes[i].rows, cols = shapes[i].cols;
            if (rows < T) {
                skipped++;
                continue;
            }
            size_t n = (size_t)rows * cols;
            work w = {.rows = rows, .cols = cols, .nthreads = T};
            w.x = alloc_big(n * sizeof(float));
            w.y = alloc_big(n * sizeof(float));
            w.loss = malloc((size_t)rows * sizeof(float));
            w.targets = malloc((size_t)rows * sizeof(int));
            w.m = malloc((size_t)rows * sizeof(double));
            w.s = malloc((size_t)rows * sizeof(double));
            if (!w.x || !w.y || !w.loss || !w.targets || !w.m || !w.s)
                rs_fatal(RS_EXIT_USAGE, "out of memory for %ld x %ld", rows, cols);
            rs_parallel(T, init_thread, &w);
            int beyond = SOFTMAX_BYTES_PER_ELEM * n > rs_llc_bytes();
            const char *cache = cache_label(rows, cols, T);
            double naive_ns = NAN;
            /* Compare up to ~64k outputs per shape in full; NaN-ness and sums: all. */
            long stride = (long)(n / 65536) + 1;
            /* every variant timed side by side (rounds of one sample each: a noisy
             * spell falls on all, so speedups and xent / fast hold), then each run once
             * more and its output checked; beyond the LLC the bandwidth bound right after */
            snprintf(buf, sizeof buf, "softmax %ldx%ld t=%d (%d variants)", rows, cols, T, nsel);
            rs_progress(done, buf);
            done += nsel;
            work ws[MAX_SEL];
            void *ctxs[MAX_SEL];
            rs_bench_result res[MAX_SEL];
            for (int s = 0; s < nsel; s++) {
                ws[s] = w;
                ws[s].v = sel[s];
                ctxs[s] = &ws[s];
            }
            rs_marker_start(buf);
            if (rs_bench_rounds(&cfg, T, nsel, run_kernel, ctxs, res) != 0)
                rs_die(RS_EXIT_INTR);
            rs_marker_stop(buf);
            double mem_ns = beyond ? mem_bound_ns(copy_gbytes_now(T)) : NAN;
            for (int s = 0; s < nsel; s++) {
                rs_parallel(T, run_once, &ws[s]);
                const rs_bench_result r = res[s];
                softmax_err e;
                softmax_compare(w.x, w.targets, w.y, w.loss, (int)rows, (int)cols, sel[s]->xent != NULL,
                                stride, w.m, w.s, &e);
                if (!softmax_err_ok(&e)) {
                    wrong = 1;
                    fprintf(stderr, "WRONG: %s %s: timed output %ld x %ld (%d threads): max_rel_err %.3g "
                                    "at row %ld col %ld, row sums %.3g, loss %.3g\n",
                            sel[s]->variant, rs_isa_name(sel[s]->isa), rows, cols, T, e.max_rel_err,
                            e.worst_row, e.worst_col, e.row_sum_err, e.loss_err);
                }
                double ns = r.ns.median / (double)n;   /* wall time per element, all threads */
                double bound_ns = exp_ns;
                const char *bound = "exp";
                if (beyond && mem_ns > bound_ns) {   /* the binding one of the two */
                    bound_ns = mem_ns;
                    bound = "memory";
                }
                if (strcmp(sel[s]->variant, "naive") == 0)
                    naive_ns = ns;
                int row = rs_table_row(t);
                rs_set_str(t, row, "variant", sel[s]->variant);
                rs_set_str(t, row, "isa", rs_isa_name(sel[s]->isa));
                rs_set_int(t, row, "threads", T);
                rs_set_int(t, row, "rows", rows);
                rs_set_int(t, row, "cols", cols);
                rs_set_str(t, row, "cache", cache);
                rs_set_dbl(t, row, "ns_per_elem", ns);
                rs_set_dbl(t, row, "cycles_per_elem", ns * rs_tsc_ghz());
                rs_set_dbl(t, row, "ns_per_elem_min", r.ns.min / (double)n);
                rs_set_dbl(t, row, "cv", r.ns.cv);
                rs_set_dbl(t, row, "gbytes_per_s", SOFTMAX_BYTES_PER_ELEM / ns);
                rs_set_dbl(t, row, "max_rel_err", e.max_rel_err);
                rs_set_dbl(t, row, "row_sum_err", e.row_sum_err);
                if (sel[s]->xent)
                    rs_set_dbl(t, row, "loss_err", e.loss_err);
                if (isfinite(naive_ns))
                    rs_set_dbl(t, row, "speedup_vs_naive", naive_ns / ns);
                if (isfinite(bound_ns)) {
                    rs_set_dbl(t, row, "frac_of_bound", bound_ns / ns);
                    rs_set_str(t, row, "bound", bound);
                    rs_set_dbl(t, row, "bound_ns_per_elem", bound_ns);
                }
                rs_set_int(t, row, "samples", r.ns.n);
            }
            free(w.x);
            free(w.y);
            free(w.loss);
            free(w.targets);
            free(w.m);
            free(w.s);
        }
    }
    rs_progress_done();
    rs_markers_close();
    rs_table_meta(t, "stream_source", stream_source);

    rs_table_print(t, stdout, "variant,isa,threads,rows,cols,cache,ns_per_elem,cycles_per_elem,cv,"
                              "gbytes_per_s,max_rel_err,row_sum_err,speedup_vs_naive,frac_of_bound,bound");
    if (skipped)
        printf("skipped %d shape(s) with fewer rows than threads (a row is never split)\n", skipped);
    printf("cycles are TSC cycles at %.3f GHz; bound: exp = %g vector ops per vector at the measured "
           "FMA rate, memory = %g bytes/element at STREAM copy (beyond the LLC, %ld MiB); %s\n",
           rs_tsc_ghz(), SOFTMAX_BOUND_VECOPS, SOFTMAX_BYTES_PER_ELEM, rs_llc_bytes() >> 20,
           rs_counters_status());
    print_targets(t);
    if ((opt.c.csv && rs_table_write_csv(t, opt.c.csv) != 0) ||
        (opt.c.json && rs_table_write_json(t, opt.c.json) != 0))
        rs_die(RS_EXIT_USAGE);
    rs_table_free(t);
    rs_json_free(machine);
    if (wrong)
        fprintf(stderr, "microbench softmax: a correctness check failed (see WRONG lines above)\n");
    return wrong ? RS_EXIT_WRONG : RS_EXIT_OK;
}
