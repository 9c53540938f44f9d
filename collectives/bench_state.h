/* bench_state.h — what the files of the `allreduce-bench` driver share: the options as
 * parsed, the run they decide (algorithms, types, modes, sizes, the model), one result
 * row, the message buffers, and each file's entry points.  The driver is split by role
 * (the project keeps C files under 600 lines):
 *   bench_main.c     main and its steps: memory, the model, buffers, plans, the sizes
 *   bench_options.c  the option table, parsing and checking the input (exit 2)
 *   bench_measure.c  one size: the checks and the timed, interleaved rounds
 *   bench_output.c   the tables for people, OSU's layout, --list, the CSV/JSON files
 * State is global (SMPI privatizes it per rank), set up in that order by main. */
#ifndef RS_AR_BENCH_STATE_H
#define RS_AR_BENCH_STATE_H

#include <stddef.h>

#include "allreduce.h"
#include "bench_fit.h"
#include "opts.h"
#include "record.h"

#define MAX_SIZES 64
#define MAX_ALGOS 32

/* ---- options (bench_options.c): a line per field ---- */
typedef struct {
    rs_common_opts c;
    const char *algos;      /* --algo LIST|all */
    const char *msize;      /* --message-size / -m [MIN:]MAX */
    const char *sizes_file; /* --sizes FILE */
    const char *dtypes;     /* --dtype LIST */
    const char *op;         /* --op sum|max */
    int inplace;            /* --inplace: MPI_IN_PLACE */
    long iters, warmup;     /* --iters / --warmup (-1: OSU defaults with caps) */
    double max_time;        /* --max-time S per row */
    const char *mode;       /* --mode isolated|backtoback|both */
    long group_size;        /* --group-size G (hier, torus2d) */
    long segment;           /* --segment-size BYTES (segring) */
    const char *inner;      /* --inner NAME (hier) */
    long group_max;         /* --group-max G (hier) */
    long granule;           /* --granule N: reduce-scatter blocks in whole N elements */
    long seed;              /* --seed N for the checking inputs */
    int no_check;           /* --no-check */
    int timed_only;         /* --timed-only: no checked call before the timed ones */
    int osu;                /* --osu: OSU's output layout */
    double alpha_us;        /* --alpha-us: model latency (default: fitted) */
    double link_gbs;        /* --link-gbytes-per-s: 1/beta (default: fitted) */
    double reduce_gbs;      /* --reduce-gbytes-per-s: 1/gamma (default: fitted) */
    int list;               /* --list */
} bench_options;

extern bench_options bench_opt;

/* ---- what to run: decided from argv and p, identical on every rank ---- */
typedef struct {
    const ar_algo *algo;
    ar_params prm;
    char name[32];
    char plan_name[32], describe[160];  /* as its plan reported them (metadata) */
} selection;

typedef struct {
    int rank, p;
    selection sel[MAX_ALGOS];
    int nsel;
    ar_dtype dtypes[AR_NDTYPES];
    int ndtypes;
    ar_op op;
    int modes[2], nmodes;      /* 0 isolated, 1 backtoback */
    long sizes[MAX_SIZES];
    int nsizes;
    int ranks_per_node;
    ar_model_range model;
    char model_how[384];
} bench_state;

extern bench_state bench_run;   /* bench_main.c */

static inline const char *bench_mode_name(int m) { return m == 0 ? "isolated" : "backtoback"; }

/* ---- results: one row per algorithm, size, type and mode ---- */
typedef struct {
    const char *algo;
    long bytes;
    ar_dtype dtype;
    int mode;
    long iters;
    double avg_us, min_us, max_us, p50_us, p99_us, model_us, model_hi_us;
    long long wrong;
} row;

/* The rows of one element type, [mode][size][algorithm]. */
static inline row *bench_row_at(row *rows, int mi, int s, int a)
{
    size_t at = ((size_t)mi * (size_t)bench_run.nsizes + (size_t)s) * (size_t)bench_run.nsel + (size_t)a;
    return &rows[at];
}

typedef struct {
    char *send, *recv;  /* max-size buffers, first-touched by the checks */
    double *t_iter;     /* [nsel][max_iters]: per-iteration times of this rank */
    double *t_slow;     /* per-iteration maximum over ranks (rank 0) */
    long max_iters;
} buffers;

/* ---- bench_options.c ---- */
/* Bad input: one line from rank 0, every rank finalizes, exit 2. */
void bench_usage_exit(const char *msg);
/* Does any argument ask for library:K?  Decided before MPI_Init, from argv alone. */
int bench_wants_forced_library(int argc, char **argv);
/* OSU's -m, -i, -x as the long options (a new argv; the caller frees it). */
char **bench_translate_short(int argc, char **argv);
/* --help and --list are answered here (1: main finalizes and exits 0); otherwise the
 * parser's status goes to *rc. */
int bench_parse_options(int argc, char **args, int *rc);
/* Everything decided from argv and p into bench_run: 0, or -1 (rs_lasterr). */
int bench_validate(void);
/* Rank 0's own checks, then everyone learns the verdict (exit 2 if bad) and the sizes. */
void bench_agree_on_input(int rc);

/* ---- bench_measure.c ---- */
/* One size of type t in one mode: every algorithm checked, then timed; its rows (one per
 * algorithm) into rows[0..nsel).  0, or -1 (rs_lasterr). */
int bench_measure_size(ar_plan **plans, ar_dtype t, long bytes, int size_index, int mode,
                       buffers *b, row *rows);

/* ---- bench_output.c ---- */
rs_table *bench_new_table(void);   /* the CSV/JSON table, allreduce-bench's columns */
void bench_print_header(void);
void bench_list_algorithms(void);
void bench_print_block(row *rows, int mi, int s, long bytes, ar_dtype t, int mode);
void bench_add_file_rows(rs_table *all, row *rows, int mi, int mode, ar_dtype t);
int bench_write_files(rs_table *all, int argc, char **argv, long long wrong_total);

#endif
