/* kernel_study.c — rs_study_main (kernel_study.h): the driver every microbench study runs on.
 * Steps in the order the commands have always taken them, so errors, notes and
 * output come out as before: parse, --list, threads, inputs, outputs, machine file,
 * selection, correctness, timing, table, notes, files, exit. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "counters.h"
#include "cpu.h"
#include "fsio.h"
#include "meta.h"
#include "progress.h"
#include "kernel_study.h"
#include "timer.h"

#define MAX_OPTS 40

static void add_opts(rs_opt *all, int *n, const rs_opt *opts, int nopts)
{
    for (int i = 0; i < nopts && *n < MAX_OPTS; i++)
        all[(*n)++] = opts[i];
}

/* The option table: the study's own rows between the shared ones (study.h). */
static int build_opts(const rs_study *s, rs_study_run *r, rs_opt *all)
{
    const rs_opt variant[] = {
        {"variant", RS_OPT_STR, &r->variants, "LIST", s->variant_help, 0, 0},
        {"isa", RS_OPT_STR, &r->isas, "LIST", "ISAs to run: avx512,avx2,portable (default all this CPU has)", 0, 0},
    };
    const rs_opt threads[] = {
        {"threads", RS_OPT_STR, &r->threads_arg, "LIST",
         s->threads_help ? s->threads_help : "thread counts, e.g. 1,2 or all (default 1,all)", 0, 0},
        {"machine", RS_OPT_STR, &r->machine_path, "FILE",
         s->machine_help ? s->machine_help : "machine.json from `microbench peak` (default: measure the FMA peak now)", 0, 0},
    };
    const rs_opt tail[] = {
        {"list", RS_OPT_FLAG, &r->list, NULL,
         s->list_help ? s->list_help : "list the variants compiled in and exit", 0, 0},
        RS_COMMON_OPTS(r->c),
    };
    int n = 0;
    if (s->registry)
        add_opts(all, &n, variant, RS_ARRAY_LEN(variant));
    add_opts(all, &n, s->opts, s->nopts);
    add_opts(all, &n, threads, RS_ARRAY_LEN(threads));
    add_opts(all, &n, s->late_opts, s->nlate_opts);
    add_opts(all, &n, tail, RS_ARRAY_LEN(tail));
    return n;
}

/* Every name in a --variant / --isa list must exist (a typo is an error, not a no-op). */
static int check_lists(const rs_study *s, const rs_study_run *r)
{
    if (r->variants && rs_registry_check_list(s->registry, "variant", "variant", r->variants) != 0)
        return -1;
    if (r->isas && rs_list_check("isa", "ISA", r->isas, rs_isa_names, RS_ISA_COUNT) != 0)
        return -1;
    return 0;
}

/* By name and ISA; ISAs this CPU lacks are skipped with a note. */
static void select_rows(const rs_study *s, rs_study_run *r)
{
    const rs_registry *reg = s->registry;
    for (int k = 0; k < reg->n && r->nsel < RS_STUDY_MAX_SEL; k++) {
        const void *row = rs_registry_row(reg, k);
        const char *name = rs_registry_name(reg, k), *isa = rs_isa_name(rs_registry_isa(reg, k));
        if (!rs_list_has(r->variants, name) || !rs_list_has(r->isas, isa))
            continue;
        if (!rs_isa_supported(rs_registry_isa(reg, k))) {
            const char *detail = s->detail ? s->detail(row) : NULL;
            printf("skipped: %s %s%s%s%s: this CPU lacks %s\n", name, isa, detail ? " (" : "",
                   detail ? detail : "", detail ? ")" : "", isa);
            continue;
        }
        r->sel[r->nsel++] = row;
    }
    if (r->nsel == 0)
        rs_fatal(RS_EXIT_USAGE, "no selected variant runs on this CPU (see --list)");
}

/* Up to the selection: everything that can fail on bad input, before any work. */
static void setup(const rs_study *s, rs_study_run *r)
{
    char all[32];
    snprintf(all, sizeof all, "1,%d", rs_ncpus());
    r->nthreads = rs_parse_threads(r->threads_arg ? r->threads_arg : all, r->threads,
                                   RS_STUDY_MAX_THREADS);
    if (r->nthreads < 0)
        rs_die(RS_EXIT_USAGE);
    r->ninputs = r->nitems = s->prepare(r);
    if (r->ninputs < 0 || rs_common_check_outputs(&r->c) != 0)
        rs_die(RS_EXIT_USAGE);
    if (r->ninputs == 0)
        rs_fatal(RS_EXIT_USAGE, "%s", s->no_inputs);
    if (r->machine_path && !(r->machine = rs_json_load(r->machine_path)))
        rs_die(RS_EXIT_USAGE);
    if (!s->select)
        select_rows(s, r);
    else if (s->select(r) != 0)
        rs_die(RS_EXIT_USAGE);
}

/* Appended to every study's columns (study.h). */
static const rs_col counter_cols[] = {
    {"cycles", RS_DBL, 4}, {"instructions", RS_DBL, 4}, {"fp_ops", RS_DBL, 4},
};
#define NCOUNTER_COLS ((int)RS_ARRAY_LEN(counter_cols))

static rs_table *new_table(const rs_study *s)
{
    rs_col *cols = malloc(sizeof *cols * (size_t)(s->ncols + NCOUNTER_COLS));
    if (!cols)
        rs_fatal(RS_EXIT_USAGE, "out of memory for %d columns", s->ncols + NCOUNTER_COLS);
    memcpy(cols, s->columns, sizeof *cols * (size_t)s->ncols);
    memcpy(cols + s->ncols, counter_cols, sizeof counter_cols);
    rs_table *t = rs_table_new(s->name, cols, s->ncols + NCOUNTER_COLS);
    free(cols);
    return t;
}

/* Where the counter columns come from, once per table (a study may have set "counters"). */
static void meta_counters(const rs_study *s, rs_table *t)
{
    if (!rs_table_meta_get(t, "counters"))
        rs_table_meta(t, "counters", s->counters ? rs_counters_status()
                                                 : "papi: not used by this study");
    rs_table_meta(t, "counters_unit", "cycles, instructions, fp_ops: per repetition of the "
                  "kernel (one call on each thread), summed over the threads");
}

static void set_count(rs_table *t, int row, const char *col, double v)
{
    if (isfinite(v))   /* not counted: the cell stays empty */
        rs_set_dbl(t, row, col, v);
}

/* The rows added since the last call take the pending timings' counts, in order. */
static void give_counts(rs_study_run *r)
{
    int nrows = rs_table_nrows(r->table);
    for (int i = 0; r->rows_counted + i < nrows && i < r->npending; i++) {
        const rs_bench_result *b = &r->pending[i];
        int row = r->rows_counted + i;
        set_count(r->table, row, "cycles", b->cycles);
        set_count(r->table, row, "instructions", b->instructions);
        set_count(r->table, row, "fp_ops", b->fp_ops);
    }
    r->rows_counted = nrows;
    r->npending = 0;
}

static void die_on(int code)
{
    if (code != 0)
        rs_die(code);
}

/* Every thread count, every item: the study times each, behind one progress line. */
static void time_all(const rs_study *s, rs_study_run *r)
{
    int total = 0;
    for (int ti = 0; ti < r->nthreads; ti++)
        for (int item = 0; item < r->nitems; item++)
            total += s->steps ? s->steps(r, ti, item) : r->nsel;
    rs_progress_begin(total);
    for (int ti = 0; ti < r->nthreads; ti++) {
        if (s->thread_count)
            die_on(s->thread_count(r, ti));
        for (int item = 0; item < r->nitems; item++) {
            die_on(s->time_item(r, ti, item));
            give_counts(r);
        }
    }
    rs_progress_done();
    if (s->counters)
        rs_markers_close();
}

static void write_outputs(const rs_study_run *r)
{
    if ((r->c.csv && rs_table_write_csv(r->table, r->c.csv) != 0) ||
        (r->c.json && rs_table_write_json(r->table, r->c.json) != 0))
        rs_die(RS_EXIT_USAGE);
}

int rs_study_main(const rs_study *s, int argc, char **argv)
{
    static rs_study_run run;
    rs_study_run *r = &run;
    r->study = s;
    rs_opt opts[MAX_OPTS];
    int nopts = build_opts(s, r, opts);
    int rc = rs_opts_parse(argc, argv, opts, nopts, s->usage, NULL, NULL);
    if (rc == 1)
        return RS_EXIT_OK;
    if (rc < 0 || (s->registry && check_lists(s, r) != 0))
        rs_die(RS_EXIT_USAGE);
    if (r->list) {
        s->print_list(r);
        return RS_EXIT_OK;
    }
    setup(s, r);
    die_on(s->before(r));
    if (s->counters) {
        if (rs_counters_init())
            rs_bench_count_with(rs_counters_start, rs_counters_stop);
        rs_markers_init();
    }
    r->cfg = rs_bench_defaults(r->c.quick);
    r->table = new_table(s);
    rs_table_meta_std(r->table, argc, argv);
    s->begin(r);
    meta_counters(s, r->table);
    time_all(s, r);
    if (s->finish)
        s->finish(r);
    rs_table_print(r->table, stdout, s->console_columns);
    s->notes(r);
    write_outputs(r);
    rs_table_free(r->table);
    rs_json_free(r->machine);
    if (s->cleanup)
        s->cleanup(r);
    if (r->wrong)
        fprintf(stderr, "%s: a correctness check failed (see WRONG lines above)\n", rs_progname());
    return r->wrong ? RS_EXIT_WRONG : RS_EXIT_OK;
}

void rs_study_progress(rs_study_run *r, int steps, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->label, sizeof r->label, fmt, ap);
    va_end(ap);
    rs_progress(r->done, r->label);
    r->done += steps;
}

int rs_study_bench(rs_study_run *r, int threads, rs_kernel_fn fn, void *ctx,
                   rs_bench_result *res)
{
    void *ctxs[1] = {ctx};
    return rs_study_bench_rounds(r, threads, 1, fn, ctxs, res);
}

int rs_study_bench_rounds(rs_study_run *r, int threads, int nk, rs_kernel_fn fn,
                          void *const ctx[], rs_bench_result res[])
{
    give_counts(r);
    rs_marker_start(r->label);
    if (rs_bench_rounds(&r->cfg, threads, nk, fn, ctx, res) != 0)
        return rs_interrupt_code();
    rs_marker_stop(r->label);
    for (int k = 0; k < nk && r->npending < RS_STUDY_MAX_SEL; k++)
        r->pending[r->npending++] = res[k];
    return 0;
}

void rs_study_meta_peak_source(rs_study_run *r)
{
    rs_table_meta(r->table, "fma_peak_source", r->machine_path ? r->machine_path : "measured now (quick)");
}

void rs_study_set_per_elem(rs_table *t, int row, const rs_bench_result *r, double elements)
{
    double ns = r->ns.median / elements;
    rs_set_dbl(t, row, "ns_per_elem", ns);
    rs_set_dbl(t, row, "cycles_per_elem", ns * rs_tsc_ghz());
    rs_set_dbl(t, row, "ns_per_elem_min", r->ns.min / elements);
    rs_set_dbl(t, row, "cv", r->ns.cv);
}
