/* opts.h — command-line options from one table, with clear one-line errors.
 *
 * Each program describes its options in one static rs_opt table (name, kind, where
 * to store, help, and the range each number is checked against before any work: NaN,
 * inf and numbers that overflow are refused).  Errors say which option, what was wrong
 * and what is expected (the starting value as the example, when in range), e.g.
 *   "--n: 'abc' is not a size (expected a positive integer like 4096, 64k, 1M)"
 *   "--bucket-mib 1e300: out of range (expected a number > 0 and <= 4096, e.g. 25)".
 * Sizes accept k/M/G (powers of 1024) suffixes.  --help prints the usage generated
 * from the table. */
#ifndef RS_OPTS_H
#define RS_OPTS_H

#include <stdio.h>

typedef enum {
    RS_OPT_FLAG,  /* int*: set to 1 */
    RS_OPT_INT,   /* long*: integer in [min, max] */
    RS_OPT_SIZE,  /* long*: integer with k/M/G suffix, in [min, max] */
    RS_OPT_DBL,   /* double*: a finite number, in [min, max] */
    RS_OPT_DBL_GT,/* double*: a finite number > min and <= max (a rate, a size in MiB) */
    RS_OPT_STR,   /* const char**: the argument as given */
    RS_OPT_STRS,  /* rs_opt_strs*: an option that may be repeated, every argument in order */
} rs_opt_kind;

/* RS_OPT_STRS's destination: the arguments in v[0..n-1], at most max of them. */
typedef struct {
    const char **v;
    int n, max;
} rs_opt_strs;

typedef struct {
    const char *name;     /* long name without dashes: "threads" */
    rs_opt_kind kind;
    void *dest;
    const char *metavar;  /* "N", "FILE", "LIST"; NULL for flags */
    const char *help;     /* one line */
    double min, max;      /* RS_OPT_INT / SIZE / DBL / DBL_GT bounds (both 0 = no bounds) */
} rs_opt;

/* Parses argv[1..argc-1].  Positional arguments are refused unless npos != NULL,
 * where they are returned in pos[0..*npos-1] (argv pointers).  Returns 0 on success,
 * 1 if --help was given (usage printed to stdout), -1 on error (rs_lasterr). */
int rs_opts_parse(int argc, char **argv, const rs_opt *opts, int nopts, const char *usage,
                  char **pos, int *npos);
/* The same, but a lone "--" ends the options (elsewhere it is a positional argument):
 * *rest is the index of the argument after it, or argc without one — where the flags
 * of another program, passed on as they are, start. */
int rs_opts_parse_rest(int argc, char **argv, const rs_opt *opts, int nopts, const char *usage,
                       char **pos, int *npos, int *rest);
void rs_opts_usage(FILE *f, const rs_opt *opts, int nopts, const char *usage);

/* Parse "4096", "64k", "1M" (powers of 1024). 0 ok, -1 bad. */
int rs_parse_size(const char *s, long *out);

/* Split a comma list "a,b,c" in place into at most max items; returns the count. */
int rs_split_list(char *s, char **items, int max);

/* ---- name lists: --variant a,b / --isa avx2 / --backend all ---- */

/* The index of name in names[0..n-1] (a table naming an enum's values), or -1. */
int rs_name_index(const char *const *names, int n, const char *name);

/* 1 if `name` is an item of the comma list, or the list is NULL or contains "all". */
int rs_list_has(const char *list, const char *name);

/* Every item of the comma list must be "all" or one of names[0..n-1] (repeats in names
 * are fine): a typo is an error, not a silent no-op.  The error reads
 *   "--FLAG: unknown WHAT 'x' (expected one of: a, b, c, or all)".  0 ok, -1 error. */
int rs_list_check(const char *flag, const char *what, const char *list,
                  const char *const *names, int n);

/* ---- options every driver shares: --csv, --json, --quick ---- */
typedef struct {
    const char *csv;   /* --csv FILE */
    const char *json;  /* --json FILE */
    int quick;         /* --quick */
} rs_common_opts;

#define RS_COMMON_OPTS(c)                                                               \
    {"csv", RS_OPT_STR, &(c).csv, "FILE", "also write the results as CSV (never overwrites)", 0, 0}, \
    {"json", RS_OPT_STR, &(c).json, "FILE", "also write the results as JSON (never overwrites)", 0, 0}, \
    {"quick", RS_OPT_FLAG, &(c).quick, NULL, "a short smoke run (fewer sizes and samples)", 0, 0}

/* Before the work: fail if an output exists or cannot be written. */
int rs_common_check_outputs(const rs_common_opts *c);

/* Parse a thread list "1,2" or "all" (= online CPUs) into out[0..n-1]; each in
 * 1..1024.  Returns n, or -1 (rs_lasterr). */
int rs_parse_threads(const char *s, int *out, int max);

#endif
