/* cmd_peak.c — `microbench peak`: this machine's limits, measured in this run.
 *
 *   microbench peak [--threads N] [--quick] [--json machine.json] [--csv peak.csv]
 *
 * Measures, on 1 thread and on N threads (default all CPUs): the fp32 FMA throughput
 * of every ISA this CPU supports (kernels/peak/fma_<isa>.c) and STREAM copy/triad
 * bandwidth (kernels/peak/stream.c); probes which kernels OpenBLAS and BLIS dispatch
 * to (kernels/peak/blas_probe.c) and, unless --no-blas-fix, sets the environment fix
 * for what runs after; then runs
 * likwid-bench on the same limits (likwid_bench.c, skipped by --no-likwid).  Prints one
 * table of limits and one of BLAS dispatch; --csv writes the limits table, --json
 * writes machine.json (machine_json.c), which the other studies read back.
 *
 * Columns: gflops (2 flops per FMA lane), gbytes_per_s (1e9 B/s, STREAM's byte
 * counts), fma_per_cycle = vector FMAs per TSC cycle per thread (`portable`: scalar
 * mul+add pairs).  Two FMA ports give 2 per *core* cycle; the TSC ticks at a fixed
 * rate, so a core boosting above it shows more (2.65 on a Zen 3 VM: 2 x ~3.25 GHz
 * core / 2.45 GHz TSC) and one throttled below it (AVX-512 licences) shows less.
 * Exit: 0 ok, 1 a STREAM result was wrong, 2 bad usage, 130 interrupted. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "counters.h"
#include "fsio.h"
#include "meta.h"
#include "opts.h"
#include "peak_run.h"
#include "progress.h"
#include "record.h"

/* ---- options ---- */
static struct {
    rs_common_opts c;     /* --csv, --json, --quick */
    long threads;         /* --threads N: the "all threads" measurement (default all CPUs) */
    long stream_bytes;    /* --stream-bytes: per STREAM array (default max(4 x LLC, 64 MiB)) */
    int no_blas_fix;      /* --no-blas-fix: report the BLAS fix, do not set it */
    int no_likwid;        /* --no-likwid: no likwid-bench cross-check */
} opt;

static const rs_opt options[] = {
    {"threads", RS_OPT_INT, &opt.threads, "N", "threads for the all-threads measurement (default: all CPUs; 1 is always measured)", 1, 1024},
    {"stream-bytes", RS_OPT_SIZE, &opt.stream_bytes, "SIZE", "bytes per STREAM array, e.g. 256M (default: max(4 x LLC, 64M))", 4096, 1e12},
    {"no-blas-fix", RS_OPT_FLAG, &opt.no_blas_fix, NULL, "do not set OPENBLAS_CORETYPE / BLIS_ARCH_TYPE when a BLAS picks a kernel below the CPU", 0, 0},
    {"no-likwid", RS_OPT_FLAG, &opt.no_likwid, NULL, "do not cross-check the limits with likwid-bench", 0, 0},
    RS_COMMON_OPTS(opt.c),
};

static const char usage[] =
    "usage: microbench peak [options]\n"
    "Measures this machine's limits on 1 thread and N threads: fp32 FMA GFLOP/s per ISA,\n"
    "STREAM copy and triad GB/s; reports the kernel OpenBLAS and BLIS dispatch to and the\n"
    "environment fix when it is below the CPU's ISA (applied for what runs later).";

/* ---- the limits table (also the CSV) ---- */
static const rs_col limit_cols[] = {
    {"limit", RS_STR, 0},          /* fma, copy, triad */
    {"isa", RS_STR, 0},
    {"kernel", RS_STR, 0},         /* the instruction measured (fma.c) */
    {"threads", RS_INT, 0},
    {"gflops", RS_DBL, 4},
    {"gbytes_per_s", RS_DBL, 4},
    {"fma_per_cycle", RS_DBL, 3},  /* per thread, see the header comment */
    {"array_bytes", RS_INT, 0},
};

static const rs_col blas_cols[] = {
    {"library", RS_STR, 0}, {"version", RS_STR, 0}, {"detected", RS_STR, 0},
    {"used", RS_STR, 0},    {"used_isa", RS_STR, 0}, {"below_cpu", RS_STR, 0},
    {"chosen_by", RS_STR, 0},
    {"fix", RS_STR, 0},     {"fix_applied", RS_STR, 0},
};

static void add_fma_row(rs_table *t, rs_isa isa, int threads, double gflops)
{
    int r = rs_table_row(t);
    rs_set_str(t, r, "limit", "fma");
    rs_set_str(t, r, "isa", rs_isa_name(isa));
    rs_set_str(t, r, "kernel", peak_fma_variants[isa].what);
    rs_set_int(t, r, "threads", threads);
    rs_set_dbl(t, r, "gflops", gflops);
    rs_set_dbl(t, r, "fma_per_cycle", peak_fma_per_cycle(isa, gflops, threads));
}

static void add_stream_rows(rs_table *t, int threads, const peak_stream *s)
{
    const char *names[2] = {"copy", "triad"};
    double rates[2] = {s->copy_gbytes_per_s, s->triad_gbytes_per_s};
    for (int k = 0; k < 2; k++) {
        int r = rs_table_row(t);
        rs_set_str(t, r, "limit", names[k]);
        rs_set_str(t, r, "kernel", k == 0 ? "c=a" : "a=b+s*c");
        rs_set_int(t, r, "threads", threads);
        if (isfinite(rates[k]))   /* a failed check leaves the cell unset ("-") */
            rs_set_dbl(t, r, "gbytes_per_s", rates[k]);
        rs_set_int(t, r, "array_bytes", s->array_bytes);
    }
}

static rs_table *blas_table(const peak_blas b[2])
{
    rs_table *t = rs_table_new("peak_blas", blas_cols, RS_ARRAY_LEN(blas_cols));
    for (int i = 0; i < 2; i++) {
        int r = rs_table_row(t);
        rs_set_str(t, r, "library", b[i].name);
        if (!b[i].found) {
            rs_set_str(t, r, "version", "not found");
            continue;
        }
        rs_isa isa;
        rs_set_str(t, r, "version", b[i].version);
        rs_set_str(t, r, "detected", b[i].detected);
        rs_set_str(t, r, "used", b[i].used);
        rs_set_str(t, r, "used_isa", peak_blas_kernel_isa(b[i].used, &isa) == 0
                                         ? rs_isa_name(isa) : "unknown");
        rs_set_str(t, r, "below_cpu", b[i].below_cpu ? "yes" : "no");
        rs_set_str(t, r, "chosen_by", b[i].chosen_by);
        rs_set_str(t, r, "fix", b[i].fix[0] ? b[i].fix : "none needed");
        rs_set_str(t, r, "fix_applied", b[i].fix_applied ? "yes" : "no");
    }
    return t;
}

/* STREAM on `threads`; a wrong result is reported and leaves NaN rates. */
static int measure_stream(int threads, long bytes, const rs_bench_cfg *cfg, peak_stream *s)
{
    if (peak_stream_measure(threads, bytes, cfg, s) == 0)
        return 0;
    if (rs_interrupted())
        rs_die(rs_interrupt_code());
    fprintf(stderr, "%s: %s\n", rs_progname(), rs_lasterr());
    s->array_bytes = bytes;
    s->copy_gbytes_per_s = s->triad_gbytes_per_s = NAN;
    return -1;
}

int cmd_peak(int argc, char **argv)
{
    opt.threads = rs_ncpus();
    int rc = rs_opts_parse(argc, argv, options, RS_ARRAY_LEN(options), usage, NULL, NULL);
    if (rc == 1)
        return RS_EXIT_OK;
    if (rc != 0)
        rs_die(RS_EXIT_USAGE);
    if (opt.threads > rs_ncpus())
        rs_fatal(RS_EXIT_USAGE, "--threads: %ld is more than the %d online CPUs "
                 "(a limit is measured with one thread per CPU)", opt.threads, rs_ncpus());
    if (rs_common_check_outputs(&opt.c) != 0)
        rs_die(RS_EXIT_USAGE);
    if (!opt.stream_bytes) {
        long llc4 = 4 * rs_llc_bytes(), min_bytes = 64L << 20;
        opt.stream_bytes = llc4 > min_bytes ? llc4 : min_bytes;
    }

    char command[2048] = "microbench ";
    rs_command_line(argc, argv, command + strlen(command), sizeof command - strlen(command));
    peak_run run = {.threads_all = (int)opt.threads, .command = command};
    rs_counters_init();
    rs_markers_init();

    /* BLAS first: its probe forks, best done before any OpenMP team exists. */
    peak_blas_probe(!opt.no_blas_fix, run.blas);

    rs_bench_cfg cfg = rs_bench_defaults(opt.c.quick);
    int T = run.threads_all, nt = T > 1 ? 2 : 1, wrong = 0, done = 0;
    int nisa = 0;
    for (int i = 0; i < RS_ISA_COUNT; i++)
        nisa += rs_isa_supported((rs_isa)i);
    rs_progress_begin(nisa * nt + 2 * nt);

    rs_table *t = rs_table_new("peak", limit_cols, RS_ARRAY_LEN(limit_cols));
    rs_table_meta_std(t, argc, argv);
    rs_table_meta(t, "command", command);
    for (int i = RS_ISA_COUNT - 1; i >= 0; i--) {   /* widest first */
        rs_isa isa = (rs_isa)i;
        run.fma_gflops_1t[i] = run.fma_gflops_all[i] = -1;
        if (!rs_isa_supported(isa))
            continue;
        int threads[2] = {1, T};
        double *dest[2] = {&run.fma_gflops_1t[i], &run.fma_gflops_all[i]};
        for (int k = 0; k < nt; k++) {
            char label[64];
            snprintf(label, sizeof label, "fma %s %d thread(s)", rs_isa_name(isa), threads[k]);
            rs_progress(done++, label);
            if (peak_fma_gflops(isa, threads[k], &cfg, dest[k]) != 0)
                rs_die(rs_interrupted() ? rs_interrupt_code() : RS_EXIT_WRONG);
            add_fma_row(t, isa, threads[k], *dest[k]);
        }
        if (nt == 1)
            run.fma_gflops_all[i] = run.fma_gflops_1t[i];
    }

    rs_progress(done++, "stream 1 thread");
    wrong |= measure_stream(1, opt.stream_bytes, &cfg, &run.stream_1t) != 0;
    add_stream_rows(t, 1, &run.stream_1t);
    if (nt == 2) {
        rs_progress(done++, "stream all threads");
        wrong |= measure_stream(T, opt.stream_bytes, &cfg, &run.stream_all) != 0;
        add_stream_rows(t, T, &run.stream_all);
    } else {
        run.stream_all = run.stream_1t;
    }
    rs_progress_done();
    if (opt.no_likwid)
        snprintf(run.likwid.why, sizeof run.likwid.why, "not run (--no-likwid)");
    else
        peak_likwid_crosscheck(&run, rs_isa_best(), &run.likwid);

    rs_table_print(t, stdout, NULL);
    printf("\n");
    rs_table *bt = blas_table(run.blas);
    rs_table_print(bt, stdout, NULL);
    rs_table_free(bt);
    peak_likwid_report(&run.likwid);

    int write_failed = (opt.c.csv && rs_table_write_csv(t, opt.c.csv) != 0) ||
                       (opt.c.json && rs_write_atomic(opt.c.json, peak_write_machine_json, &run) != 0);
    rs_table_free(t);
    if (write_failed)
        rs_die(RS_EXIT_USAGE);
    return wrong ? RS_EXIT_WRONG : RS_EXIT_OK;
}
