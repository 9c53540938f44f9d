/* test_harness.c — the shared harness: statistics, the bench loop, options, JSON. */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>

#include "bench.h"
#include "check.h"
#include "cpu.h"
#include "json.h"
#include "opts.h"
#include "stats.h"
#include "timer.h"

Test(stats, odd_count_median_min_max)
{
    double x[] = {5, 1, 4, 2, 3};
    rs_stats s;
    cr_assert_eq(rs_stats_compute(x, 5, &s), 0);
    cr_assert_eq(s.n, 5);
    cr_assert_float_eq(s.min, 1, 0);
    cr_assert_float_eq(s.max, 5, 0);
    cr_assert_float_eq(s.median, 3, 0);
    cr_assert_float_eq(s.mean, 3, 1e-12);
    /* sample stddev of 1..5 is sqrt(2.5) */
    cr_assert_float_eq(s.cv, sqrt(2.5) / 3, 1e-12);
    cr_assert_float_eq(x[0], 5, 0, "input must not be reordered");
}

Test(stats, even_count_median_is_mean_of_middle)
{
    double x[] = {10, 40, 20, 30};
    rs_stats s;
    cr_assert_eq(rs_stats_compute(x, 4, &s), 0);
    cr_assert_float_eq(s.median, 25, 0);
}

Test(stats, p99_is_nearest_rank)
{
    double x[200];
    for (int i = 0; i < 200; i++)
        x[i] = 200 - i; /* 1..200, reversed */
    rs_stats s;
    cr_assert_eq(rs_stats_compute(x, 200, &s), 0);
    cr_assert_float_eq(s.p99, 198, 0, "ceil(0.99 * 200) = 198th smallest");
    cr_assert_eq(rs_stats_compute(x, 1, &s), 0);
    cr_assert_float_eq(s.p99, 200, 0);
}

Test(stats, single_and_empty)
{
    double x[] = {7};
    rs_stats s;
    cr_assert_eq(rs_stats_compute(x, 1, &s), 0);
    cr_assert_float_eq(s.cv, 0, 0);
    cr_assert_eq(rs_stats_compute(x, 0, &s), -1);
}

Test(timer, monotonic_and_calibrated)
{
    uint64_t a = rs_now_ns(), b = rs_now_ns();
    cr_assert_geq(b, a);
    double g = rs_timer_granularity_ns();
    cr_assert(g > 0 && g < 1e6, "granularity %g ns", g);
    double ghz = rs_tsc_ghz();
    cr_assert(ghz > 0.1 && ghz < 10, "TSC %g GHz", ghz);
}

/* A kernel with a known cost: reps x a busy wait of *ctx microseconds. */
static void spin_us(void *ctx, int tid, long reps)
{
    (void)tid;
    uint64_t ns = (uint64_t)(*(const int *)ctx) * 1000;
    for (long r = 0; r < reps; r++) {
        uint64_t t0 = rs_now_ns();
        while (rs_now_ns() - t0 < ns)
            ;
    }
}

static int us20 = 20;

Test(bench, measures_a_known_duration)
{
    rs_bench_cfg cfg = rs_bench_defaults(1);
    rs_bench_result r;
    cr_assert_eq(rs_bench(&cfg, 1, spin_us, &us20, &r), 0);
    cr_assert_geq(r.ns.n, cfg.min_samples);
    cr_assert(r.ns.min >= 20000 && r.ns.min < 40000, "min %g ns for a 20 us kernel", r.ns.min);
    /* every sample spans at least 20 timer ticks and min_sample_s */
    cr_assert_geq(r.reps * r.ns.min, fmax(20 * rs_timer_granularity_ns(), cfg.min_sample_s * 1e9) * 0.99);
}

/* Counts the threads inside the kernel at once: each call waits (up to 2 ms) for the
 * other thread to be inside too.  Threads run one after another never see two. */
static atomic_int inside, most_inside;

static void meet(void *ctx, int tid, long reps)
{
    (void)ctx, (void)tid;
    for (long r = 0; r < reps; r++) {   /* each repetition a meeting, then 5 us of work */
        int n = atomic_fetch_add(&inside, 1) + 1;
        uint64_t t0 = rs_now_ns();
        while (n < 2 && rs_now_ns() - t0 < 2000000)
            n = atomic_load(&inside);
        int m = atomic_load(&most_inside);
        while (n > m && !atomic_compare_exchange_weak(&most_inside, &m, n))
            ;
        while (rs_now_ns() - t0 < 5000)
            ;
        atomic_fetch_sub(&inside, 1);
    }
}

Test(bench, threads_run_concurrently)
{
    rs_bench_cfg cfg = rs_bench_defaults(1);
    rs_bench_result r;
    cr_assert_eq(rs_bench(&cfg, 2, spin_us, &us20, &r), 0);
    cr_assert_eq(r.threads, 2);
    cr_assert(r.ns.min >= 20000, "min %g", r.ns.min);
    atomic_store(&inside, 0), atomic_store(&most_inside, 0);
    cr_assert_eq(rs_bench(&cfg, 2, meet, NULL, &r), 0, "%s", rs_lasterr());
    cr_expect_eq(atomic_load(&most_inside), 2, "the 2 threads never ran the kernel at the same time");
}

Test(bench, rounds_time_each_kernel_side_by_side)
{
    rs_bench_cfg cfg = rs_bench_defaults(1);
    int us[3] = {20, 60, 20};
    void *ctx[3] = {&us[0], &us[1], &us[2]};
    rs_bench_result r[3];
    cr_assert_eq(rs_bench_rounds(&cfg, 1, 3, spin_us, ctx, r), 0);
    for (int k = 0; k < 3; k++) {
        /* one sample of each per round: the same count for all */
        cr_assert_eq(r[k].ns.n, r[0].ns.n);
        cr_assert_geq(r[k].ns.n, cfg.min_samples);
        cr_assert(r[k].ns.min >= us[k] * 1000.0, "kernel %d: min %g ns for %d us", k, r[k].ns.min, us[k]);
        cr_assert_geq(r[k].reps * r[k].ns.min, cfg.min_sample_s * 1e9 * 0.99);
    }
    cr_assert_eq(rs_bench_rounds(&cfg, 1, 0, spin_us, ctx, r), -1);
}

/* A child started from a pinned thread inherits its one CPU (likwid-bench then runs
 * every thread there): unpinning gives the thread every CPU the process started with. */
Test(bench, unpin_restores_the_start_mask)
{
    cpu_set_t start, now;
    cr_assert_eq(sched_getaffinity(0, sizeof start, &start), 0);
    if (CPU_COUNT(&start) < 2)
        cr_skip_test("one CPU: pinning changes nothing to see");
    cr_assert_eq(rs_pin_thread(1), 0);
    cr_assert_eq(sched_getaffinity(0, sizeof now, &now), 0);
    cr_assert_eq(CPU_COUNT(&now), 1);
    cr_assert_eq(rs_unpin_thread(), 0);
    cr_assert_eq(sched_getaffinity(0, sizeof now, &now), 0);
    cr_assert(CPU_EQUAL(&now, &start), "unpinned mask differs from the start mask");
}

Test(bench, rejects_zero_threads)
{
    rs_bench_cfg cfg = rs_bench_defaults(1);
    rs_bench_result r;
    cr_assert_eq(rs_bench(&cfg, 0, spin_us, &us20, &r), -1);
    cr_assert(strstr(rs_lasterr(), "threads") != NULL);
}

Test(cpu, isa_names_round_trip_and_portable_always)
{
    for (int i = 0; i < RS_ISA_COUNT; i++) {
        rs_isa back;
        cr_assert_eq(rs_isa_from_name(rs_isa_name((rs_isa)i), &back), 0);
        cr_assert_eq((int)back, i);
    }
    rs_isa x;
    cr_assert_eq(rs_isa_from_name("sse9", &x), -1);
    cr_assert(rs_isa_supported(RS_ISA_PORTABLE));
    cr_assert(rs_isa_supported(rs_isa_best()));
    /* AVX-512 implies AVX2 on every x86 CPU that exists */
    if (rs_isa_supported(RS_ISA_AVX512))
        cr_assert(rs_isa_supported(RS_ISA_AVX2));
}

Test(opts, sizes_with_suffixes)
{
    long v;
    cr_assert_eq(rs_parse_size("4096", &v), 0);
    cr_assert_eq(v, 4096);
    cr_assert_eq(rs_parse_size("64k", &v), 0);
    cr_assert_eq(v, 65536);
    cr_assert_eq(rs_parse_size("1M", &v), 0);
    cr_assert_eq(v, 1 << 20);
    cr_assert_eq(rs_parse_size("2GiB", &v), 0);
    cr_assert_eq(v, 2L << 30);
    cr_assert_eq(rs_parse_size("abc", &v), -1);
    cr_assert_eq(rs_parse_size("-5", &v), -1);
    cr_assert_eq(rs_parse_size("1.5", &v), -1);
    cr_assert_eq(rs_parse_size("", &v), -1);
    cr_assert_eq(rs_parse_size("12x", &v), -1);
}

static long o_n;
static int o_flag;
static const char *o_str;
static const rs_opt topts[] = {
    {"n", RS_OPT_SIZE, &o_n, "N", "elements", 1, 1e6},
    {"flag", RS_OPT_FLAG, &o_flag, NULL, "a flag", 0, 0},
    {"name", RS_OPT_STR, &o_str, "S", "a name", 0, 0},
};

static int parse(int argc, char **argv)
{
    o_n = 0;
    o_flag = 0;
    o_str = NULL;
    return rs_opts_parse(argc, argv, topts, 3, "usage: t", NULL, NULL);
}

Test(opts, parses_forms)
{
    char *a[] = {"t", "--n", "64k", "--flag", "--name=x"};
    cr_assert_eq(parse(5, a), 0);
    cr_assert_eq(o_n, 65536);
    cr_assert_eq(o_flag, 1);
    cr_assert_str_eq(o_str, "x");
}

Test(opts, errors_name_the_option)
{
    char *a1[] = {"t", "--bogus"};
    cr_assert_eq(parse(2, a1), -1);
    cr_assert(strstr(rs_lasterr(), "unknown option '--bogus'"), "%s", rs_lasterr());
    char *a2[] = {"t", "--n", "abc"};
    cr_assert_eq(parse(3, a2), -1);
    cr_assert(strstr(rs_lasterr(), "--n: 'abc' is not a size"), "%s", rs_lasterr());
    char *a3[] = {"t", "--n", "0"};
    cr_assert_eq(parse(3, a3), -1);
    cr_assert(strstr(rs_lasterr(), "out of range"), "%s", rs_lasterr());
    char *a4[] = {"t", "--n"};
    cr_assert_eq(parse(2, a4), -1);
    cr_assert(strstr(rs_lasterr(), "needs a value"), "%s", rs_lasterr());
    char *a5[] = {"t", "stray"};
    cr_assert_eq(parse(2, a5), -1);
    cr_assert(strstr(rs_lasterr(), "unexpected argument"), "%s", rs_lasterr());
    for (const char *e = rs_lasterr(); *e; e++)
        cr_assert_neq(*e, '\n', "error messages are one line");
}

/* Numbers: NaN, inf, what overflows and what is out of range are refused before any
 * work, with what is expected and the starting value as the example. */
Test(opts, numbers_in_range)
{
    double rate = 0.5, mib = 25;
    long steps = 10;
    const rs_opt nopts[] = {
        {"rate", RS_OPT_DBL, &rate, "X", "a rate", 0, 1},
        {"mib", RS_OPT_DBL_GT, &mib, "M", "a size > 0", 0, 4096},
        {"steps", RS_OPT_INT, &steps, "N", "steps", 1, 1e15},
    };
    const char *bad[][3] = {
        {"--rate", "nan", "--rate nan: out of range (expected a number in 0..1, e.g. 0.5)"},
        {"--rate", "inf", "--rate inf: out of range"},
        {"--rate", "-1e-9", "--rate -1e-9: out of range"},
        {"--rate", "1e400", "--rate 1e400: out of range"},
        {"--mib", "1e300", "--mib 1e300: out of range (expected a number > 0 and <= 4096, e.g. 25)"},
        {"--mib", "0", "--mib 0: out of range"},
        {"--mib", "-inf", "--mib -inf: out of range"},
        {"--steps", "0", "--steps 0: out of range (expected an integer in 1..1e+15, e.g. 10)"},
        {"--steps", "99999999999999999999", "--steps 99999999999999999999: out of range"},
        {"--steps", "1e3", "--steps: '1e3' is not an integer (expected an integer in 1..1e+15"},
    };
    for (int i = 0; i < RS_ARRAY_LEN(bad); i++) {
        char *a[] = {"t", (char *)bad[i][0], (char *)bad[i][1]};
        cr_assert_eq(rs_opts_parse(3, a, nopts, 3, "usage: t", NULL, NULL), -1, "%s %s", a[1], a[2]);
        cr_assert(strstr(rs_lasterr(), bad[i][2]), "%s", rs_lasterr());
        cr_assert(rate == 0.5 && mib == 25 && steps == 10, "a refused value is not stored");
    }
    char *ok[] = {"t", "--mib", "0.004", "--rate", "1", "--steps", "1000000000000000"};
    cr_assert_eq(rs_opts_parse(7, ok, nopts, 3, "usage: t", NULL, NULL), 0, "%s", rs_lasterr());
    cr_assert(mib == 0.004 && rate == 1 && steps == 1000000000000000L);
}

/* A repeated option keeps every value in order, up to its capacity. */
Test(opts, repeated_option_keeps_every_value)
{
    const char *seen[2];
    rs_opt_strs at = {seen, 0, 2};
    const rs_opt ropts[] = {{"at", RS_OPT_STRS, &at, "P:LIST", "repeatable", 0, 0}};
    char *a[] = {"t", "--at", "800:4,1M", "--at=64:1k"};
    cr_assert_eq(rs_opts_parse(4, a, ropts, 1, "usage: t", NULL, NULL), 0, "%s", rs_lasterr());
    cr_assert_eq(at.n, 2);
    cr_assert_str_eq(seen[0], "800:4,1M");
    cr_assert_str_eq(seen[1], "64:1k");
    at.n = 0;
    char *b[] = {"t", "--at", "1:4", "--at", "2:4", "--at", "3:4"};
    cr_assert_eq(rs_opts_parse(7, b, ropts, 1, "usage: t", NULL, NULL), -1);
    cr_assert(strstr(rs_lasterr(), "--at: given more than 2 times"), "%s", rs_lasterr());
    char *c[] = {"t", "--at="};
    cr_assert_eq(rs_opts_parse(2, c, ropts, 1, "usage: t", NULL, NULL), -1);
    cr_assert(strstr(rs_lasterr(), "--at: empty value"), "%s", rs_lasterr());
}

/* rs_opts_parse_rest stops at a lone "--": what follows is another program's, even
 * --help or an unknown option; rs_opts_parse keeps refusing "--" as an argument. */
Test(opts, rest_after_double_dash)
{
    char *a[] = {"t", "--n", "4", "--", "--lr", "0.1", "--help", "--flag"};
    int rest = -1;
    cr_assert_eq(parse(3, a), 0);  /* (resets the options) */
    cr_assert_eq(rs_opts_parse_rest(8, a, topts, 3, "usage: t", NULL, NULL, &rest), 0, "%s", rs_lasterr());
    cr_assert_eq(rest, 4);
    cr_assert_eq(o_n, 4);
    cr_assert_eq(o_flag, 0, "a flag after -- is not ours");
    char *b[] = {"t", "--flag"};
    cr_assert_eq(rs_opts_parse_rest(2, b, topts, 3, "usage: t", NULL, NULL, &rest), 0);
    cr_assert_eq(rest, 2, "without --, nothing is left over");
    char *c[] = {"t", "--name", "--", "--flag"};
    cr_assert_eq(rs_opts_parse_rest(4, c, topts, 3, "usage: t", NULL, NULL, &rest), 0, "%s", rs_lasterr());
    cr_assert_str_eq(o_str, "--", "an option's value is taken whole, -- too");
    cr_assert_eq(o_flag, 1, "so the options go on after it");
    cr_assert_eq(rest, 4);
    char *d[] = {"t", "--", "x"};
    cr_assert_eq(parse(3, d), -1);
    cr_assert(strstr(rs_lasterr(), "unexpected argument '--'"), "%s", rs_lasterr());
}

Test(opts, thread_lists)
{
    int t[8];
    cr_assert_eq(rs_parse_threads("1,2", t, 8), 2);
    cr_assert_eq(t[1], 2);
    cr_assert_eq(rs_parse_threads("all", t, 8), 1);
    cr_assert_eq(t[0], rs_ncpus());
    cr_assert_eq(rs_parse_threads("1,1", t, 8), 1, "duplicates are dropped");
    cr_assert_eq(rs_parse_threads("0", t, 8), -1);
    cr_assert_eq(rs_parse_threads("x", t, 8), -1);
}

Test(json, parse_and_paths)
{
    rs_json *v = rs_json_parse("{\"a\": {\"b\": [1, 2.5e3, \"x\\ny\"], \"c\": -3}, \"t\": true, \"n\": null}");
    cr_assert_not_null(v, "%s", rs_lasterr());
    cr_assert_float_eq(rs_json_num(v, "a.c", 0), -3, 0);
    cr_assert_float_eq(rs_json_num(v, "a.missing", 42), 42, 0);
    const rs_json *b = rs_json_path(v, "a.b");
    cr_assert_eq(b->type, RS_JARR);
    cr_assert_eq(b->n, 3);
    cr_assert_float_eq(b->items[1]->num, 2500, 0);
    cr_assert_str_eq(b->items[2]->str, "x\ny");
    cr_assert_eq(rs_json_path(v, "t")->type, RS_JBOOL);
    cr_assert_eq(rs_json_path(v, "n")->type, RS_JNULL);
    rs_json_free(v);
}

Test(json, rejects_malformed)
{
    const char *bad[] = {"{", "{\"a\" 1}", "[1,]", "{\"a\":1} x", "nul", "\"unterminated"};
    for (int i = 0; i < RS_ARRAY_LEN(bad); i++) {
        rs_json *v = rs_json_parse(bad[i]);
        cr_assert_null(v, "accepted %s", bad[i]);
        cr_assert(strstr(rs_lasterr(), "JSON syntax error"), "%s", rs_lasterr());
    }
}
