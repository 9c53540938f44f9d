/* simulate_write.c — build/bin/simulate-write: the result files of a script's collector
 * (scaling/converge_collect.sh).  The script assembles its rows as one CSV; this reads
 * it back (common/record.c) and writes the CSV and the JSON the C programs write —
 * {"study", "meta", "columns", "rows"} — atomically and never overwriting (common/fsio.c).
 *
 *   simulate-write --rows ROWS.csv --study simulate --meta META.txt \
 *                  --csv out.csv --json out.json
 *
 * META.txt: one "KEY VALUE..." per line (the value is the rest of the line), in the
 * order the JSON lists them.  The CSV prints numbers as ROWS.csv had them.
 * Exit: 0 ok, 2 bad input or a file that cannot be written (one line on stderr). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsio.h"
#include "meta_file.h"
#include "opts.h"
#include "record.h"

static struct {
    const char *rows, *study, *meta, *csv, *json;
} opt = {.study = "simulate"};

static const rs_opt options[] = {
    {"rows", RS_OPT_STR, &opt.rows, "FILE", "the rows, as CSV with a header (required)", 0, 0},
    {"study", RS_OPT_STR, &opt.study, "NAME", "the JSON's study (default simulate)", 0, 0},
    {"meta", RS_OPT_STR, &opt.meta, "FILE", "metadata, one \"KEY VALUE\" per line", 0, 0},
    {"csv", RS_OPT_STR, &opt.csv, "FILE", "write the rows as CSV (never overwrites)", 0, 0},
    {"json", RS_OPT_STR, &opt.json, "FILE", "write rows and metadata as JSON (never overwrites)", 0, 0},
};

static const char usage[] =
    "usage: simulate-write --rows ROWS.csv [--study NAME] [--meta FILE] [--csv FILE] [--json FILE]\n"
    "Writes a collector's result files from the CSV it assembled.\n"
    "Exit: 0 ok, 2 bad input or a file that cannot be written.";

/* The rows read back under the study's name (rs_table_read_csv names a table after
 * its file); number columns keep the digits their cells had. */
static rs_table *as_study(const rs_table *in, const char *study)
{
    int nc = rs_table_ncols(in), nr = rs_table_nrows(in);
    rs_col cols[256];
    for (int c = 0; c < nc && c < 256; c++)
        cols[c] = *rs_table_col(in, c);
    rs_table *t = rs_table_new(study, cols, nc);
    for (int r = 0; r < nr; r++) {
        int row = rs_table_row(t);
        for (int c = 0; c < nc; c++) {
            if (!rs_cell_isset(in, r, c))
                continue;
            if (cols[c].type == RS_DBL)
                rs_set_dbl(t, row, cols[c].name, rs_cell_dbl(in, r, c));
            else
                rs_set_str(t, row, cols[c].name, rs_cell_str(in, r, c));
        }
    }
    return t;
}

static int write_files(void)
{
    rs_table *in = rs_table_read_csv(opt.rows);
    if (!in)
        return -1;
    rs_table *t = as_study(in, opt.study);
    rs_table_free(in);
    int rc = opt.meta ? meta_file_read(t, opt.meta) : 0;
    if (rc == 0 && opt.csv)
        rc = rs_table_write_csv(t, opt.csv);
    if (rc == 0 && opt.json)
        rc = rs_table_write_json(t, opt.json);
    rs_table_free(t);
    return rc;
}

int main(int argc, char **argv)
{
    rs_set_progname("simulate-write");
    int rc = rs_opts_parse(argc, argv, options, RS_ARRAY_LEN(options), usage, NULL, NULL);
    if (rc == 1)
        return RS_EXIT_OK;
    if (rc == 0 && !opt.rows) {
        rs_seterr("--rows: missing (the CSV to write from)");
        rc = -1;
    }
    if (rc == 0) {
        rs_install_signal_handlers();
        rc = write_files();
    }
    if (rc != 0) {
        fprintf(stderr, "%s: %s\n", rs_progname(), rs_lasterr());
        return RS_EXIT_USAGE;
    }
    return RS_EXIT_OK;
}
