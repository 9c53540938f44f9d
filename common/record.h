/* record.h — the one result-record type and its three printers.
 *
 * A study produces an rs_table: named, typed columns (snake_case, unit as suffix,
 * e.g. ns_per_elem) and rows of values, plus metadata key/value pairs (command line,
 * commit, machine) that travel with it.  The same table prints as an aligned table
 * for people, as CSV (one header row) and as JSON for tools:
 *   {"study": "exp", "meta": {...}, "columns": [...], "rows": [{...}, ...]}
 * A value never set prints as "-" (table), empty (CSV) or null (JSON). */
#ifndef RS_RECORD_H
#define RS_RECORD_H

#include <stddef.h>
#include <stdio.h>

typedef enum { RS_STR, RS_INT, RS_DBL } rs_type;

typedef struct {
    const char *name;   /* column name, snake_case with unit suffix */
    rs_type type;
    int digits;         /* RS_DBL: significant digits in table and CSV (0 = 4) */
} rs_col;

typedef struct rs_table rs_table;

rs_table *rs_table_new(const char *study, const rs_col *cols, int ncols);
void rs_table_free(rs_table *t);

/* Metadata, kept in insertion order; a repeated key replaces the value. */
int rs_table_meta(rs_table *t, const char *key, const char *value);
const char *rs_table_meta_get(const rs_table *t, const char *key);

/* Start a new row; returns its index.  Then set its cells by column name.
 * Setting an unknown column is a programming error (aborts with the name). */
int rs_table_row(rs_table *t);
void rs_set_str(rs_table *t, int row, const char *col, const char *v);
void rs_set_int(rs_table *t, int row, const char *col, long long v);
void rs_set_dbl(rs_table *t, int row, const char *col, double v);

int rs_table_nrows(const rs_table *t);
int rs_table_ncols(const rs_table *t);
const rs_col *rs_table_col(const rs_table *t, int c);
int rs_table_col_index(const rs_table *t, const char *name); /* -1 if none */
const char *rs_table_study(const rs_table *t);
/* Cell access: is_set, and values (a string cell's text; numbers as stored). */
int rs_cell_isset(const rs_table *t, int row, int col);
const char *rs_cell_str(const rs_table *t, int row, int col);
long long rs_cell_int(const rs_table *t, int row, int col);
double rs_cell_dbl(const rs_table *t, int row, int col);
/* A cell as text ("" when unset): numbers in the fewest digits that read back to the
 * same value (a CSV's "0.05" reads back as 0.05, not 0.050000000000000003). */
void rs_cell_text(const rs_table *t, int row, int col, char *buf, size_t len);
/* The same for one number: integers whole (58), others in the fewest %g digits. */
void rs_shortest(double v, char *buf, size_t len);

/* Printers.  The table printer shows only `cols` (comma-separated names) if given. */
int rs_table_print(const rs_table *t, FILE *f, const char *cols);
int rs_table_print_csv(const rs_table *t, FILE *f);
int rs_table_print_json(const rs_table *t, FILE *f);

/* Atomic, never-overwriting files (see fsio.h): refuse an existing path. */
int rs_table_write_csv(const rs_table *t, const char *path);
int rs_table_write_json(const rs_table *t, const char *path);

/* Read back what rs_table_write_csv wrote: every column typed as the header says
 * nothing about types, so cells that parse fully as numbers become RS_DBL, others RS_STR.
 * Returns NULL (rs_lasterr) on a missing file or malformed CSV. */
rs_table *rs_table_read_csv(const char *path);
/* The same, every column RS_STR and each cell's text as written ("1.50" stays "1.50"):
 * for a reader that quotes cells, or formats them as the file has them. */
rs_table *rs_table_read_csv_text(const char *path);

/* A table of text cells (RS_STR columns: a collector's rows) typed as the reader
 * types a CSV's, under `study`, its metadata copied: written, it reads back alike. */
rs_table *rs_table_typed(const rs_table *text, const char *study);

#endif
