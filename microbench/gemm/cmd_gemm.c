/* cmd_gemm.c — `microbench gemm`: RNN-shaped sgemm across backends (gemm.h), each
 * result checked against the double-precision reference before it is timed, reported
 * as GFLOP/s (2 M N K / median time), fraction of the measured FMA peak, residual and
 * the kernel the library dispatched to, on 1 thread and on all threads.
 *
 * Order of work, and why:
 *   1. options, shapes and backends are validated (bad input: exit 2, one line);
 *   2. the libraries are loaded, after kernels/peak's dispatch probe set its fix
 *      and before anything pins this thread (threads a library creates at load inherit
 *      the creator's CPU mask);
 *   3. the FMA peak per thread count, from --machine or measured now;
 *   4. for each thread count, backend, shape: check (residual), then time.  Backends
 *      outermost within a thread count, so a library's idle pool (OpenBLAS spins
 *      ~0.1 s after a call) is switched once, not before every row.
 * Exit: 0 ok, 1 a result was WRONG, 2 bad usage, 130 interrupted. */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "check.h"
#include "gemm_shapes.h"
#include "gemm_dl.h"
#include "gemm_report.h"
#include "peak.h"
#include "kernel_study.h"

#define MAX_SHAPES 128
#define MAX_BACKENDS 16
/* naive is the oracle, not a contender: it is timed only up to this many flops per
 * call (~0.1 s at its ~1-2 GFLOP/s), enough to show the gap on small shapes. */
#define NAIVE_MAX_FLOPS (1L << 27)
/* DeepBench's alpha = beta = 1: C is read and written, as in gradient accumulation. */
#define GEMM_ALPHA 1.0f
#define GEMM_BETA 1.0f

static const char usage[] =
    "usage: microbench gemm [options]\n"
    "Times C = A B + C (column-major sgemm, alpha = beta = 1) on DeepBench's RNN shapes,\n"
    "2048^3, inference shapes and this project's LSTM model GEMMs, for every BLAS backend,\n"
    "after checking each against a double-precision reference.  Reports GFLOP/s, the\n"
    "fraction of the measured FMA peak, the residual and the kernel each library dispatched\n"
    "to (OpenBLAS/BLIS corrected where they pick below the CPU; X:default = uncorrected).";

/* ---- options (the shared ones are the runner's: kernel_study.h) ---- */
static struct {
    const char *backends;  /* --backend LIST (default: every available one) */
    const char *shapes;    /* --shape LIST: model GEMM names or MxNxK[:tAtB] */
    const char *sets;      /* --set LIST: deepbench,square,inference,models,all */
    long seed;             /* --seed: inputs and sampled check positions */
} opt = {.seed = 1};

static const rs_opt options[] = {
    {"backend", RS_OPT_STR, &opt.backends, "LIST", "backends: naive,blocked,openblas,openblas:default,blis,blis:default,libxsmm,onednn (default: all available; a :default copy only where its dispatch was fixed)", 0, 0},
    {"shape", RS_OPT_STR, &opt.shapes, "LIST", "shapes: MxNxK[:tAtB] (e.g. 1760x64x1760:TN) or a model GEMM's name (lstm_input; see --list)", 0, 0},
    {"set", RS_OPT_STR, &opt.sets, "LIST", "shape sets: deepbench,square,inference,models,all (default all; --quick a few of each)", 0, 0},
};
static const rs_opt late_options[] = {
    {"seed", RS_OPT_INT, &opt.seed, "N", "seed of the inputs and of the sampled check (default 1)", 0, 1e15},
};

static const rs_col columns[] = {
    {"backend", RS_STR, 0}, {"set", RS_STR, 0}, {"shape", RS_STR, 0}, {"m", RS_INT, 0},
    {"n", RS_INT, 0}, {"k", RS_INT, 0}, {"trans", RS_STR, 0}, {"threads", RS_INT, 0},
    {"gflops", RS_DBL, 4}, {"gflops_max", RS_DBL, 4}, {"time_us", RS_DBL, 4}, {"time_us_min", RS_DBL, 4},
    {"cv", RS_DBL, 2}, {"frac_of_peak", RS_DBL, 3}, {"peak_gflops", RS_DBL, 4}, {"residual", RS_DBL, 3},
    {"check", RS_STR, 0}, {"dispatch", RS_STR, 0}, {"gain_vs_default", RS_DBL, 3}, {"samples", RS_INT, 0},
};

/* ---- selection ---- */
static int split(const char *list, char *buf, size_t len, char **items, int max)
{
    snprintf(buf, len, "%s", list);
    return rs_split_list(buf, items, max);
}

/* Bytes a shape needs: A, B, C0 and C in float, plus a full reference in double. */
static double shape_bytes(const gemm_shape *s)
{
    double m = (double)s->m, n = (double)s->n, k = (double)s->k;
    int full = m * n * k <= (double)GEMM_FULL_CHECK_MACS;
    return 4 * (m * k + k * n + 2 * m * n) + (full ? 8 * m * n : 0);
}

static int select_shapes(gemm_shape *out, int quick)
{
    int n = 0;
    char buf[2048], *items[MAX_SHAPES];
    if (opt.sets) {
        int k = split(opt.sets, buf, sizeof buf, items, MAX_SHAPES);
        RS_CHECK(k > 0, "--set: empty list (expected e.g. deepbench,models)");
        for (int i = 0; i < k; i++)
            RS_CHECK(gemm_is_set(items[i]), "--set: unknown set '%s' (expected deepbench, square, "
                                         "inference, models or all)", items[i]);
    }
    /* With neither --set nor --shape: every set (a few shapes of each with --quick). */
    const char *sets = opt.sets ? opt.sets : opt.shapes ? NULL : "all";
    for (int i = 0; sets && i < gemm_nshapes && n < MAX_SHAPES; i++)
        if (rs_list_has(sets, gemm_shapes[i].set) && (opt.sets || !quick || gemm_shapes[i].quick))
            out[n++] = gemm_shapes[i];
    if (opt.shapes) {
        int k = split(opt.shapes, buf, sizeof buf, items, MAX_SHAPES);
        RS_CHECK(k > 0, "--shape: empty list (expected e.g. 1760x64x1760:TN,lstm_input)");
        for (int i = 0; i < k && n < MAX_SHAPES; i++)
            if (gemm_parse_shape(items[i], &out[n++]) != 0)
                return -1;
    }
    double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < n; i++)
        RS_CHECK(shape_bytes(&out[i]) <= mem / 2, "--shape: %ldx%ldx%ld needs %.1f GiB, more than half "
              "this machine's %.1f GiB of memory", out[i].m, out[i].n, out[i].k,
              shape_bytes(&out[i]) / (1 << 30), mem / (1 << 30));
    return n;
}

/* Backends by name (a typo is an error), then loaded; unavailable ones are noted. */
static int select_backends(const void **sel)
{
    if (opt.backends && rs_registry_check_list(&gemm_registry, "backend", "backend", opt.backends) != 0)
        return -1;
    int n = 0;
    for (int i = 0; i < gemm_nbackends && n < MAX_BACKENDS; i++) {
        const gemm_backend *b = gemm_backends[i];
        if (opt.backends ? !rs_list_has(opt.backends, b->name) : 0)
            continue;
        if (b->pair && !opt.backends) {
            /* An uncorrected copy is only worth timing where the correction changed
             * something; --backend NAME:default runs it anyway. */
            const peak_blas *pb = gemm_blas_probe(b->pair);
            if (pb && !pb->fix_applied) {
                printf("not run: %s: %s picks %s by itself on this CPU (no fix needed; "
                       "--backend %s runs it anyway)\n", b->name, b->pair, pb->detected, b->name);
                continue;
            }
        }
        if (b->load(b) != 0) {
            printf("skipped: %s: %s\n", b->name, rs_lasterr());
            continue;
        }
        sel[n++] = b;
    }
    return n;
}

static void print_list(const rs_study_run *r)
{
    printf("%-17s %-44s %s\n", "backend", "dispatch (or why unavailable)", "what");
    for (int i = 0; i < gemm_nbackends; i++) {
        const gemm_backend *b = gemm_backends[i];
        int ok = b->load(b) == 0;
        printf("%-17s %-44s %s\n", b->name, ok ? b->dispatch(b) : rs_lasterr(), b->what);
    }
    printf("\nnamed shapes (LSTM: H=%d E=%d B=%d T=%d V=%d; M x N x K, column-major):\n",
           GEMM_MODEL_H, GEMM_MODEL_E, GEMM_MODEL_B, GEMM_MODEL_T, GEMM_MODEL_V);
    for (int i = 0; i < gemm_nshapes; i++)
        if (gemm_shapes[i].name[0])
        {
            char dims[64];
            snprintf(dims, sizeof dims, "%ldx%ldx%ld:%s", gemm_shapes[i].m, gemm_shapes[i].n,
                     gemm_shapes[i].k, gemm_trans_str(gemm_shapes[i].ta, gemm_shapes[i].tb));
            printf("  %-18s %-18s %s\n", gemm_shapes[i].name, dims, gemm_shapes[i].why);
        }
    printf("sets: deepbench (M=K in 1760,2048,2560; N in 16,32,64,128; NN,TN), square (2048^3),\n"
           "      inference (N in 1,2,4), models (the above)\n");
}


/* ---- the timed kernel ---- */
static cpu_set_t start_mask;   /* this process's CPUs before anything pinned it */

typedef struct {
    const gemm_backend *b;
    const gemm_problem *p;
    float *c;
    int threads, unpinned;
} work;

/* rs_bench pins a single-thread caller to CPU 0; a library running threads of its own
 * from this caller needs the other CPUs back — also before its first parallel call,
 * since threads it creates then inherit this thread's mask. */
static void unpin(void) { sched_setaffinity(0, sizeof start_mask, &start_mask); }

static void run_kernel(void *ctx, int tid, long reps)
{
    work *w = ctx;
    if (w->threads > 1 && !w->unpinned) {
        unpin();
        w->unpinned = 1;
    }
    const gemm_problem *p = w->p;
    for (long r = 0; r < reps; r++)
        w->b->sgemm(w->b, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b, p->ldb,
                    p->beta, w->c, p->ldc);
}

/* ---- one shape's data: inputs regenerated per use, the reference kept ---- */
typedef struct {
    gemm_shape s;
    gemm_problem p;
    float *a, *b, *c0, *c;
    gemm_ref ref;
    int have_ref;
} shape_data;

static int shape_alloc(shape_data *d, uint64_t seed)
{
    gemm_problem *p = &d->p;
    *p = (gemm_problem){d->s.ta, d->s.tb, d->s.m, d->s.n, d->s.k, GEMM_ALPHA, GEMM_BETA,
                        NULL, NULL, NULL, d->s.ta == 'N' ? d->s.m : d->s.k,
                        d->s.tb == 'N' ? d->s.k : d->s.n, d->s.m};
    long na = gemm_size_a(p), nb = gemm_size_b(p), nc = gemm_size_c(p);
    d->a = malloc(sizeof(float) * (size_t)na);
    d->b = malloc(sizeof(float) * (size_t)nb);
    d->c0 = malloc(sizeof(float) * (size_t)nc);
    d->c = malloc(sizeof(float) * (size_t)nc);
    RS_CHECK(d->a && d->b && d->c0 && d->c, "out of memory for %ldx%ldx%ld", p->m, p->n, p->k);
    gemm_fill(d->a, na, seed, 0);
    gemm_fill(d->b, nb, seed, 1);
    gemm_fill(d->c0, nc, seed, 2);
    p->a = d->a;
    p->b = d->b;
    p->c0 = d->c0;
    if (!d->have_ref) {
        if (gemm_ref_build(p, seed, rs_ncpus(), &d->ref) != 0)
            return -1;
        d->have_ref = 1;
    }
    return 0;
}

static void shape_release(shape_data *d)
{
    free(d->a);
    free(d->b);
    free(d->c0);
    free(d->c);
    d->a = d->b = d->c0 = d->c = NULL;
}

/* ---- one row: check, then time ---- */
enum { ROW_OK, ROW_WRONG, ROW_NAIVE_SKIPPED, ROW_UNSUPPORTED, ROW_SKIPPED };

static void add_row(rs_table *t, const gemm_backend *b, const shape_data *d, int T, double peak,
                    const rs_bench_result *r, double res)
{
    const gemm_problem *p = &d->p;
    double flops = 2.0 * (double)d->s.m * (double)d->s.n * (double)d->s.k;
    int row = rs_table_row(t);
    rs_set_str(t, row, "backend", b->name);
    rs_set_str(t, row, "set", d->s.set);
    if (d->s.name[0])
        rs_set_str(t, row, "shape", d->s.name);
    rs_set_int(t, row, "m", p->m);
    rs_set_int(t, row, "n", p->n);
    rs_set_int(t, row, "k", p->k);
    rs_set_str(t, row, "trans", gemm_trans_str(p->ta, p->tb));
    rs_set_int(t, row, "threads", T);
    rs_set_dbl(t, row, "gflops", flops / r->ns.median);
    rs_set_dbl(t, row, "gflops_max", flops / r->ns.min);
    rs_set_dbl(t, row, "time_us", r->ns.median * 1e-3);
    rs_set_dbl(t, row, "time_us_min", r->ns.min * 1e-3);
    rs_set_dbl(t, row, "cv", r->ns.cv);
    if (peak > 0) {
        rs_set_dbl(t, row, "frac_of_peak", flops / r->ns.median / peak);
        rs_set_dbl(t, row, "peak_gflops", peak);
    }
    rs_set_dbl(t, row, "residual", res);
    char buf[32];
    snprintf(buf, sizeof buf, d->ref.full ? "full" : "sampled %ld", d->ref.nent);
    rs_set_str(t, row, "check", buf);
    rs_set_str(t, row, "dispatch", b->dispatch(b));
    rs_set_int(t, row, "samples", r->ns.n);
}

/* One backend on one shape: *status is a ROW_*; returns 0 or an exit code. */
static int run_row(rs_study_run *r, const gemm_backend *b, shape_data *d, int T, double peak,
                   int *status)
{
    const gemm_problem *p = &d->p;
    double flops = 2.0 * (double)d->s.m * (double)d->s.n * (double)d->s.k;
    *status = b == &gemm_backend_naive && flops > (double)NAIVE_MAX_FLOPS ? ROW_NAIVE_SKIPPED
              : b->trans_unsupported & gemm_trans_bit(d->s.ta, d->s.tb) ? ROW_UNSUPPORTED
                                                                        : ROW_OK;
    if (*status != ROW_OK)
        return 0;
    if (shape_alloc(d, (uint64_t)opt.seed) != 0)
        return RS_EXIT_USAGE;
    /* 1. Correctness, outside the timed region. */
    if (T > 1)
        unpin();
    memcpy(d->c, d->c0, sizeof(float) * (size_t)gemm_size_c(p));
    if (b->sgemm(b, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b, p->ldb, p->beta,
                 d->c, p->ldc) != 0) {
        printf("skipped: %s on %ldx%ldx%ld:%s: %s\n", b->name, p->m, p->n, p->k,
               gemm_trans_str(p->ta, p->tb), rs_lasterr());
        shape_release(d);
        *status = ROW_SKIPPED;
        return 0;
    }
    double res = gemm_residual(p, &d->ref, d->c);
    if (!(res <= GEMM_RESIDUAL_MAX)) {
        *status = ROW_WRONG;
        fprintf(stderr, "WRONG: %s %ldx%ldx%ld:%s %d threads: residual %.3g > %g\n", b->name, p->m,
                p->n, p->k, gemm_trans_str(p->ta, p->tb), T, res, GEMM_RESIDUAL_MAX);
    }
    /* 2. Speed. */
    work w = {.b = b, .p = p, .c = d->c, .threads = T};
    rs_bench_result rb;
    int rc = rs_study_bench(r, 1, run_kernel, &w, &rb);
    if (rc != 0)
        return rc;
    add_row(r->table, b, d, T, peak, &rb, res);
    shape_release(d);
    return 0;
}

/* ---- the study: what the runner (kernel_study.h) calls ---- */
static struct {
    shape_data data[MAX_SHAPES];
    int nshapes;
    double peak[RS_STUDY_MAX_THREADS];   /* FMA peak per thread count */
    int naive_skipped, unsupported[MAX_BACKENDS];
} st;

static int prepare(rs_study_run *r)
{
    sched_getaffinity(0, sizeof start_mask, &start_mask);
    static gemm_shape shapes[MAX_SHAPES];
    st.nshapes = select_shapes(shapes, r->c.quick);
    for (int s = 0; s < st.nshapes; s++)
        st.data[s].s = shapes[s];
    return st.nshapes;
}

/* Backends outermost within a thread count: items are (backend, shape) pairs. */
static int select_all(rs_study_run *r)
{
    if ((r->nsel = select_backends(r->sel)) < 0)
        return RS_EXIT_USAGE;
    if (r->nsel == 0) {
        rs_seterr("no selected backend is available here (see --list)");
        return RS_EXIT_USAGE;
    }
    r->nitems = r->nsel * st.nshapes;
    return 0;
}

static int measure_peaks(rs_study_run *r)
{
    for (int ti = 0; ti < r->nthreads; ti++)
        st.peak[ti] = peak_fma_gflops_for(r->threads[ti], r->machine);
    return 0;
}

static void begin(rs_study_run *r)
{
    /* A 2048^3 call takes 0.1-0.3 s here: at most ~1.5 s per row keeps the default
     * campaign to minutes on 2 cores (>= 5 samples even then; the min is the peak). */
    r->cfg.max_time_s = r->c.quick ? 0.5 : 1.5;
    char buf[256];
    snprintf(buf, sizeof buf, "column-major, alpha = %g, beta = %g, flops = 2 m n k", GEMM_ALPHA, GEMM_BETA);
    rs_table_meta(r->table, "gemm", buf);
    snprintf(buf, sizeof buf, "%ld", opt.seed);
    rs_table_meta(r->table, "seed", buf);
    snprintf(buf, sizeof buf, "residual <= %g; every entry up to m n k = %ld, else 4 corners + %d "
             "sampled entries (dot products in double)", GEMM_RESIDUAL_MAX, GEMM_FULL_CHECK_MACS, GEMM_CHECK_SAMPLES);
    rs_table_meta(r->table, "check", buf);
    rs_study_meta_peak_source(r);
}

static int one_step(const rs_study_run *r, int ti, int item) { return 1; }

static int time_pair(rs_study_run *r, int ti, int item)
{
    int T = r->threads[ti], bi = item / st.nshapes, status;
    const gemm_backend *b = r->sel[bi];
    shape_data *d = &st.data[item % st.nshapes];
    if (item % st.nshapes == 0)
        b->set_threads(b, T);
    rs_study_progress(r, 1, "gemm %s %ldx%ldx%ld:%s t=%d", b->name, d->s.m, d->s.n, d->s.k,
                      gemm_trans_str(d->s.ta, d->s.tb), T);
    int rc = run_row(r, b, d, T, st.peak[ti], &status);
    st.naive_skipped += status == ROW_NAIVE_SKIPPED;
    st.unsupported[bi] += status == ROW_UNSUPPORTED;
    r->wrong |= status == ROW_WRONG;
    return rc;
}

static void finish(rs_study_run *r) { gemm_report_gains(r->table); }

static void notes(rs_study_run *r)
{
    if (st.naive_skipped)
        printf("naive (the oracle) timed only up to %.2g GFLOP per call: %d rows left out\n",
               NAIVE_MAX_FLOPS * 1e-9, st.naive_skipped);
    for (int bi = 0; bi < r->nsel; bi++)
        if (st.unsupported[bi])
            printf("%s: %d rows left out: transposes it does not support (--list)\n",
                   ((const gemm_backend *)r->sel[bi])->name, st.unsupported[bi]);
    printf("gflops = 2 m n k / median time; frac_of_peak against the %s FMA peak (%s); "
           "residual in units of eps K max|A| max|B|\n",
           rs_isa_name(rs_isa_best()), r->machine_path ? r->machine_path : "measured now");
    gemm_report_dispatch(r->table);
    gemm_report_target(r->table, "2048^3", "square", 2048, 0.85);
    gemm_report_target(r->table, "DeepBench N=64", "deepbench", 64, 0.70);
}

static void cleanup(rs_study_run *r)
{
    for (int s = 0; s < st.nshapes; s++)
        gemm_ref_free(&st.data[s].ref);
}

static const rs_study gemm_study = {
    .name = "gemm", .usage = usage,
    .opts = options, .nopts = RS_ARRAY_LEN(options),
    .late_opts = late_options, .nlate_opts = RS_ARRAY_LEN(late_options),
    .list_help = "list the backends (available or why not) and the named shapes, and exit",
    .columns = columns, .ncols = RS_ARRAY_LEN(columns),
    .console_columns = "backend,set,shape,m,n,k,trans,threads,gflops,frac_of_peak,residual,"
                       "dispatch,gain_vs_default",
    .print_list = print_list, .prepare = prepare, .no_inputs = "no shape selected (see --list)",
    .select = select_all, .before = measure_peaks, .begin = begin, .steps = one_step,
    .time_item = time_pair, .finish = finish, .notes = notes, .cleanup = cleanup,
};

int cmd_gemm(int argc, char **argv) { return rs_study_main(&gemm_study, argc, argv); }
