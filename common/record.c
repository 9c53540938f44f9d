/* record.c — the result table and its printers (aligned table, CSV, JSON).
 * Cells are stored typed; numbers print with the column's significant digits in the
 * table and CSV, and with full precision (%.17g) in JSON. */
#include "record.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsio.h"
#include "json.h"

typedef struct {
    int set;
    char *s;
    long long i;
    double d;
} cell;

struct rs_table {
    char *study;
    rs_col *cols;
    int ncols;
    cell *cells;   /* nrows x ncols */
    int nrows, cap;
    char **mkeys, **mvals;
    int nmeta;
};

static char *dupstr(const char *s)
{
    char *d = strdup(s ? s : "");
    RS_ASSERT(d != NULL);
    return d;
}

rs_table *rs_table_new(const char *study, const rs_col *cols, int ncols)
{
    rs_table *t = calloc(1, sizeof *t);
    RS_ASSERT(t != NULL);
    t->study = dupstr(study);
    t->cols = calloc((size_t)ncols, sizeof *t->cols);
    RS_ASSERT(t->cols != NULL);
    for (int c = 0; c < ncols; c++) {
        t->cols[c] = cols[c];
        t->cols[c].name = dupstr(cols[c].name);
    }
    t->ncols = ncols;
    return t;
}

void rs_table_free(rs_table *t)
{
    if (!t)
        return;
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < t->ncols; c++)
            free(t->cells[r * t->ncols + c].s);
    for (int c = 0; c < t->ncols; c++)
        free((char *)t->cols[c].name);
    for (int m = 0; m < t->nmeta; m++) {
        free(t->mkeys[m]);
        free(t->mvals[m]);
    }
    free(t->mkeys);
    free(t->mvals);
    free(t->cols);
    free(t->cells);
    free(t->study);
    free(t);
}

int rs_table_meta(rs_table *t, const char *key, const char *value)
{
    for (int m = 0; m < t->nmeta; m++)
        if (strcmp(t->mkeys[m], key) == 0) {
            free(t->mvals[m]);
            t->mvals[m] = dupstr(value);
            return 0;
        }
    t->mkeys = realloc(t->mkeys, sizeof *t->mkeys * (size_t)(t->nmeta + 1));
    t->mvals = realloc(t->mvals, sizeof *t->mvals * (size_t)(t->nmeta + 1));
    RS_ASSERT(t->mkeys && t->mvals);
    t->mkeys[t->nmeta] = dupstr(key);
    t->mvals[t->nmeta++] = dupstr(value);
    return 0;
}

const char *rs_table_meta_get(const rs_table *t, const char *key)
{
    for (int m = 0; m < t->nmeta; m++)
        if (strcmp(t->mkeys[m], key) == 0)
            return t->mvals[m];
    return NULL;
}

int rs_table_row(rs_table *t)
{
    if (t->nrows == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->cells = realloc(t->cells, sizeof *t->cells * (size_t)t->cap * (size_t)t->ncols);
        RS_ASSERT(t->cells != NULL);
    }
    memset(&t->cells[t->nrows * t->ncols], 0, sizeof *t->cells * (size_t)t->ncols);
    return t->nrows++;
}

int rs_table_col_index(const rs_table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (strcmp(t->cols[c].name, name) == 0)
            return c;
    return -1;
}

static cell *cell_at(rs_table *t, int row, const char *col)
{
    int c = rs_table_col_index(t, col);
    if (c < 0 || row < 0 || row >= t->nrows) {
        fprintf(stderr, "internal error: table %s has no cell (%d, %s)\n", t->study, row, col);
        abort();
    }
    return &t->cells[row * t->ncols + c];
}

void rs_set_str(rs_table *t, int row, const char *col, const char *v)
{
    cell *x = cell_at(t, row, col);
    free(x->s);
    x->s = dupstr(v);
    x->set = 1;
}

void rs_set_int(rs_table *t, int row, const char *col, long long v)
{
    cell *x = cell_at(t, row, col);
    x->i = v;
    x->d = (double)v;
    x->set = 1;
}

/* A number's integer view, saturated (a cast out of range is undefined); NaN gives 0. */
static long long as_int(double v)
{
    if (isnan(v))
        return 0;
    return v >= 0x1p63 ? LLONG_MAX : v < -0x1p63 ? LLONG_MIN : (long long)v;
}

void rs_set_dbl(rs_table *t, int row, const char *col, double v)
{
    cell *x = cell_at(t, row, col);
    x->d = v;
    x->i = as_int(v);
    x->set = 1;
}

int rs_table_nrows(const rs_table *t) { return t->nrows; }
int rs_table_ncols(const rs_table *t) { return t->ncols; }
const rs_col *rs_table_col(const rs_table *t, int c) { return &t->cols[c]; }
const char *rs_table_study(const rs_table *t) { return t->study; }

static const cell *cget(const rs_table *t, int row, int col)
{
    RS_ASSERT(row >= 0 && row < t->nrows && col >= 0 && col < t->ncols);
    return &t->cells[row * t->ncols + col];
}

int rs_cell_isset(const rs_table *t, int row, int col) { return cget(t, row, col)->set; }
const char *rs_cell_str(const rs_table *t, int row, int col) { const cell *x = cget(t, row, col); return x->s ? x->s : ""; }
long long rs_cell_int(const rs_table *t, int row, int col) { return cget(t, row, col)->i; }
double rs_cell_dbl(const rs_table *t, int row, int col) { return cget(t, row, col)->d; }

/* A cell as text for the table and CSV: "" when unset. */
static void fmt_cell(const rs_table *t, int r, int c, char *buf, size_t len)
{
    const cell *x = cget(t, r, c);
    const rs_col *col = &t->cols[c];
    buf[0] = 0;
    if (!x->set)
        return;
    switch (col->type) {
    case RS_STR: snprintf(buf, len, "%s", x->s ? x->s : ""); break;
    case RS_INT: snprintf(buf, len, "%lld", x->i); break;
    case RS_DBL:
        if (isnan(x->d))
            snprintf(buf, len, "nan");
        else if (isinf(x->d))
            snprintf(buf, len, x->d > 0 ? "inf" : "-inf");
        else
            snprintf(buf, len, "%.*g", col->digits > 0 ? col->digits : 4, x->d);
        break;
    }
}

void rs_cell_text(const rs_table *t, int r, int c, char *buf, size_t len)
{
    const cell *x = cget(t, r, c);
    if (!x->set || t->cols[c].type != RS_DBL || !isfinite(x->d)) {
        fmt_cell(t, r, c, buf, len);
        return;
    }
    rs_shortest(x->d, buf, len);
}

void rs_shortest(double v, char *buf, size_t len)
{
    if (v == floor(v) && fabs(v) < 1e15) {   /* 58, not 6e+01 */
        snprintf(buf, len, "%.0f", v);
        return;
    }
    for (int d = 1; d <= 17; d++) {
        snprintf(buf, len, "%.*g", d, v);
        if (strtod(buf, NULL) == v)
            break;
    }
}

/* Column list "a,b,c" -> indices; NULL or "" means all. */
static int select_cols(const rs_table *t, const char *cols, int *idx)
{
    if (!cols || !*cols) {
        for (int c = 0; c < t->ncols; c++)
            idx[c] = c;
        return t->ncols;
    }
    int n = 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", cols);
    for (char *tok = strtok(buf, ","); tok && n < t->ncols; tok = strtok(NULL, ",")) {
        int c = rs_table_col_index(t, tok);
        if (c >= 0)
            idx[n++] = c;
    }
    return n;
}

int rs_table_print(const rs_table *t, FILE *f, const char *cols)
{
    int idx[256], n = select_cols(t, cols, idx), w[256];
    char buf[256];
    for (int k = 0; k < n; k++) {
        w[k] = (int)strlen(t->cols[idx[k]].name);
        for (int r = 0; r < t->nrows; r++) {
            fmt_cell(t, r, idx[k], buf, sizeof buf);
            int l = buf[0] ? (int)strlen(buf) : 1;
            if (l > w[k])
                w[k] = l;
        }
    }
    /* Text left-aligned, numbers right-aligned, as people read them. */
    for (int k = 0; k < n; k++)
        fprintf(f, "%s%*s", k ? "  " : "", t->cols[idx[k]].type == RS_STR ? -w[k] : w[k],
                t->cols[idx[k]].name);
    fputc('\n', f);
    for (int r = 0; r < t->nrows; r++) {
        for (int k = 0; k < n; k++) {
            fmt_cell(t, r, idx[k], buf, sizeof buf);
            fprintf(f, "%s%*s", k ? "  " : "", t->cols[idx[k]].type == RS_STR ? -w[k] : w[k],
                    buf[0] ? buf : "-");
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

static void csv_field(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\n\r") == NULL) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

int rs_table_print_csv(const rs_table *t, FILE *f)
{
    char buf[4096];
    for (int c = 0; c < t->ncols; c++) {
        if (c)
            fputc(',', f);
        csv_field(f, t->cols[c].name);
    }
    fputc('\n', f);
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            if (c)
                fputc(',', f);
            const cell *x = cget(t, r, c);
            if (x->set && t->cols[c].type == RS_DBL && isfinite(x->d))
                snprintf(buf, sizeof buf, "%.*g", t->cols[c].digits > 6 ? t->cols[c].digits : 6, x->d);
            else
                fmt_cell(t, r, c, buf, sizeof buf);
            csv_field(f, buf);
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

int rs_table_print_json(const rs_table *t, FILE *f)
{
    rs_jw w;
    rs_jw_init(&w, f);
    rs_jw_obj_begin(&w);
    rs_jw_kstr(&w, "study", t->study);
    rs_jw_key(&w, "meta");
    rs_jw_obj_begin(&w);
    for (int m = 0; m < t->nmeta; m++)
        rs_jw_kstr(&w, t->mkeys[m], t->mvals[m]);
    rs_jw_obj_end(&w);
    rs_jw_key(&w, "columns");
    rs_jw_arr_begin(&w);
    for (int c = 0; c < t->ncols; c++)
        rs_jw_str(&w, t->cols[c].name);
    rs_jw_arr_end(&w);
    rs_jw_key(&w, "rows");
    rs_jw_arr_begin(&w);
    for (int r = 0; r < t->nrows; r++) {
        rs_jw_obj_begin(&w);
        for (int c = 0; c < t->ncols; c++) {
            const cell *x = cget(t, r, c);
            rs_jw_key(&w, t->cols[c].name);
            if (!x->set)
                rs_jw_null(&w);
            else if (t->cols[c].type == RS_STR)
                rs_jw_str(&w, x->s);
            else if (t->cols[c].type == RS_INT)
                rs_jw_int(&w, x->i);
            else
                rs_jw_dbl(&w, x->d);
        }
        rs_jw_obj_end(&w);
    }
    rs_jw_arr_end(&w);
    rs_jw_obj_end(&w);
    return ferror(f) ? -1 : 0;
}

static int csv_writer(FILE *f, void *t) { return rs_table_print_csv(t, f); }
static int json_writer(FILE *f, void *t) { return rs_table_print_json(t, f); }

int rs_table_write_csv(const rs_table *t, const char *path)
{
    return rs_write_atomic(path, csv_writer, (void *)t);
}

int rs_table_write_json(const rs_table *t, const char *path)
{
    return rs_write_atomic(path, json_writer, (void *)t);
}

/* ---- CSV reader: RFC 4180 quoting, as written above ---- */

/* Reads one field starting at *p; returns malloc'd text; *p after the delimiter. */
static char *csv_read_field(const char **p, int *end_of_line)
{
    const char *s = *p;
    size_t cap = strlen(s) + 1, n = 0;
    char *out = malloc(cap);
    RS_ASSERT(out != NULL);
    if (*s == '"') {
        s++;
        while (*s && !(*s == '"' && s[1] != '"')) {
            if (*s == '"')
                s++;
            out[n++] = *s++;
        }
        if (*s == '"')
            s++;
    } else {
        while (*s && *s != ',' && *s != '\n' && *s != '\r')
            out[n++] = *s++;
    }
    out[n] = 0;
    if (*s == '\r')
        s++;
    *end_of_line = *s != ',';
    if (*s)
        s++;
    *p = s;
    return out;
}

/* Significant digits of a number as text ("1.25e+09": 3, "1728888000": 10), at most 17. */
static int csv_digits(const char *s)
{
    int n = 0, lead = 1;
    for (; *s && *s != 'e' && *s != 'E'; s++) {
        if (*s < '0' || *s > '9' || (lead && *s == '0'))
            continue;
        lead = 0;
        n++;
    }
    return n < 17 ? n : 17;
}

rs_table *rs_table_typed(const rs_table *text, const char *study)
{
    int ncols = text->ncols, nrows = text->nrows;
    rs_col *cols = malloc(sizeof *cols * (size_t)(ncols > 0 ? ncols : 1));
    RS_ASSERT(cols != NULL);
    /* A column is numeric if every set cell parses fully as a number. */
    for (int c = 0; c < ncols; c++) {
        int numeric = 1, digits = 6;
        for (int r = 0; r < nrows && numeric; r++) {
            const char *s = rs_cell_str(text, r, c);
            char *end;
            if (rs_cell_isset(text, r, c) && *s) {
                strtod(s, &end);
                numeric = *end == 0;
                digits = csv_digits(s) > digits ? csv_digits(s) : digits;
            }
        }
        cols[c] = (rs_col){text->cols[c].name, numeric ? RS_DBL : RS_STR, digits};
    }
    rs_table *t = rs_table_new(study, cols, ncols);
    for (int r = 0; r < nrows; r++) {
        int row = rs_table_row(t);
        for (int c = 0; c < ncols; c++) {
            const char *s = rs_cell_str(text, r, c);
            if (!rs_cell_isset(text, r, c) || !*s)
                continue;
            if (cols[c].type == RS_DBL)
                rs_set_dbl(t, row, cols[c].name, strtod(s, NULL));
            else
                rs_set_str(t, row, cols[c].name, s);
        }
    }
    for (int m = 0; m < text->nmeta; m++)
        rs_table_meta(t, text->mkeys[m], text->mvals[m]);
    free(cols);
    return t;
}

rs_table *rs_table_read_csv_text(const char *path)
{
    FILE *f = rs_fopen_read(path);
    RS_CHECK_NULL(f != NULL, "%s", rs_lasterr());
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    RS_ASSERT(buf != NULL);
    size_t got = fread(buf, 1, (size_t)len, f);
    fclose(f);
    buf[got] = 0;

    /* Header, then rows; fields of each row are collected then typed by content. */
    const char *p = buf;
    rs_col cols[256];
    int ncols = 0, eol = 0;
    while (*p && !eol && ncols < 256) {
        char *name = csv_read_field(&p, &eol);
        cols[ncols++] = (rs_col){name, RS_STR, 17};
    }
    if (ncols == 0) {
        free(buf);
        rs_seterr("%s: empty CSV (no header row)", path);
        return NULL;
    }
    /* A column is numeric if every set cell parses fully as a number. */
    int nrows = 0;
    const char *q = p;
    char **fields = NULL;
    while (*q) {
        fields = realloc(fields, sizeof *fields * (size_t)(nrows + 1) * (size_t)ncols);
        RS_ASSERT(fields != NULL);
        for (int c = 0; c < ncols; c++) {
            eol = 1;   /* the end of the text ends the row ("a," is a, "") */
            fields[nrows * ncols + c] = *q ? csv_read_field(&q, &eol) : dupstr("");
            if (eol != (c == ncols - 1)) {   /* a row shorter or longer than the header */
                for (int k = 0; k <= nrows * ncols + c; k++)
                    free(fields[k]);
                free(fields);
                for (int k = 0; k < ncols; k++)
                    free((char *)cols[k].name);
                free(buf);
                rs_seterr("%s: row %d has %s%d fields, the header has %d", path, nrows + 1,
                          eol ? "" : "more than ", c + 1, ncols);
                return NULL;
            }
        }
        nrows++;
    }
    rs_table *text = rs_table_new(path, cols, ncols);   /* every column RS_STR here */
    for (int r = 0; r < nrows; r++) {
        int row = rs_table_row(text);
        for (int c = 0; c < ncols; c++) {
            char *s = fields[r * ncols + c];
            if (*s)
                rs_set_str(text, row, cols[c].name, s);
            free(s);
        }
    }
    for (int c = 0; c < ncols; c++)
        free((char *)cols[c].name);
    free(fields);
    free(buf);
    return text;
}

rs_table *rs_table_read_csv(const char *path)
{
    rs_table *text = rs_table_read_csv_text(path);
    if (!text)
        return NULL;
    rs_table *t = rs_table_typed(text, path);
    rs_table_free(text);
    return t;
}

