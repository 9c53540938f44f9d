/* test_counters.c — the PAPI counter columns every study row carries (study.c, bench.c).
 *
 * A small study of its own runs through rs_study_main: two kernels timed side by side
 * and one alone, of 1000, 4000 and 2000 iterations.  Where rs_counters_init() returns 1
 * (a CPU with a PMU) each row's counts must be positive, plausible and belong to its own
 * kernel; where it returns 0 (a VM without a PMU) the cells must be empty and the reason
 * recorded in the metadata.  Whichever branch a machine takes, the other is skipped with
 * a message naming the reason. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "counters.h"
#include "json.h"
#include "record.h"
#include "kernel_study.h"

static float sink[RS_STUDY_MAX_THREADS * 16];
static __thread long long iters_done;   /* what the stand-in counter below counts */

/* n dependent multiply-adds per repetition, opaque to the optimiser. */
static void chain(void *ctx, int tid, long reps)
{
    long n = *(const long *)ctx;
    float acc = 1.0f;
    for (long r = 0; r < reps; r++)
        for (long i = 0; i < n; i++) {
            acc = acc * 0.999f + 0.001f;
            __asm__ volatile("" : "+x"(acc));
        }
    sink[tid * 16] = acc;
    iters_done += n * reps;
}

/* A stand-in for PAPI that counts chain's iterations on each thread (instructions) and
 * twice that (cycles), no fp_ops: the harness's sums and per-repetition division and
 * its hand-over to rows checked exactly, on any machine. */
static __thread long long iters_at_start;
static void standin_start(void) { iters_at_start = iters_done; }
static void standin_stop(rs_counts *c)
{
    c->instructions = iters_done - iters_at_start;
    c->cycles = 2 * c->instructions;
    c->fp_ops = -1;
}

static long iters[3] = {1000, 4000, 2000};
static const rs_col columns[] = {{"kernel", RS_STR, 0}, {"iters", RS_INT, 0}, {"ns", RS_DBL, 4}};

static void add_row(rs_study_run *r, int k, const rs_bench_result *res)
{
    int row = rs_table_row(r->table);
    rs_set_str(r->table, row, "kernel", "chain");
    rs_set_int(r->table, row, "iters", iters[k]);
    rs_set_dbl(r->table, row, "ns", res->ns.median);
}

static int prepare(rs_study_run *r) { return 2; }
static int select_one(rs_study_run *r)
{
    r->sel[0] = columns;
    r->nsel = 1;
    return 0;
}
static int before(rs_study_run *r) { return 0; }
static void begin(rs_study_run *r) { r->cfg.max_time_s = 0.2; }
static void notes(rs_study_run *r) {}

/* Item 0: kernels 0 and 1 side by side (rounds); item 1: kernel 2 alone. */
static int time_item(rs_study_run *r, int ti, int item)
{
    rs_bench_result res[2];
    if (item == 0) {
        void *ctx[2] = {&iters[0], &iters[1]};
        int rc = rs_study_bench_rounds(r, 1, 2, chain, ctx, res);
        for (int k = 0; k < 2 && rc == 0; k++)
            add_row(r, k, &res[k]);
        return rc;
    }
    int rc = rs_study_bench(r, 1, chain, &iters[2], res);
    if (rc == 0)
        add_row(r, 2, res);
    return rc;
}

static const rs_study counted = {
    .name = "counted", .usage = "usage: counted", .counters = 1,
    .columns = columns, .ncols = RS_ARRAY_LEN(columns), .console_columns = "kernel,iters,ns",
    .prepare = prepare, .no_inputs = "none", .select = select_one, .before = before,
    .begin = begin, .time_item = time_item, .notes = notes,
};

/* Runs the study into dir/counted.csv and .json; the table read back, the JSON in *j. */
static rs_table *run_study(char *dir, rs_json **j)
{
    cr_assert_not_null(mkdtemp(dir));
    char csv[128], json[128];
    snprintf(csv, sizeof csv, "%s/counted.csv", dir);
    snprintf(json, sizeof json, "%s/counted.json", dir);
    char *argv[] = {"counted", "--threads", "1", "--quick", "--csv", csv, "--json", json, NULL};
    cr_assert_eq(rs_study_main(&counted, 8, argv), 0);
    rs_table *t = rs_table_read_csv(csv);
    cr_assert_not_null(t, "%s", rs_lasterr());
    *j = rs_json_load(json);
    cr_assert_not_null(*j, "%s", rs_lasterr());
    return t;
}

/* Frees what run_study returned and removes its files. */
static void remove_run(const char *dir, rs_table *t, rs_json *j)
{
    rs_table_free(t);
    rs_json_free(j);
    char p[160];
    snprintf(p, sizeof p, "%s/counted.csv", dir);
    unlink(p);
    snprintf(p, sizeof p, "%s/counted.json", dir);
    unlink(p);
    rmdir(dir);
}

static double cell(const rs_table *t, int row, const char *col)
{
    int c = rs_table_col_index(t, col);
    return rs_cell_isset(t, row, c) ? rs_cell_dbl(t, row, c) : NAN;
}

Test(counters, columns_follow_the_study_columns_in_order)
{
    char dir[] = "/tmp/rs-counters-XXXXXX";
    rs_json *j;
    rs_table *t = run_study(dir, &j);
    const char *want[] = {"kernel", "iters", "ns", "cycles", "instructions", "fp_ops"};
    cr_assert_eq(rs_table_ncols(t), 6);
    for (int c = 0; c < 6; c++)
        cr_assert_str_eq(rs_table_col(t, c)->name, want[c]);
    cr_assert_eq(rs_table_nrows(t), 3, "one row per timed kernel");
    const rs_json *unit = rs_json_path(j, "meta.counters_unit");
    cr_assert(unit && unit->type == RS_JSTR && strstr(unit->str, "per repetition"));
    remove_run(dir, t, j);
}

Test(counters, without_a_pmu_the_cells_are_empty_and_the_reason_recorded)
{
    if (rs_counters_init())
        cr_skip_test("PAPI counts on this machine (%s): the counted branch is tested", rs_counters_status());
    char dir[] = "/tmp/rs-counters-XXXXXX";
    rs_json *j;
    rs_table *t = run_study(dir, &j);
    const char *cols[] = {"cycles", "instructions", "fp_ops"};
    for (int row = 0; row < rs_table_nrows(t); row++)
        for (int c = 0; c < 3; c++)
            cr_assert(!rs_cell_isset(t, row, rs_table_col_index(t, cols[c])),
                      "row %d: %s is set where nothing counts", row, cols[c]);
    const rs_json *why = rs_json_path(j, "meta.counters");
    const char *prefix = "papi: unavailable: ";
    cr_assert(why && why->type == RS_JSTR, "no meta.counters");
    cr_assert(strncmp(why->str, prefix, strlen(prefix)) == 0 && strlen(why->str) > strlen(prefix) + 4,
              "meta.counters says no reason: '%s'", why->str);
    cr_assert_str_eq(why->str, rs_counters_status());
    const rs_json *rows = rs_json_path(j, "rows");
    cr_assert(rows && rows->type == RS_JARR && rows->n == 3);
    const rs_json *cyc = rs_json_get(rows->items[0], "cycles");
    cr_assert(cyc && cyc->type == RS_JNULL, "JSON: an uncounted cell is null");
    remove_run(dir, t, j);
}

Test(counters, with_a_pmu_each_row_counts_its_own_kernel)
{
    if (!rs_counters_init())
        cr_skip_test("no counting here (%s): the empty-column branch is tested", rs_counters_status());
    char dir[] = "/tmp/rs-counters-XXXXXX";
    rs_json *j;
    rs_table *t = run_study(dir, &j);
    double ins[3];
    for (int row = 0; row < 3; row++) {
        double cyc = cell(t, row, "cycles");
        ins[row] = cell(t, row, "instructions");
        cr_assert(cyc > 0 && ins[row] > 0, "row %d: cycles %g, instructions %g", row, cyc, ins[row]);
        double ipc = ins[row] / cyc;
        cr_assert(ipc > 0.05 && ipc < 8, "row %d: %g instructions per cycle", row, ipc);
        cr_assert(ins[row] >= (double)iters[row], "row %d: %g instructions for %ld multiply-adds",
                  row, ins[row], iters[row]);
        double fp = cell(t, row, "fp_ops");
        cr_assert(isnan(fp) || fp > 0, "row %d: fp_ops %g", row, fp);
    }
    /* The rows took their own kernel's counts: instructions follow the iterations. */
    cr_assert(ins[1] / ins[0] > 2.5 && ins[1] / ins[0] < 5.5, "4000 vs 1000: %g", ins[1] / ins[0]);
    cr_assert(ins[2] / ins[0] > 1.4 && ins[2] / ins[0] < 2.8, "2000 vs 1000: %g", ins[2] / ins[0]);
    const rs_json *why = rs_json_path(j, "meta.counters");
    cr_assert(why && why->type == RS_JSTR && strncmp(why->str, "papi: ok", 8) == 0);
    remove_run(dir, t, j);
}

Test(counters, rows_take_their_own_kernels_counts_per_repetition)
{
    if (rs_counters_init())
        cr_skip_test("PAPI counts here and replaces the stand-in (%s)", rs_counters_status());
    rs_bench_count_with(standin_start, standin_stop);
    char dir[] = "/tmp/rs-counters-XXXXXX";
    rs_json *j;
    rs_table *t = run_study(dir, &j);
    for (int row = 0; row < 3; row++) {
        cr_assert_eq(cell(t, row, "instructions"), (double)iters[row], "row %d: %g for %ld",
                     row, cell(t, row, "instructions"), iters[row]);
        cr_assert_eq(cell(t, row, "cycles"), 2.0 * (double)iters[row]);
        cr_assert(isnan(cell(t, row, "fp_ops")), "an event not counted stays empty");
    }
    remove_run(dir, t, j);
}

Test(counters, threads_counts_are_summed)
{
    long n = 1000;
    rs_bench_cfg cfg = rs_bench_defaults(1);
    rs_bench_result r;
    rs_bench_count_with(standin_start, standin_stop);
    cr_assert_eq(rs_bench(&cfg, 2, chain, &n, &r), 0);
    cr_assert_eq(r.instructions, 2.0 * (double)n, "2 threads x %ld: %g", n, r.instructions);
    cr_assert(isnan(r.fp_ops));
}

Test(counters, bench_counts_are_nan_or_positive)
{
    long n = 1000;
    rs_bench_cfg cfg = rs_bench_defaults(1);
    rs_bench_result r;
    int on = rs_counters_init();
    if (on)
        rs_bench_count_with(rs_counters_start, rs_counters_stop);
    cr_assert_eq(rs_bench(&cfg, 1, chain, &n, &r), 0);
    if (on)
        cr_assert(r.cycles > 0 && r.instructions >= n, "cycles %g, instructions %g", r.cycles, r.instructions);
    else
        cr_assert(isnan(r.cycles) && isnan(r.instructions) && isnan(r.fp_ops),
                  "counts without counters: %g %g %g", r.cycles, r.instructions, r.fp_ops);
}
