/* cmd_netcheck.c — `study netcheck REAL.csv... SIM.csv`: allreduce measured on a real
 * network (allreduce-bench across scaling/net/netcluster.sh's hosts) against the same
 * algorithms under SMPI on the platform calibrated from that network (study simulate;
 * scaling/net/netcheck.sh runs both).  Rows are matched by (algo, p, bytes); SMPI's
 * smpi:ompi, its model of Open MPI's own choice, stands for the real `library`.  Per
 * row: both medians (p50_us) and the prediction error, simulated / measured - 1.
 * Prints the errors as a Markdown table per rank count (--md writes it), the count
 * within --within, and writes every row with --csv.
 * Given rnn-train CSVs instead (a step_ms_median column: rnn-train across the hosts,
 * and study train-sim on the same platform), rows are matched by ranks, and the error
 * is that of the step's median and of its exchange.
 * Exit: 0 ok, 1 no row matched, 2 bad usage or an unreadable table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsio.h"
#include "opts.h"
#include "record.h"
#include "study.h"
#include "study_def.h"

#define MOST_FILES 8
#define MOST_KEYS 64

static struct {
    const char *csv, *md;
    double within;
} opt = {.within = 0.15};

static const rs_opt options[] = {
    {"csv", RS_OPT_STR, &opt.csv, "FILE", "write the matched rows and their errors (never overwrites)", 0, 0},
    {"md", RS_OPT_STR, &opt.md, "FILE", "write the tables as Markdown (never overwrites)", 0, 0},
    {"within", RS_OPT_DBL, &opt.within, "F", "count the rows within this relative error (default 0.15)", 0, 10},
};
static const char usage[] = "usage: study netcheck REAL.csv [REAL.csv...] SIM.csv [options]\n"
    "Real allreduce-bench medians against SMPI's on the calibrated platform: the error\n"
    "simulated / measured - 1 per (algo, p, bytes); smpi:ompi stands for library.\n"
    "Given rnn-train CSVs and study train-sim's: the step's and the exchange's error per ranks.";

typedef struct {
    char s[64];
} text;

/* A cell as text ("" when unset or absent), as a value: several in one expression. */
static text cell(const rs_table *t, int r, const char *col)
{
    text out;
    study_cell_at(t, r, col, out.s, sizeof out.s);
    return out;
}

static int is(const rs_table *t, int r, const char *col, const char *want)
{
    return strcmp(cell(t, r, col).s, want) == 0;
}

/* Every table of one kind, the first's: allreduce-bench / study simulate, or rnn-train. */
static int has_cols(const rs_table *t, const char *path, int train)
{
    static const char *ar[] = {"algo", "p", "bytes", "p50_us"}, *tr[] = {"ranks", "step_ms_median", "exchange_ms"};
    const char **need = train ? tr : ar;
    for (int i = 0; i < (train ? 3 : 4); i++)
        RS_CHECK(rs_table_col_index(t, need[i]) >= 0, "%s has no column '%s' (%s CSV?)", path, need[i],
                 train ? "like the first, an rnn-train or study train-sim" : "an allreduce-bench or study simulate");
    return 0;
}

/* The simulated row of (algo, p, bytes), or -1. */
static int sim_row(const rs_table *s, const char *algo, const char *p, const char *bytes)
{
    const char *want = strcmp(algo, "library") == 0 ? "smpi:ompi" : algo;
    for (int r = 0; r < rs_table_nrows(s); r++)
        if (is(s, r, "algo", want) && is(s, r, "p", p) && is(s, r, "bytes", bytes) && !is(s, r, "p50_us", ""))
            return r;
    return -1;
}

static void add_key(char keys[][32], int *n, const char *k)
{
    for (int i = 0; i < *n; i++)
        if (strcmp(keys[i], k) == 0)
            return;
    if (*n < MOST_KEYS)
        snprintf(keys[(*n)++], 32, "%s", k);
}

static int by_number(const void *a, const void *b)
{
    double x = atof(a), y = atof(b);
    return (x > y) - (x < y);
}

/* One Markdown table per p: a row per size, a column per algorithm. */
static int tables(FILE *f, void *ctx)
{
    const rs_table *t = ctx;
    char ps[MOST_KEYS][32], algos[MOST_KEYS][32], sizes[MOST_KEYS][32];
    int np = 0, na = 0, ns = 0;
    for (int r = 0; r < rs_table_nrows(t); r++) {
        add_key(ps, &np, cell(t, r, "p").s);
        add_key(algos, &na, cell(t, r, "algo").s);
        add_key(sizes, &ns, cell(t, r, "bytes").s);
    }
    qsort(ps, (size_t)np, sizeof ps[0], by_number);
    qsort(sizes, (size_t)ns, sizeof sizes[0], by_number);
    for (int i = 0; i < np; i++) {
        fprintf(f, "\nPrediction error at p = %s (simulated / measured - 1, medians):\n\n| bytes |", ps[i]);
        for (int a = 0; a < na; a++)
            fprintf(f, " %s |", algos[a]);
        fprintf(f, "\n|---:|");
        for (int a = 0; a < na; a++)
            fprintf(f, "---:|");
        for (int s = 0; s < ns; s++) {
            fprintf(f, "\n| %s |", sizes[s]);
            for (int a = 0; a < na; a++) {
                text e = {""};
                for (int r = 0; r < rs_table_nrows(t) && !*e.s; r++)
                    if (is(t, r, "p", ps[i]) && is(t, r, "algo", algos[a]) && is(t, r, "bytes", sizes[s]))
                        e = cell(t, r, "error");
                if (*e.s)
                    fprintf(f, " %+.1f%% |", 100 * atof(e.s));
                else
                    fprintf(f, " - |");
            }
        }
        fprintf(f, "\n");
    }
    int in = 0;
    for (int r = 0; r < rs_table_nrows(t); r++)
        in += fabs(atof(cell(t, r, "error").s)) <= opt.within;
    fprintf(f, "\n%d of %d rows within %.0f%%.\n", in, rs_table_nrows(t), 100 * opt.within);
    return 0;
}

static rs_table *match(rs_table **real, int nreal, const rs_table *sim)
{
    static const rs_col cols[] = {{"algo", RS_STR, 0}, {"p", RS_INT, 0}, {"bytes", RS_INT, 0},
                                  {"real_us", RS_DBL, 5}, {"sim_us", RS_DBL, 5}, {"error", RS_DBL, 4}};
    rs_table *t = rs_table_new("netcheck", cols, 6);
    for (int i = 0; i < nreal; i++)
        for (int r = 0; r < rs_table_nrows(real[i]); r++) {
            text algo = cell(real[i], r, "algo"), p = cell(real[i], r, "p"), b = cell(real[i], r, "bytes");
            int s = sim_row(sim, algo.s, p.s, b.s);
            double m = atof(cell(real[i], r, "p50_us").s);
            if (s < 0 || !(m > 0))
                continue;
            double x = atof(cell(sim, s, "p50_us").s);
            int row = rs_table_row(t);
            rs_set_str(t, row, "algo", algo.s);
            rs_set_int(t, row, "p", atol(p.s));
            rs_set_int(t, row, "bytes", atol(b.s));
            rs_set_dbl(t, row, "real_us", m);
            rs_set_dbl(t, row, "sim_us", x);
            rs_set_dbl(t, row, "error", x / m - 1);
        }
    return t;
}

/* rnn-train across the hosts against study train-sim: a row per rank count. */
static rs_table *match_train(rs_table **real, int nreal, const rs_table *sim)
{
    static const rs_col cols[] = {{"ranks", RS_INT, 0},        {"real_step_ms", RS_DBL, 5},
                                  {"sim_step_ms", RS_DBL, 5},  {"step_error", RS_DBL, 4},
                                  {"real_exchange_ms", RS_DBL, 5}, {"sim_exchange_ms", RS_DBL, 5},
                                  {"exchange_error", RS_DBL, 4}};
    rs_table *t = rs_table_new("netcheck_train", cols, 7);
    for (int i = 0; i < nreal; i++)
        for (int r = 0; r < rs_table_nrows(real[i]); r++) {
            text ranks = cell(real[i], r, "ranks");
            int s = -1;
            for (int k = 0; k < rs_table_nrows(sim) && s < 0; k++)
                if (is(sim, k, "ranks", ranks.s) && !is(sim, k, "step_ms_median", ""))
                    s = k;
            double rs = atof(cell(real[i], r, "step_ms_median").s), re = atof(cell(real[i], r, "exchange_ms").s);
            if (s < 0 || !(rs > 0) || !(re > 0))
                continue;
            double ss = atof(cell(sim, s, "step_ms_median").s), se = atof(cell(sim, s, "exchange_ms").s);
            int row = rs_table_row(t);
            rs_set_int(t, row, "ranks", atol(ranks.s));
            rs_set_dbl(t, row, "real_step_ms", rs);
            rs_set_dbl(t, row, "sim_step_ms", ss);
            rs_set_dbl(t, row, "step_error", ss / rs - 1);
            rs_set_dbl(t, row, "real_exchange_ms", re);
            rs_set_dbl(t, row, "sim_exchange_ms", se);
            rs_set_dbl(t, row, "exchange_error", se / re - 1);
        }
    return t;
}

static int train_table(FILE *f, void *ctx)
{
    const rs_table *t = ctx;
    fprintf(f, "| hosts | step measured (ms) | step simulated (ms) | error | exchange measured (ms) | "
               "exchange simulated (ms) | error |\n|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int r = 0; r < rs_table_nrows(t); r++) {
        double v[6];
        static const char *col[] = {"real_step_ms", "sim_step_ms", "step_error", "real_exchange_ms",
                                    "sim_exchange_ms", "exchange_error"};
        for (int i = 0; i < 6; i++)
            v[i] = atof(cell(t, r, col[i]).s);
        fprintf(f, "| %s | %.0f | %.0f | %+.1f%% | %.0f | %.0f | %+.1f%% |\n", cell(t, r, "ranks").s, v[0], v[1],
                100 * v[2], v[3], v[4], 100 * v[5]);
    }
    return 0;
}

int cmd_netcheck(int argc, char **argv)
{
    char *pos[MOST_FILES + 1];
    int npos = MOST_FILES + 1, rc = rs_opts_parse(argc, argv, options, RS_ARRAY_LEN(options), usage, pos, &npos);
    if (rc == 1)
        return 0;
    if (rc == 0 && npos < 2)
        rs_seterr("expected one or more REAL.csv and a SIM.csv (study netcheck --help)"), rc = -1;
    if (rc == 0 && ((opt.csv && rs_check_writable(opt.csv) != 0) || (opt.md && rs_check_writable(opt.md) != 0)))
        rc = -1;
    if (rc != 0)
        return fprintf(stderr, "study netcheck: %s\n", rs_lasterr()), 2;
    rs_table *real[MOST_FILES], *sim = NULL;
    int n = npos - 1, train = 0;
    for (int i = 0; i < npos; i++) {
        rs_table *t = rs_table_read_csv_text(pos[i]);
        if (t && i == 0)
            train = rs_table_col_index(t, "step_ms_median") >= 0;
        if (!t || has_cols(t, pos[i], train) != 0) {   /* the ones read so far, and this one, go */
            fprintf(stderr, "study netcheck: %s\n", rs_lasterr());
            rs_table_free(t);
            for (int j = 0; j < i; j++)
                rs_table_free(real[j]);
            return 2;
        }
        if (i < n)
            real[i] = t;
        else
            sim = t;
    }
    rs_table *t = train ? match_train(real, n, sim) : match(real, n, sim);
    int rows = rs_table_nrows(t);
    int (*md)(FILE *, void *) = train ? train_table : tables;
    md(stdout, t);
    int wrc = (opt.md && rs_write_atomic(opt.md, md, t) != 0) || (opt.csv && rs_table_write_csv(t, opt.csv) != 0);
    if (wrc)
        fprintf(stderr, "study netcheck: %s\n", rs_lasterr());
    for (int i = 0; i < n; i++)
        rs_table_free(real[i]);
    rs_table_free(sim);
    rs_table_free(t);
    if (!wrc && rows == 0)
        fprintf(stderr, "study netcheck: no row of the real tables has a simulated match\n");
    return wrc ? 2 : rows == 0 ? 1 : 0;
}
