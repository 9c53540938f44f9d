/* test_peak.c — Criterion tests of kernels/peak/ and microbench/peak/: STREAM kernels
 * and their check, the FMA measurement per ISA, the BLAS kernel-name mapping and probe,
 * the likwid-bench comparison, machine.json.
 * Nothing here assumes this particular CPU: ISA-dependent expectations are derived
 * from rs_isa_supported() / rs_isa_best(). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json.h"
#include "peak.h"
#include "peak_kernels.h"
#include "peak_run.h"

static rs_bench_cfg tiny_cfg(void)
{
    rs_bench_cfg c = rs_bench_defaults(1);
    c.warmup_s = 0.001;
    c.min_samples = 3;
    c.min_time_s = 0.005;
    c.max_time_s = 0.2;
    return c;
}

static int test_threads(void) { return rs_ncpus() >= 2 ? 2 : 1; }

/* ---- STREAM ---- */

Test(stream, copy_and_triad_compute_the_stream_results)
{
    enum { N = 1001 };   /* odd: covers the vector loop's remainder */
    double *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b), *c = malloc(N * sizeof *c);
    for (long i = 0; i < N; i++) {
        a[i] = peak_stream_a(i);
        b[i] = peak_stream_b(i);
        c[i] = -1.0;
    }
    peak_stream_copy(c, a, N);
    for (long i = 0; i < N; i++)
        cr_assert_eq(c[i], a[i], "copy: c[%ld] = %g, expected %g", i, c[i], a[i]);
    peak_stream_triad(a, b, c, PEAK_STREAM_SCALAR, N);
    for (long i = 0; i < N; i++) {
        double want = peak_stream_b(i) + PEAK_STREAM_SCALAR * peak_stream_a(i);
        cr_assert_eq(a[i], want, "triad: a[%ld] = %g, expected %g", i, a[i], want);
    }
    free(a);
    free(b);
    free(c);
}

Test(stream, measure_checks_and_reports_positive_rates)
{
    rs_bench_cfg cfg = tiny_cfg();
    peak_stream s;
    /* Not a multiple of 64 bytes per thread: uneven chunks are covered too. */
    long bytes = 64 * 1024 + 3 * 8;
    cr_assert_eq(peak_stream_measure(test_threads(), bytes, &cfg, &s), 0, "%s", rs_lasterr());
    cr_assert_eq(s.array_bytes, bytes);
    cr_assert(isfinite(s.copy_gbytes_per_s) && s.copy_gbytes_per_s > 0);
    cr_assert(isfinite(s.triad_gbytes_per_s) && s.triad_gbytes_per_s > 0);
}

Test(stream, refuses_arrays_too_small_for_the_threads)
{
    rs_bench_cfg cfg = tiny_cfg();
    peak_stream s;
    cr_assert_eq(peak_stream_measure(4, 64, &cfg, &s), -1);
}

/* ---- FMA ---- */

Test(fma, gflops_positive_for_supported_isas_and_minus_one_otherwise)
{
    rs_bench_cfg cfg = tiny_cfg();
    for (int i = 0; i < RS_ISA_COUNT; i++) {
        rs_isa isa = (rs_isa)i;
        double g = 0;
        int rc = peak_fma_gflops(isa, 1, &cfg, &g);
        if (rs_isa_supported(isa)) {
            cr_assert_eq(rc, 0, "%s: %s", rs_isa_name(isa), rs_lasterr());
            cr_assert(isfinite(g) && g > 0, "%s: %g GFLOP/s", rs_isa_name(isa), g);
        } else {
            cr_assert_eq(rc, -1, "%s is not supported here but measured", rs_isa_name(isa));
            cr_assert_eq(g, -1.0);
        }
    }
}

/* Each kernel this CPU runs computes what it counts: nacc chains a = a * mul + add
 * starting at 0, 0.1, 0.2, ..., PEAK_FMA_ITERS rounds per repetition, on every lane,
 * summed into the sink.  mul = 0.99 keeps the chains apart (0.99^256 = 0.08), so a
 * kernel that skipped chains, rounds or lanes gives another sum; and the flops it
 * reports per repetition are the 2 per FMA that this reference performs. */
Test(fma, kernels_compute_the_chains_they_count)
{
    float sink[PEAK_SINK_STRIDE] = {0};
    peak_fma_ctx ctx = {0.99f, 0.01f, sink};
    for (int i = 0; i < RS_ISA_COUNT; i++) {
        const peak_fma_variant *v = &peak_fma_variants[i];
        cr_assert_eq(v->isa, (rs_isa)i);
        cr_assert_not_null(v->fn);
        if (!rs_isa_supported(v->isa)) {
            cr_log_info("fma %s: not run here (the CPU lacks it)", rs_isa_name(v->isa));
            continue;
        }
        for (long reps = 1; reps <= 3; reps += 2) {
            double want = 0, fmas = 0;
            for (int j = 0; j < v->nacc; j++) {
                float a = 0.1f * (float)j;
                for (long it = 0; it < reps * PEAK_FMA_ITERS; it++, fmas++)
                    a = fmaf(a, ctx.mul, ctx.add);
                want += (double)a * rs_isa_lanes(v->isa);
            }
            v->fn(&ctx, 0, reps);
            cr_expect(fabs(sink[0] - want) <= 1e-4 * want, "fma %s, %ld reps: sum %.7g, reference %.7g",
                      rs_isa_name(v->isa), reps, sink[0], want);
            cr_expect_eq(peak_fma_flops_per_rep(v) * reps, 2 * fmas * rs_isa_lanes(v->isa),
                         "fma %s: the flops counted are not the flops run", rs_isa_name(v->isa));
        }
    }
}

Test(fma, all_threads_measure_too)
{
    rs_bench_cfg cfg = tiny_cfg();
    double g = 0;
    cr_assert_eq(peak_fma_gflops(RS_ISA_PORTABLE, test_threads(), &cfg, &g), 0, "%s", rs_lasterr());
    cr_assert(isfinite(g) && g > 0);
}

/* ---- BLAS ---- */

Test(blas, kernel_names_map_to_isa_levels)
{
    static const struct { const char *name; rs_isa isa; } known[] = {
        {"Prescott", RS_ISA_PORTABLE}, {"Sandybridge", RS_ISA_PORTABLE},
        {"Haswell", RS_ISA_AVX2},      {"Zen", RS_ISA_AVX2},
        {"zen3", RS_ISA_AVX2},         {"haswell", RS_ISA_AVX2},
        {"SkylakeX", RS_ISA_AVX512},   {"Cooperlake", RS_ISA_AVX512},
        {"skx", RS_ISA_AVX512},        {"SKYLAKEX", RS_ISA_AVX512},
    };
    for (int i = 0; i < (int)(sizeof known / sizeof known[0]); i++) {
        rs_isa isa;
        cr_assert_eq(peak_blas_kernel_isa(known[i].name, &isa), 0, "%s unknown", known[i].name);
        cr_assert_eq(isa, known[i].isa, "%s -> %s, expected %s", known[i].name,
                     rs_isa_name(isa), rs_isa_name(known[i].isa));
    }
    rs_isa isa;
    cr_assert_eq(peak_blas_kernel_isa("NoSuchCore", &isa), -1);
}

Test(blas, probe_reports_openblas_and_is_consistent)
{
    char *before = getenv("OPENBLAS_CORETYPE");
    peak_blas b[2];
    cr_assert_eq(peak_blas_probe(0, b), 0);
    cr_assert_str_eq(b[0].name, "openblas");
    cr_assert_str_eq(b[1].name, "blis");
    cr_assert_eq(b[0].found, 1, "OpenBLAS (libopenblas.so.0) is a build dependency");
    for (int i = 0; i < 2; i++) {
        if (!b[i].found)
            continue;
        cr_assert(b[i].detected[0] && b[i].used[0] && b[i].version[0], "%s: empty report", b[i].name);
        rs_isa isa;
        if (peak_blas_kernel_isa(b[i].used, &isa) == 0)
            cr_assert_eq(b[i].below_cpu, isa < rs_isa_best(), "%s: below_cpu", b[i].name);
        cr_assert_eq(b[i].fix_applied, 0, "allow_fix = 0 must not apply a fix");
        if (b[i].fix[0])   /* "VAR=value" for this library */
            cr_assert(strncmp(b[i].fix, i == 0 ? "OPENBLAS_CORETYPE=" : "BLIS_ARCH_TYPE=",
                              i == 0 ? 18 : 15) == 0, "%s: fix '%s'", b[i].name, b[i].fix);
        else if (strcmp(b[i].chosen_by, "environment") != 0)
            cr_assert_eq(b[i].below_cpu, 0, "%s: below the CPU without a fix", b[i].name);
    }
    char *after = getenv("OPENBLAS_CORETYPE");
    cr_assert((before == NULL) == (after == NULL), "the probe changed the environment");
}

/* A core type below the CPU set in the environment (as some machines do for OpenBLAS):
 * it is respected, and reported as below the CPU and chosen by the environment. */
Test(blas, environment_choice_below_the_cpu_is_reported)
{
    if (rs_isa_best() == RS_ISA_PORTABLE)
        cr_skip_test("no vector ISA here: no core type is below this CPU");
    setenv("OPENBLAS_CORETYPE", "Prescott", 1);
    peak_blas b[2];
    cr_assert_eq(peak_blas_probe(1, b), 0);
    cr_assert_eq(b[0].found, 1);
    cr_expect_str_eq(b[0].used, "Prescott", "the user's core type must be used");
    cr_expect_str_eq(b[0].chosen_by, "environment");
    cr_expect_eq(b[0].below_cpu, 1, "Prescott (SSE3) is below this CPU's %s", rs_isa_name(rs_isa_best()));
    cr_expect_eq(b[0].fix_applied, 0, "a user setting is never overridden");
    cr_expect_str_eq(getenv("OPENBLAS_CORETYPE"), "Prescott");
}

/* ---- machine.json ---- */

/* machine.json as peak_write_machine_json writes it for run, parsed. */
static rs_json *machine_json_of(const peak_run *run)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(peak_write_machine_json(f, (void *)run), 0);
    fclose(f);
    rs_json *j = rs_json_parse(text);
    cr_assert_not_null(j, "invalid JSON: %s\n%s", rs_lasterr(), text);
    free(text);
    return j;
}

Test(machine_json, has_the_documented_shape)
{
    peak_run run = {.threads_all = 2, .command = "microbench peak --quick"};
    for (int i = 0; i < RS_ISA_COUNT; i++)
        run.fma_gflops_1t[i] = run.fma_gflops_all[i] = 10.0 * (i + 1);
    run.stream_1t = (peak_stream){10, 11, 1 << 20};
    run.stream_all = (peak_stream){20, NAN, 1 << 20};
    strcpy(run.blas[0].name, "openblas");
    run.blas[0].found = 1;
    strcpy(run.blas[0].detected, "Prescott");
    strcpy(run.blas[1].name, "blis");

    rs_json *j = machine_json_of(&run);

    const rs_json *schema = rs_json_path(j, "schema");
    cr_assert(schema && schema->type == RS_JSTR && strcmp(schema->str, "rnnscale.machine/1") == 0);
    cr_assert_eq(rs_json_num(j, "peak.fma.portable.lanes", -1), 1);
    cr_assert_eq(rs_json_num(j, "peak.fma.portable.gflops_1t", -1), 10);
    cr_assert_eq(rs_json_num(j, "peak.stream.copy_gbytes_per_s_all", -1), 20);
    const rs_json *triad = rs_json_path(j, "peak.stream.triad_gbytes_per_s_all");
    cr_assert(triad && triad->type == RS_JNULL, "an unmeasured rate is null");
    cr_assert_eq(rs_json_num(j, "peak.stream.array_bytes", -1), 1 << 20);
    const rs_json *found = rs_json_path(j, "blas.openblas.found");
    cr_assert(found && found->type == RS_JBOOL && found->num == 1);
    found = rs_json_path(j, "blas.blis.found");
    cr_assert(found && found->type == RS_JBOOL && found->num == 0);
    static const char *keys[] = {
        "date_utc", "command", "host", "kernel", "cpu.model", "cpu.vendor", "cpu.flags",
        "cpu.ncpus", "cpu.l1d_bytes", "cpu.l2_bytes", "cpu.l3_bytes", "cpu.hypervisor",
        "cpu.isa_best", "timer.tsc_ghz", "timer.granularity_ns", "peak.stream.threads_all",
        "blas.openblas.version", "blas.openblas.used", "blas.openblas.below_cpu",
        "blas.openblas.fix", "blas.openblas.fix_applied", "counters.papi", "counters.likwid",
        "build.compiler", "build.cflags", "build.commit", "mpi", "simgrid"};
    for (int i = 0; i < (int)(sizeof keys / sizeof keys[0]); i++)
        cr_assert_not_null(rs_json_path(j, keys[i]), "machine.json lacks %s", keys[i]);
    for (int i = 0; i < RS_ISA_COUNT; i++) {
        char k[64];
        snprintf(k, sizeof k, "peak.fma.%s", rs_isa_name((rs_isa)i));
        cr_assert_eq(rs_json_path(j, k) != NULL, rs_isa_supported((rs_isa)i) != 0,
                     "%s present iff supported", k);
    }
    rs_json_free(j);
}

/* ---- likwid-bench cross-check (likwid_bench.c) ---- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "fixture %s missing (tests run from the repository root)", path);
    char *text = calloc(1, 1 << 16);
    size_t n = fread(text, 1, (1 << 16) - 1, f);
    fclose(f);
    text[n] = 0;
    return text;
}

/* Fixtures captured from likwid-bench 5.2 on this project's build machine. */
Test(likwid, parses_captured_likwid_bench_output)
{
    static const struct { const char *file; double mflops, mbytes; } cases[] = {
        {"test/likwid/peakflops_sp_avx_fma.txt", 92460.29, 12328.04},
        {"test/likwid/copy_avx.txt", 0.0, 1309.49},
        {"test/likwid/stream_avx.txt", 136.62, 1639.50},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *text = slurp(cases[i].file);
        double mflops, mbytes;
        cr_assert_eq(peak_likwid_parse(text, &mflops, &mbytes), 0, "%s", cases[i].file);
        cr_assert_eq(mflops, cases[i].mflops, "%s: MFlops/s %g", cases[i].file, mflops);
        cr_assert_eq(mbytes, cases[i].mbytes, "%s: MByte/s %g", cases[i].file, mbytes);
        free(text);
    }
    char *text = slurp("test/likwid/unknown_test.txt");
    double mflops = 1, mbytes = 1;
    cr_assert_eq(peak_likwid_parse(text, &mflops, &mbytes), -1, "an error message has no rates");
    cr_assert(isnan(mflops) && isnan(mbytes));
    free(text);
    /* "MFlops/s:" only at the start of a line, and a key without a number is no figure */
    cr_assert_eq(peak_likwid_parse("Number of MFlops/s: 5\nMByte/s:\tn/a\n", &mflops, &mbytes), -1);
}

Test(likwid, five_percent_is_the_line_between_agree_and_warn)
{
    peak_likwid lw = {.fma_gflops = 100, .copy_gbs = 10, .triad_gbs = 20};
    peak_likwid_compare(&lw, 104, 9.6, 20.9);
    cr_assert(lw.agree, "within 5%%: %g %g %g", lw.ratio_fma, lw.ratio_copy, lw.ratio_triad);
    cr_assert_float_eq(lw.ratio_copy, 0.96, 1e-12);
    cr_assert_eq(lw.peak_triad_gbs, 20.9, "peak's own figure is kept beside likwid-bench's");
    peak_likwid_compare(&lw, 100, 10, 21.2);
    cr_assert(!lw.agree, "triad 6%% above likwid-bench's is a disagreement");
    peak_likwid_compare(&lw, 100, 9.4, 20);
    cr_assert(!lw.agree, "copy 6%% below is a disagreement");
    lw.copy_gbs = NAN;
    peak_likwid_compare(&lw, 100, 10, 20);
    cr_assert(isnan(lw.ratio_copy) && !lw.agree, "a missing figure cannot agree");
}

Test(likwid, machine_json_records_both_or_why_not)
{
    peak_run run = {.threads_all = 2, .command = "microbench peak"};
    run.stream_all = (peak_stream){20, 30, 1 << 20};
    strcpy(run.likwid.why, "likwid-bench not found on PATH");
    for (int avail = 0; avail < 2; avail++) {
        if (avail) {
            run.likwid = (peak_likwid){.available = 1, .threads = 2, .array_bytes = 1 << 20,
                                       .fma_gflops = 50, .copy_gbs = 20, .triad_gbs = 40};
            strcpy(run.likwid.fma_test, "peakflops_sp_avx_fma");
            peak_likwid_compare(&run.likwid, 50, 20, 30);
        }
        rs_json *j = machine_json_of(&run);
        const rs_json *a = rs_json_path(j, "likwid.available");
        cr_assert(a && a->type == RS_JBOOL && a->num == avail);
        if (!avail) {
            const rs_json *why = rs_json_path(j, "likwid.why");
            cr_assert(why && why->type == RS_JSTR && strstr(why->str, "not found"));
        } else {
            cr_assert_eq(rs_json_num(j, "likwid.fma_gflops", -1), 50);
            cr_assert_eq(rs_json_num(j, "likwid.peak_triad_gbs", -1), 30);
            cr_assert_float_eq(rs_json_num(j, "likwid.ratio_triad", -1), 0.75, 1e-12);
            const rs_json *agree = rs_json_path(j, "likwid.agree");
            cr_assert(agree && agree->type == RS_JBOOL && agree->num == 0);
        }
        rs_json_free(j);
    }
}
