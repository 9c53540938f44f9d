/* cmd_exp.c — `microbench exp`: every expf variant is checked against the double
 * reference (special values and a dense sample, or every float with --exhaustive),
 * then timed on working sets in L1, in L2 and beyond the LLC, on 1 and all threads.
 * Each speed is also shown as a speedup over the scalar libm loop (the Sunway TaihuLight study's
 * "before") and as a fraction of the FMA-port bound (exp.h: EXP_BOUND_VECOPS). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "check.h"
#include "counters.h"
#include "exp.h"
#include "exp_accuracy.h"
#include "fsio.h"
#include "peak.h"
#include "kernel_study.h"
#include "timer.h"

#define MAX_SIZES 16

static const char usage[] =
    "usage: microbench exp [options]\n"
    "Checks every expf variant against exp() in double precision (max and RMS ULP error,\n"
    "special values), then times it: ns/element, TSC cycles/element, speedup over the\n"
    "scalar libm loop and fraction of the FMA-port bound.";

/* ---- options (the shared ones are the runner's: kernel_study.h) ---- */
static struct {
    const char *sizes;     /* --n LIST of element counts (default: L1, L2, beyond LLC) */
    int exhaustive;        /* --exhaustive: check every float in [-104, 89] */
} opt;

static const rs_opt options[] = {
    {"n", RS_OPT_STR, &opt.sizes, "LIST", "elements per thread, e.g. 4096,64k,16M (default: fits L1, fits L2, 4x LLC)", 0, 0},
};
static const rs_opt late_options[] = {
    {"exhaustive", RS_OPT_FLAG, &opt.exhaustive, NULL, "check accuracy on every float in [-104, 89] (minutes)", 0, 0},
};

/* ---- deterministic inputs: a pure function of (thread, index) ---- */
static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Timing inputs are uniform in [-80, 80]: finite results, no special-value lanes, so
 * every variant runs its fast path (softmax feeds exp values <= 0 of this size). */
static float input_at(int tid, long i)
{
    uint64_t h = mix64(((uint64_t)tid << 40) ^ (uint64_t)i);
    return (float)(-80.0 + 160.0 * (double)(h >> 11) * 0x1p-53);
}

/* ---- the timed kernel: each thread transforms its own arrays ---- */
typedef struct {
    const exp_variant *v;
    float *x[RS_STUDY_MAX_THREADS], *y[RS_STUDY_MAX_THREADS];
    long n;
} work;

static void init_thread(void *ctx, int tid)
{
    work *w = ctx;
    for (long i = 0; i < w->n; i++) {
        w->x[tid][i] = input_at(tid, i);
        w->y[tid][i] = 0;
    }
}

static void run_kernel(void *ctx, int tid, long reps)
{
    work *w = ctx;
    for (long r = 0; r < reps; r++)
        w->v->run(w->x[tid], w->y[tid], (size_t)w->n);
}

/* After timing, the output of the timed run is checked too (up to 64k elements of
 * every thread): a kernel that is right on the sample but wrong here is caught. */
static double timed_output_ulp(const work *w, int nthreads)
{
    double worst = 0;
    for (int t = 0; t < nthreads; t++)
        for (long i = 0; i < w->n && i < 65536; i++) {
            float x = w->x[t][i];
            if (x < w->v->domain_lo || x > w->v->domain_hi)
                continue;
            double e = exp_ulp_error(w->y[t][i], exp((double)x));
            if (!(e <= worst))
                worst = e;
        }
    return worst;
}

/* ---- sizes: per thread, so each core's own cache is what is measured ---- */
static long pow2_floor(long v)
{
    long p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

static int default_sizes(long *n, const char **label)
{
    rs_machine m;
    rs_machine_probe(&m);
    long l1 = m.l1d_bytes > 0 ? m.l1d_bytes : 32 << 10;
    long l2 = m.l2_bytes > 0 ? m.l2_bytes : 1 << 20;
    /* x and y fill at most 3/4 of the cache; beyond LLC: x and y together >= 4x LLC. */
    n[0] = pow2_floor(l1 * 3 / 4 / 8);
    n[1] = pow2_floor(l2 * 3 / 4 / 8);
    n[2] = ((rs_llc_bytes() / 2 + (1 << 20) - 1) >> 20) << 20;
    label[0] = "L1";
    label[1] = "L2";
    label[2] = "DRAM";
    return 3;
}

static const char *cache_label(long n)
{
    rs_machine m;
    rs_machine_probe(&m);
    long bytes = 8 * n;
    if (m.l1d_bytes > 0 && bytes <= m.l1d_bytes)
        return "L1";
    if (m.l2_bytes > 0 && bytes <= m.l2_bytes)
        return "L2";
    if (bytes <= rs_llc_bytes())
        return "L3";
    return "DRAM";
}

/* ---- the FMA-port bound per thread count (cycles/element, all threads together) ----
 * bound = EXP_BOUND_VECOPS vector ops per `lanes` elements at the measured vector-FMA
 * rate F = gflops / (2 * lanes * tsc_ghz) per cycle; the lanes cancel:
 *   bound_cycles_per_elem = EXP_BOUND_VECOPS * 2 * tsc_ghz / gflops. */
static double bound_cycles_per_elem(double gflops)
{
    return gflops > 0 ? EXP_BOUND_VECOPS * 2 * rs_tsc_ghz() / gflops : NAN;
}

static int parse_sizes(long *n, const char **label)
{
    if (!opt.sizes)
        return default_sizes(n, label);
    char buf[512], *items[MAX_SIZES];
    snprintf(buf, sizeof buf, "%s", opt.sizes);
    int k = rs_split_list(buf, items, MAX_SIZES);
    RS_CHECK(k > 0, "--n: empty list (expected e.g. 4096,64k)");
    long mem = sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
    for (int i = 0; i < k; i++) {
        RS_CHECK(rs_parse_size(items[i], &n[i]) == 0 && n[i] > 0,
              "--n: '%s' is not a positive element count (expected e.g. 4096, 64k, 16M)", items[i]);
        RS_CHECK(n[i] <= mem / 16, "--n: %s elements need %.1f GiB per thread, more than half this "
                                "machine's %.1f GiB of memory", items[i], 8.0 * n[i] / (1 << 30),
              (double)mem / (1 << 30));
        label[i] = cache_label(n[i]);
    }
    return k;
}

static const rs_col columns[] = {
    {"variant", RS_STR, 0}, {"isa", RS_STR, 0}, {"impl", RS_STR, 0}, {"threads", RS_INT, 0},
    {"n", RS_INT, 0}, {"cache", RS_STR, 0}, RS_STUDY_PER_ELEM_COLUMNS,
    {"max_ulp", RS_DBL, 3}, {"rms_ulp", RS_DBL, 3}, {"ulp_bound", RS_DBL, 3}, {"specials", RS_STR, 0},
    {"speedup_vs_libm", RS_DBL, 3}, {"frac_of_bound", RS_DBL, 3}, {"bound_cycles_per_elem", RS_DBL, 3},
    {"samples", RS_INT, 0},
};

/* ---- the study: what the runner (kernel_study.h) calls ---- */
static struct {
    long sizes[MAX_SIZES];
    const char *labels[MAX_SIZES];
    exp_acc acc[RS_STUDY_MAX_SEL];
    double bound;   /* the FMA-port bound of the current thread count */
} st;

static const exp_variant *selected(const rs_study_run *r, int s) { return r->sel[s]; }

static const char *detail(const void *row) { return ((const exp_variant *)row)->impl; }

static void print_list(const rs_study_run *r)
{
    printf("%-12s %-9s %-24s %9s %s\n", "variant", "isa", "impl", "ulp_bound", "runs here");
    for (int k = 0; k < exp_nvariants; k++)
        printf("%-12s %-9s %-24s %9.3g %s\n", exp_variants[k].variant,
               rs_isa_name(exp_variants[k].isa), exp_variants[k].impl, exp_variants[k].ulp_bound,
               rs_isa_supported(exp_variants[k].isa) ? "yes" : "no (CPU lacks the ISA)");
}

static int prepare(rs_study_run *r) { return parse_sizes(st.sizes, st.labels); }

/* Correctness first, outside any timed region. */
static int check_variants(rs_study_run *r)
{
    const exp_variant *v[RS_STUDY_MAX_SEL];
    for (int s = 0; s < r->nsel; s++)
        v[s] = selected(r, s);
    printf("checking %d variants on %s inputs ...\n", r->nsel,
           opt.exhaustive ? "every float in [-104, 89] and the special" : "the special and a dense sample of");
    fflush(stdout);
    if (exp_accuracy(v, r->nsel, opt.exhaustive ? EXP_EXHAUSTIVE : EXP_SAMPLE, rs_ncpus(), 1, st.acc) != 0)
        return rs_interrupt_code();
    for (int s = 0; s < r->nsel; s++) {
        const exp_acc *a = &st.acc[s];
        if (!(a->max_ulp <= v[s]->ulp_bound) || (v[s]->specials && !a->specials_ok)) {
            r->wrong = 1;
            fprintf(stderr, "WRONG: %s %s: max %.3g ULP at x=%.9g (got %.9g), declared bound %.3g%s%s\n",
                    v[s]->variant, rs_isa_name(v[s]->isa), a->max_ulp, (double)a->worst_x,
                    (double)a->worst_y, v[s]->ulp_bound, a->specials_ok ? "" : "; ",
                    a->specials_ok ? "" : a->specials_msg);
        }
    }
    return 0;
}

static void begin(rs_study_run *r)
{
    rs_table_meta(r->table, "inputs", opt.exhaustive ? "exhaustive" : "sample");
    rs_table_meta(r->table, "counters", rs_counters_status());
    rs_study_meta_peak_source(r);
    char buf[64];
    snprintf(buf, sizeof buf, "%g", EXP_BOUND_VECOPS);
    rs_table_meta(r->table, "bound_vecops", buf);
}

static int thread_count(rs_study_run *r, int ti)
{
    st.bound = bound_cycles_per_elem(peak_fma_gflops_for(r->threads[ti], r->machine));
    return 0;
}

static void add_row(rs_table *t, int s, const work *w, int T, const char *cache,
                    const rs_bench_result *res, double libm_ns)
{
    double ns = res->ns.median / ((double)w->n * T);
    int row = rs_table_row(t);
    rs_set_str(t, row, "variant", w->v->variant);
    rs_set_str(t, row, "isa", rs_isa_name(w->v->isa));
    rs_set_str(t, row, "impl", w->v->impl);
    rs_set_int(t, row, "threads", T);
    rs_set_int(t, row, "n", w->n);
    rs_set_str(t, row, "cache", cache);
    rs_study_set_per_elem(t, row, res, (double)w->n * T);
    rs_set_dbl(t, row, "max_ulp", st.acc[s].max_ulp);
    rs_set_dbl(t, row, "rms_ulp", st.acc[s].rms_ulp);
    rs_set_dbl(t, row, "ulp_bound", w->v->ulp_bound);
    rs_set_str(t, row, "specials", !w->v->specials ? "n/a" : st.acc[s].specials_ok ? "ok" : "WRONG");
    if (isfinite(libm_ns))
        rs_set_dbl(t, row, "speedup_vs_libm", libm_ns / ns);
    if (isfinite(st.bound)) {
        rs_set_dbl(t, row, "frac_of_bound", st.bound / (ns * rs_tsc_ghz()));
        rs_set_dbl(t, row, "bound_cycles_per_elem", st.bound);
    }
    rs_set_int(t, row, "samples", res->ns.n);
}

/* Every selected variant on one size: each thread its own x and y. */
static int time_size(rs_study_run *r, int ti, int si)
{
    int T = r->threads[ti], rc = 0;
    work w = {.n = st.sizes[si]};
    int ok = 1;
    for (int k = 0; k < T && ok; k++) {
        w.x[k] = aligned_alloc(64, (size_t)((w.n * 4 + 63) / 64 * 64));
        w.y[k] = aligned_alloc(64, (size_t)((w.n * 4 + 63) / 64 * 64));
        ok = w.x[k] && w.y[k];
    }
    if (!ok) {
        rs_seterr("out of memory for %ld elements x %d threads", w.n, T);
        return RS_EXIT_USAGE;
    }
    rs_parallel(T, init_thread, &w);
    double libm_ns = NAN;
    for (int s = 0; s < r->nsel && rc == 0; s++) {
        w.v = selected(r, s);
        rs_study_progress(r, 1, "exp %s %s n=%ld t=%d", w.v->variant, rs_isa_name(w.v->isa), w.n, T);
        rs_bench_result res;
        if ((rc = rs_study_bench(r, T, run_kernel, &w, &res)) != 0)
            break;
        double out_ulp = timed_output_ulp(&w, T);
        if (!(out_ulp <= w.v->ulp_bound)) {
            r->wrong = 1;
            fprintf(stderr, "WRONG: %s %s: timed output off by %.3g ULP (n=%ld, %d threads)\n",
                    w.v->variant, rs_isa_name(w.v->isa), out_ulp, w.n, T);
        }
        if (strcmp(w.v->variant, "libm") == 0)
            libm_ns = res.ns.median / ((double)w.n * T);
        add_row(r->table, s, &w, T, st.labels[si], &res, libm_ns);
    }
    for (int k = 0; k < T; k++) {
        free(w.x[k]);
        free(w.y[k]);
    }
    return rc;
}

static void notes(rs_study_run *r)
{
    printf("cycles are TSC cycles at %.3f GHz; bound = %g vector ops per vector at the measured "
           "FMA rate; %s\n", rs_tsc_ghz(), EXP_BOUND_VECOPS, rs_counters_status());
}

static const rs_study exp_study = {
    .name = "exp", .usage = usage, .counters = 1,
    .registry = &exp_registry, .detail = detail,
    .variant_help = "variants to run: libm,libmvec,sleef,poly,table,schraudolph (default all)",
    .opts = options, .nopts = RS_ARRAY_LEN(options),
    .late_opts = late_options, .nlate_opts = RS_ARRAY_LEN(late_options),
    .columns = columns, .ncols = RS_ARRAY_LEN(columns),
    .console_columns = "variant,isa,threads,n,cache,ns_per_elem,cycles_per_elem,cv,max_ulp,"
                       "rms_ulp,specials,speedup_vs_libm,frac_of_bound",
    .print_list = print_list, .prepare = prepare, .before = check_variants, .begin = begin,
    .thread_count = thread_count, .time_item = time_size, .notes = notes,
};

int cmd_exp(int argc, char **argv) { return rs_study_main(&exp_study, argc, argv); }
