/* cmd_exp.c — `microbench exp`: every expf variant is checked against the double
 * reference (special values and a dense sample, or every float with --exhaustive),
 * then timed on working sets in L1, in L2 and beyond the LLC, on 1 and all threads.
 * Each speed is also shown as a speedup over the scalar libm loop (the seed's
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
#include "json.h"
#include "meta.h"
#include "opts.h"
#include "peak.h"
#include "progress.h"
#include "record.h"
#include "timer.h"

#define MAX_SIZES 16
#define MAX_THREADS 16

/* ---- options ---- */
static struct {
    rs_common_opts c;
    const char *variants;  /* --variant LIST (default all) */
    const char *isas;      /* --isa LIST (default all supported) */
    const char *sizes;     /* --n LIST of element counts (default: L1, L2, beyond LLC) */
    const char *threads;   /* --threads LIST (default 1,all) */
    const char *machine;   /* --machine FILE: machine.json with the measured FMA peak */
    int exhaustive;        /* --exhaustive: check every float in [-104, 89] */
    int list;              /* --list: print the registry and exit */
} opt;

static const rs_opt options[] = {
    {"variant", RS_OPT_STR, &opt.variants, "LIST", "variants to run: libm,libmvec,sleef,poly,table,schraudolph (default all)", 0, 0},
    {"isa", RS_OPT_STR, &opt.isas, "LIST", "ISAs to run: avx512,avx2,portable (default all this CPU has)", 0, 0},
    {"n", RS_OPT_STR, &opt.sizes, "LIST", "elements per thread, e.g. 4096,64k,16M (default: fits L1, fits L2, 4x LLC)", 0, 0},
    {"threads", RS_OPT_STR, &opt.threads, "LIST", "thread counts, e.g. 1,2 or all (default 1,all)", 0, 0},
    {"machine", RS_OPT_STR, &opt.machine, "FILE", "machine.json from `microbench peak` (default: measure the FMA peak now)", 0, 0},
    {"exhaustive", RS_OPT_FLAG, &opt.exhaustive, NULL, "check accuracy on every float in [-104, 89] (minutes)", 0, 0},
    {"list", RS_OPT_FLAG, &opt.list, NULL, "list the variants compiled in and exit", 0, 0},
    RS_COMMON_OPTS(opt.c),
};

static const char usage[] =
    "usage: microbench exp [options]\n"
    "Checks every expf variant against exp() in double precision (max and RMS ULP error,\n"
    "special values), then times it: ns/element, TSC cycles/element, speedup over the\n"
    "scalar libm loop and fraction of the FMA-port bound.";

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
    float *x[MAX_THREADS], *y[MAX_THREADS];
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

/* ---- selection ---- */

/* Every name in a --variant / --isa list must exist (a typo is an error, not a no-op). */
static int validate_lists(void)
{
    const char *names[64];
    int n = 0;
    for (int k = 0; k < exp_nvariants && n < 64; k++)
        names[n++] = exp_variants[k].variant;
    if (opt.variants && rs_list_check("variant", "variant", opt.variants, names, n) != 0)
        return -1;
    if (opt.isas && rs_list_check("isa", "ISA", opt.isas, rs_isa_names, RS_ISA_COUNT) != 0)
        return -1;
    return 0;
}

static int parse_sizes(long *n, const char **label)
{
    if (!opt.sizes)
        return default_sizes(n, label);
    char buf[512], *items[MAX_SIZES];
    snprintf(buf, sizeof buf, "%s", opt.sizes);
    int k = rs_split_list(buf, items, MAX_SIZES);
    CHECK(k > 0, "--n: empty list (expected e.g. 4096,64k)");
    long mem = sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE);
    for (int i = 0; i < k; i++) {
        CHECK(rs_parse_size(items[i], &n[i]) == 0 && n[i] > 0,
              "--n: '%s' is not a positive element count (expected e.g. 4096, 64k, 16M)", items[i]);
        CHECK(n[i] <= mem / 16, "--n: %s elements need %.1f GiB per thread, more than half this "
                                "machine's %.1f GiB of memory", items[i], 8.0 * n[i] / (1 << 30),
              (double)mem / (1 << 30));
        label[i] = cache_label(n[i]);
    }
    return k;
}

static const rs_col columns[] = {
    {"variant", RS_STR, 0},       {"isa", RS_STR, 0},           {"impl", RS_STR, 0},
    {"threads", RS_INT, 0},       {"n", RS_INT, 0},             {"cache", RS_STR, 0},
    {"ns_per_elem", RS_DBL, 4},   {"cycles_per_elem", RS_DBL, 4}, {"ns_per_elem_min", RS_DBL, 4},
    {"cv", RS_DBL, 2},            {"max_ulp", RS_DBL, 3},       {"rms_ulp", RS_DBL, 3},
    {"ulp_bound", RS_DBL, 3},     {"specials", RS_STR, 0},      {"speedup_vs_libm", RS_DBL, 3},
    {"frac_of_bound", RS_DBL, 3}, {"bound_cycles_per_elem", RS_DBL, 3}, {"samples", RS_INT, 0},
};

int cmd_exp(int argc, char **argv)
{
    int rc = rs_opts_parse(argc, argv, options, RS_ARRAY_LEN(options), usage, NULL, NULL);
    if (rc == 1)
        return RS_EXIT_OK;
    if (rc < 0 || validate_lists() != 0)
        rs_die(RS_EXIT_USAGE);
    if (opt.list) {
        printf("%-12s %-9s %-24s %9s %s\n", "variant", "isa", "impl", "ulp_bound", "runs here");
        for (int k = 0; k < exp_nvariants; k++)
            printf("%-12s %-9s %-24s %9.3g %s\n", exp_variants[k].variant,
                   rs_isa_name(exp_variants[k].isa), exp_variants[k].impl, exp_variants[k].ulp_bound,
                   rs_isa_supported(exp_variants[k].isa) ? "yes" : "no (CPU lacks the ISA)");
        return RS_EXIT_OK;
    }
    int threads[MAX_THREADS], nthr;
    char all[32];
    snprintf(all, sizeof all, "1,%d", rs_ncpus());
    if ((nthr = rs_parse_threads(opt.threads ? opt.threads : all, threads, MAX_THREADS)) < 0)
        rs_die(RS_EXIT_USAGE);
    long sizes[MAX_SIZES];
    const char *labels[MAX_SIZES];
    int nsizes = parse_sizes(sizes, labels);
    if (nsizes < 0 || rs_common_check_outputs(&opt.c) != 0)
        rs_die(RS_EXIT_USAGE);
    rs_json *machine = NULL;
    if (opt.machine && !(machine = rs_json_load(opt.machine)))
        rs_die(RS_EXIT_USAGE);

    /* Select: by name and ISA; ISAs this CPU lacks are skipped with a note. */
    const exp_variant *sel[64];
    int nsel = 0;
    for (int k = 0; k < exp_nvariants && nsel < 64; k++) {
        const exp_variant *v = &exp_variants[k];
        if (!rs_list_has(opt.variants, v->variant) || !rs_list_has(opt.isas, rs_isa_name(v->isa)))
            continue;
        if (!rs_isa_supported(v->isa)) {
            printf("skipped: %s %s (%s): this CPU lacks %s\n", v->variant, rs_isa_name(v->isa),
                   v->impl, rs_isa_name(v->isa));
            continue;
        }
        sel[nsel++] = v;
    }
    if (nsel == 0)
        rs_fatal(RS_EXIT_USAGE, "no selected variant runs on this CPU (see --list)");

    /* 1. Correctness first, outside any timed region. */
    exp_acc acc[64];
    printf("checking %d variants on %s inputs ...\n", nsel,
           opt.exhaustive ? "every float in [-104, 89] and the special" : "the special and a dense sample of");
    fflush(stdout);
    if (exp_accuracy(sel, nsel, opt.exhaustive ? EXP_EXHAUSTIVE : EXP_SAMPLE, rs_ncpus(), 1, acc) != 0)
        rs_die(RS_EXIT_INTR);
    int wrong = 0;
    for (int s = 0; s < nsel; s++) {
        int bad = !(acc[s].max_ulp <= sel[s]->ulp_bound) || (sel[s]->specials && !acc[s].specials_ok);
        if (bad) {
            wrong = 1;
            fprintf(stderr, "WRONG: %s %s: max %.3g ULP at x=%.9g (got %.9g), declared bound %.3g%s%s\n",
                    sel[s]->variant, rs_isa_name(sel[s]->isa), acc[s].max_ulp, (double)acc[s].worst_x,
                    (double)acc[s].worst_y, sel[s]->ulp_bound, acc[s].specials_ok ? "" : "; ",
                    acc[s].specials_ok ? "" : acc[s].specials_msg);
        }
    }

    /* 2. Speed. */
    rs_counters_init();
    rs_markers_init();
    rs_bench_cfg cfg = rs_bench_defaults(opt.c.quick);
    rs_table *t = rs_table_new("exp", columns, RS_ARRAY_LEN(columns));
    rs_table_meta_std(t, argc, argv);
    rs_table_meta(t, "inputs", opt.exhaustive ? "exhaustive" : "sample");
    rs_table_meta(t, "counters", rs_counters_status());
    rs_table_meta(t, "fma_peak_source", opt.machine ? opt.machine : "measured now (quick)");
    char buf[64];
    snprintf(buf, sizeof buf, "%g", EXP_BOUND_VECOPS);
    rs_table_meta(t, "bound_vecops", buf);

    int total = nsizes * nthr * nsel, done = 0;
    rs_progress_begin(total);
    for (int ti = 0; ti < nthr; ti++) {
        int T = threads[ti];
        double bound = bound_cycles_per_elem(peak_fma_gflops_for(T, machine));
        for (int si = 0; si < nsizes; si++) {
            work w = {.n = sizes[si]};
            int ok = 1;
            for (int k = 0; k < T && ok; k++) {
                w.x[k] = aligned_alloc(64, (size_t)((sizes[si] * 4 + 63) / 64 * 64));
                w.y[k] = aligned_alloc(64, (size_t)((sizes[si] * 4 + 63) / 64 * 64));
                ok = w.x[k] && w.y[k];
            }
            if (!ok)
                rs_fatal(RS_EXIT_USAGE, "out of memory for %ld elements x %d threads", sizes[si], T);
            rs_parallel(T, init_thread, &w);
            double libm_ns = NAN;
            for (int s = 0; s < nsel; s++) {
                snprintf(buf, sizeof buf, "exp %s %s n=%ld t=%d", sel[s]->variant,
                         rs_isa_name(sel[s]->isa), sizes[si], T);
                rs_progress(done++, buf);
                w.v = sel[s];
                rs_bench_result r;
                rs_marker_start(buf);
                if (rs_bench(&cfg, T, run_kernel, &w, &r) != 0)
                    rs_die(RS_EXIT_INTR);
                rs_marker_stop(buf);
                double out_ulp = timed_output_ulp(&w, T);
                if (!(out_ulp <= sel[s]->ulp_bound)) {
                    wrong = 1;
                    fprintf(stderr, "WRONG: %s %s: timed output off by %.3g ULP (n=%ld, %d threads)\n",
                            sel[s]->variant, rs_isa_name(sel[s]->isa), out_ulp, sizes[si], T);
                }
                double ns = r.ns.median / ((double)sizes[si] * T);
                if (strcmp(sel[s]->variant, "libm") == 0)
                    libm_ns = ns;
                int row = rs_table_row(t);
                rs_set_str(t, row, "variant", sel[s]->variant);
                rs_set_str(t, row, "isa", rs_isa_name(sel[s]->isa));
                rs_set_str(t, row, "impl", sel[s]->impl);
                rs_set_int(t, row, "threads", T);
                rs_set_int(t, row, "n", sizes[si]);
                rs_set_str(t, row, "cache", labels[si]);
                rs_set_dbl(t, row, "ns_per_elem", ns);
                rs_set_dbl(t, row, "cycles_per_elem", ns * rs_tsc_ghz());
                rs_set_dbl(t, row, "ns_per_elem_min", r.ns.min / ((double)sizes[si] * T));
                rs_set_dbl(t, row, "cv", r.ns.cv);
                rs_set_dbl(t, row, "max_ulp", acc[s].max_ulp);
                rs_set_dbl(t, row, "rms_ulp", acc[s].rms_ulp);
                rs_set_dbl(t, row, "ulp_bound", sel[s]->ulp_bound);
                rs_set_str(t, row, "specials", !sel[s]->specials ? "n/a" : acc[s].specials_ok ? "ok" : "WRONG");
                if (isfinite(libm_ns))
                    rs_set_dbl(t, row, "speedup_vs_libm", libm_ns / ns);
                if (isfinite(bound)) {
                    rs_set_dbl(t, row, "frac_of_bound", bound / (ns * rs_tsc_ghz()));
                    rs_set_dbl(t, row, "bound_cycles_per_elem", bound);
                }
                rs_set_int(t, row, "samples", r.ns.n);
            }
            for (int k = 0; k < T; k++) {
                free(w.x[k]);
                free(w.y[k]);
            }
        }
    }
    rs_progress_done();
    rs_markers_close();

    rs_table_print(t, stdout, "variant,isa,threads,n,cache,ns_per_elem,cycles_per_elem,cv,max_ulp,"
                              "rms_ulp,specials,speedup_vs_libm,frac_of_bound");
    printf("cycles are TSC cycles at %.3f GHz; bound = %g vector ops per vector at the measured "
           "FMA rate; %s\n", rs_tsc_ghz(), EXP_BOUND_VECOPS, rs_counters_status());
    if ((opt.c.csv && rs_table_write_csv(t, opt.c.csv) != 0) ||
        (opt.c.json && rs_table_write_json(t, opt.c.json) != 0))
        rs_die(RS_EXIT_USAGE);
    rs_table_free(t);
    rs_json_free(machine);
    if (wrong)
        fprintf(stderr, "microbench exp: a correctness check failed (see WRONG lines above)\n");
    return wrong ? RS_EXIT_WRONG : RS_EXIT_OK;
}
