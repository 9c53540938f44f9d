/* kernel_study.h — the one driver of the microbench studies (`microbench exp`, `softmax`,
 * `gemm`), as nccl-tests' common harness drives one small struct per collective.
 *
 * rs_study_main() is the command's main: it parses the options, answers --list, reads
 * the thread list (default 1,<ncpus>), checks that the outputs can be written, loads
 * --machine, selects the rows, runs the correctness pass, times every (thread count,
 * input) behind a progress line, prints the table and the study's notes, writes the
 * CSV/JSON and returns 0, or 1 when a WRONG line was printed.  Bad input exits 2 and
 * Ctrl-C 130, here only: a study's hooks return 0 or the exit code (after rs_seterr).
 *
 * A study fills one rs_study with what is its own: options, inputs (sizes, shapes),
 * kernels, checks, bounds, columns and targets.  Options it gets from the runner, in
 * this order around its own: --variant and --isa (when it has a registry), its opts,
 * --threads, --machine, its late_opts, --list, then --csv, --json, --quick.
 *
 * Every study's table ends in the columns cycles, instructions and fp_ops: PAPI counts
 * per repetition of the kernel (bench.h), empty where nothing counted, with the reason
 * in the metadata key "counters".  The runner fills them: the rows a time_item adds
 * after an rs_study_bench* call take that call's counts, one row per kernel, in order. */
#ifndef RS_KERNEL_STUDY_H
#define RS_KERNEL_STUDY_H

#include "bench.h"
#include "json.h"
#include "opts.h"
#include "record.h"
#include "registry.h"

#define RS_STUDY_MAX_THREADS 16
#define RS_STUDY_MAX_SEL 64

typedef struct rs_study rs_study;

/* One run: the runner fills it; the hooks read it and add to table and wrong. */
typedef struct {
    const rs_study *study;
    rs_common_opts c;            /* --csv, --json, --quick */
    const char *variants, *isas; /* --variant, --isa (NULL: all) */
    const char *threads_arg;     /* --threads */
    const char *machine_path;    /* --machine */
    int list;                    /* --list */
    int threads[RS_STUDY_MAX_THREADS], nthreads;
    int ninputs;                 /* what prepare returned */
    int nitems;                  /* items timed per thread count (default ninputs) */
    rs_json *machine;            /* --machine's contents, or NULL */
    const void *sel[RS_STUDY_MAX_SEL]; /* the selected rows, in registry order */
    int nsel;
    rs_bench_cfg cfg;
    rs_table *table;
    int wrong;                   /* 1: a correctness check failed (a WRONG line) */
    int done;                    /* progress steps so far */
    char label[160];             /* the current progress label, also the marker region */
    rs_bench_result pending[RS_STUDY_MAX_SEL]; /* timings whose row is not added yet */
    int npending, rows_counted;  /* ... and the rows that already had theirs */
} rs_study_run;

struct rs_study {
    const char *name;            /* "exp": the table's study name */
    const char *usage;
    /* Rows --variant/--isa select (each a struct with a name and an rs_isa); NULL when
     * the study selects by itself (select below). */
    const rs_registry *registry;
    const char *variant_help;
    /* The row's "(what runs)" in "skipped: NAME ISA (WHAT): this CPU lacks ISA"; NULL: none. */
    const char *(*detail)(const void *row);
    const rs_opt *opts, *late_opts;
    int nopts, nlate_opts;
    const char *threads_help, *machine_help, *list_help; /* NULL: the common wording */
    const rs_col *columns;
    int ncols;
    const char *console_columns; /* the columns printed, in order */
    int counters;                /* 1: PAPI counters and likwid markers on */

    void (*print_list)(const rs_study_run *r);
    /* Its inputs (sizes, shapes) from its options: how many, or -1 (rs_lasterr). */
    int (*prepare)(rs_study_run *r);
    const char *no_inputs;       /* the error when prepare found none */
    int (*select)(rs_study_run *r);      /* optional: fill sel/nsel by itself */
    int (*before)(rs_study_run *r);      /* the correctness pass, before any timing */
    void (*begin)(rs_study_run *r);      /* table metadata, cfg changes */
    int (*steps)(const rs_study_run *r, int ti, int item); /* optional: default nsel */
    int (*thread_count)(rs_study_run *r, int ti);  /* optional: before its items */
    int (*time_item)(rs_study_run *r, int ti, int item);  /* one row or a group */
    void (*finish)(rs_study_run *r);     /* optional: after timing, before printing */
    void (*notes)(rs_study_run *r);      /* after the table: notes and targets */
    void (*cleanup)(rs_study_run *r);    /* optional */
};

/* Runs the study on argv; returns the exit code (0 or 1) or exits (2, 130). */
int rs_study_main(const rs_study *s, int argc, char **argv);

/* The progress line: label (printf) counts as `steps` steps from here. */
void rs_study_progress(rs_study_run *r, int steps, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* rs_bench / rs_bench_rounds with r->cfg inside the likwid region r->label:
 * 0, or RS_EXIT_INTR (interrupted). */
int rs_study_bench(rs_study_run *r, int threads, rs_kernel_fn fn, void *ctx,
                   rs_bench_result *res);
int rs_study_bench_rounds(rs_study_run *r, int threads, int nk, rs_kernel_fn fn,
                          void *const ctx[], rs_bench_result res[]);

/* The per-element timing columns of the element-wise studies, in this order, and their
 * values from a timing of `elements` elements per repetition (ns: the median). */
#define RS_STUDY_PER_ELEM_COLUMNS                                                        \
    {"ns_per_elem", RS_DBL, 4}, {"cycles_per_elem", RS_DBL, 4},                          \
    {"ns_per_elem_min", RS_DBL, 4}, {"cv", RS_DBL, 2}
void rs_study_set_per_elem(rs_table *t, int row, const rs_bench_result *r, double elements);

/* The "fma_peak_source" metadata: --machine's path, or that it was measured now. */
void rs_study_meta_peak_source(rs_study_run *r);

#endif
