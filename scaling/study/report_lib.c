/* report_lib.c — what the report's sections share (report.h): reading a run's files,
 * a cell's text, awk's way of comparing a cell with a number, the Markdown table. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fsio.h"
#include "report.h"

static void path_of(const report_ctx *r, const char *name, char *buf, size_t len)
{
    snprintf(buf, len, "%s/%s", r->run, name);
}

int rp_has(const report_ctx *r, const char *name)
{
    char path[4096];
    path_of(r, name, path, sizeof path);
    return access(path, F_OK) == 0;
}

rs_table *rp_csv(report_ctx *r, const char *name)
{
    char path[4096];
    path_of(r, name, path, sizeof path);
    if (access(path, F_OK) != 0)
        return NULL;
    rs_table *t = rs_table_read_csv_text(path);
    if (!t) {
        fprintf(stderr, "study report: %s (left out of the report)\n", rs_lasterr());
        r->unreadable++;
    }
    return t;
}

/* machine.json names each figure once, wherever its section puts it: the first member
 * of that name is the one. */
const rs_json *rp_json_first(const rs_json *v, const char *key, rs_jtype type)
{
    if (!v || (v->type != RS_JOBJ && v->type != RS_JARR))
        return NULL;
    for (int i = 0; i < v->n; i++) {
        if (v->type == RS_JOBJ && strcmp(v->keys[i], key) == 0 && v->items[i]->type == type)
            return v->items[i];
        const rs_json *in = rp_json_first(v->items[i], key, type);
        if (in)
            return in;
    }
    return NULL;
}

const char *rp_json_str(const rs_json *v, const char *key)
{
    const rs_json *s = rp_json_first(v, key, RS_JSTR);
    return s ? s->str : "";
}

int rp_replace(const char *path, rs_writer_fn writer, void *ctx)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    unlink(tmp);
    if (rs_write_atomic(tmp, writer, ctx) != 0)
        return -1;
    RS_CHECK(rename(tmp, path) == 0, "cannot replace %s: %s", path, strerror(errno));
    return 0;
}

const char *rp_cell(const rs_table *t, int row, const char *col)
{
    int c = t ? rs_table_col_index(t, col) : -1;
    return c >= 0 ? rs_cell_str(t, row, c) : "";
}

double rp_num(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    return end == s ? 0 : v;
}

/* awk's test for a text that compares as a number: blanks, a decimal number, blanks. */
static int looks_numeric(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    if (*s == '+' || *s == '-')
        s++;
    int digits = 0;
    for (; isdigit((unsigned char)*s); s++)
        digits++;
    if (*s == '.')
        for (s++; isdigit((unsigned char)*s); s++)
            digits++;
    if (!digits)
        return 0;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!isdigit((unsigned char)*s))
            return 0;
        while (isdigit((unsigned char)*s))
            s++;
    }
    while (isspace((unsigned char)*s))
        s++;
    return *s == 0;
}

int rp_cmp(const char *s, double x)
{
    if (looks_numeric(s)) {
        double v = strtod(s, NULL);
        return (v > x) - (v < x);
    }
    char text[64];   /* awk's text of a number: whole ones as integers, else %.6g */
    if (x == floor(x) && fabs(x) < 1e15)
        snprintf(text, sizeof text, "%.0f", x);
    else
        snprintf(text, sizeof text, "%.6g", x);
    return strcmp(s, text);
}

int rp_cmp2(const char *a, const char *b)
{
    if (looks_numeric(a) && looks_numeric(b)) {
        double x = strtod(a, NULL), y = strtod(b, NULL);
        return (x > y) - (x < y);
    }
    return strcmp(a, b);
}

/* A number as the table shows it: integers as written, others to 4 significant
 * digits; anything else as written. */
static void md_cell(FILE *f, const char *x)
{
    const char *p = x + (*x == '-');
    size_t n = strspn(p, "0123456789");
    int number = n > 0, integer = *x != '-' && n > 0 && p[n] == 0;
    if (number && p[n] == '.') {
        size_t m = strspn(p + n + 1, "0123456789");
        number = m > 0;
        n += 1 + m;
    }
    if (number && (p[n] == 'e' || p[n] == 'E')) {
        size_t k = n + 1 + (p[n + 1] == '+' || p[n + 1] == '-');
        size_t m = strspn(p + k, "0123456789");
        number = m > 0;
        n = k + m;
    }
    if (number && p[n] == 0 && !integer)
        fprintf(f, " %.4g |", strtod(x, NULL));
    else
        fprintf(f, " %s |", x);
}

void rp_md_table(report_ctx *r, const rs_table *t, const char *cols,
                 int (*keep)(const rs_table *t, int row))
{
    if (!t || rs_table_nrows(t) == 0)
        return;   /* no row: not even the header */
    char list[4096], *name[256];
    int n = 0;
    if (cols) {
        snprintf(list, sizeof list, "%s", cols);
        for (char *s = strtok(list, ","); s && n < 256; s = strtok(NULL, ","))
            name[n++] = s;
    } else {
        for (int c = 0; c < rs_table_ncols(t) && c < 256; c++)
            name[n++] = (char *)rs_table_col(t, c)->name;
    }
    fputc('|', r->out);
    for (int j = 0; j < n; j++)
        fprintf(r->out, " %s |", name[j]);
    fputs("\n|", r->out);
    for (int j = 0; j < n; j++)
        fputs(" --- |", r->out);
    fputc('\n', r->out);
    for (int row = 0; row < rs_table_nrows(t); row++) {
        if (keep && !keep(t, row))
            continue;
        fputc('|', r->out);
        for (int j = 0; j < n; j++)
            md_cell(r->out, rp_cell(t, row, name[j]));
        fputc('\n', r->out);
    }
}

int rp_copy(report_ctx *r, const char *name)
{
    char path[4096], buf[8192];
    path_of(r, name, path, sizeof path);
    FILE *f = rs_fopen_read(path);
    if (!f)
        return -1;
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, n, r->out);
    fclose(f);
    return 0;
}

char **rp_lines(const report_ctx *r, const char *name)
{
    char path[4096];
    path_of(r, name, path, sizeof path);
    FILE *f = rs_fopen_read(path);
    if (!f)
        return NULL;
    size_t cap = 16, n = 0;
    char **lines = malloc(cap * sizeof *lines), *line = NULL;
    size_t len = 0;
    ssize_t got;
    RS_ASSERT(lines != NULL);
    while ((got = getline(&line, &len, f)) >= 0) {
        if (got > 0 && line[got - 1] == '\n')
            line[got - 1] = 0;
        if (n + 1 >= cap) {
            lines = realloc(lines, (cap *= 2) * sizeof *lines);
            RS_ASSERT(lines != NULL);
        }
        lines[n++] = strdup(line);
    }
    free(line);
    fclose(f);
    lines[n] = NULL;
    return lines;
}

void rp_lines_free(char **lines)
{
    for (char **l = lines; l && *l; l++)
        free(*l);
    free(lines);
}

int rp_words(char *s, char **w, int n)
{
    int k = 0;
    for (char *t = strtok(s, " \t\n"); t && k < n; t = strtok(NULL, " \t\n"))
        w[k++] = t;
    return k;
}
