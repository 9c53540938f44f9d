/* cmd_get.c — `study get FILE KEY`: one value of a result file, for a script.
 *
 * FILE.csv: the cell of column KEY (a comma list: the cells, tab-separated) in the last
 * row, or --row first|N, among the rows --where COL=VALUE[,COL=VALUE] keeps; --all
 * prints every kept row, one per line.  FILE.json: the value at the dotted path KEY
 * (meta.command; a number indexes an array from 0: rows.0.valid_ppl, a summary's value in
 * full precision where its CSV prints 6 digits).  Numbers print in the fewest
 * digits that read back the same; an empty cell or a JSON null prints an empty line.
 * --optional prints an empty line where the file, the column, the key or the row is
 * missing.  Exit 0; 1 no row kept; 2 an unreadable file, an unknown column or key. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json.h"
#include "opts.h"
#include "record.h"
#include "study.h"

#define MOST_KEYS 32

static struct {
    const char *row, *where;
    int all, optional;
} opt;

static const rs_opt options[] = {
    {"row", RS_OPT_STR, &opt.row, "WHICH", "last (default), first, or a 1-based row number", 0, 0},
    {"where", RS_OPT_STR, &opt.where, "COL=V,...", "only rows whose columns hold these values", 0, 0},
    {"all", RS_OPT_FLAG, &opt.all, NULL, "every kept row, one line each", 0, 0},
    {"optional", RS_OPT_FLAG, &opt.optional, NULL, "an empty line (exit 0) where the file, column, key or row is missing", 0, 0},
};
static const char usage[] = "usage: study get FILE.csv|FILE.json KEY [options]\n"
                            "One value of a result file (a CSV column of a row, a dotted JSON key:\n"
                            "meta.command, rows.0.valid_ppl).";

/* What is asked for is not there: with --optional an empty line (exit 0), else the
 * line (if any) and `status`. */
static int missing(int status, const char *fmt, ...)
{
    if (opt.optional) {
        putchar('\n');
        return 0;
    }
    if (fmt) {
        va_list ap;
        va_start(ap, fmt);
        fputs("study get: ", stderr);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
        va_end(ap);
    }
    return status;
}

/* --where's conditions as (column, value) pairs; -1 with the line printed. */
static int parse_where(const rs_table *t, char *where, int *cols, char **vals)
{
    char *conds[MOST_KEYS];
    int n = rs_split_list(where, conds, MOST_KEYS);
    for (int i = 0; i < n; i++) {
        char *eq = strchr(conds[i], '=');
        if (!eq)
            return fprintf(stderr, "study get: --where '%s': expected COL=VALUE\n", conds[i]), -1;
        *eq = 0;
        vals[i] = eq + 1;
        if ((cols[i] = rs_table_col_index(t, conds[i])) < 0)
            return fprintf(stderr, "study get: --where: %s has no column '%s'\n",
                           rs_table_study(t), conds[i]), -1;
    }
    return n;
}

static int get_csv(const char *path, char *keys)
{
    rs_table *t = rs_table_read_csv(path);
    if (!t)
        return missing(2, "%s", rs_lasterr());
    char *names[MOST_KEYS], *vals[MOST_KEYS], where[1024] = "", buf[4096];
    int nk = rs_split_list(keys, names, MOST_KEYS), cols[MOST_KEYS], wcols[MOST_KEYS], nw = 0;
    int rc = -1;
    for (int i = 0; i < nk; i++)
        if ((cols[i] = rs_table_col_index(t, names[i])) < 0) {
            rc = missing(2, "%s has no column '%s'", path, names[i]);
            goto out;
        }
    snprintf(where, sizeof where, "%s", opt.where ? opt.where : "");
    if ((nw = parse_where(t, where, wcols, vals)) < 0) {
        rc = 2;
        goto out;
    }
    int n = rs_table_nrows(t), *kept = malloc(sizeof *kept * (size_t)(n + 1)), nkept = 0;
    RS_ASSERT(kept != NULL);
    for (int r = 0; r < n; r++) {
        int keep = 1;
        for (int i = 0; i < nw && keep; i++) {
            rs_cell_text(t, r, wcols[i], buf, sizeof buf);
            keep = strcmp(buf, vals[i]) == 0;
        }
        if (keep)
            kept[nkept++] = r;
    }
    int from = nkept - 1, to = nkept - 1;
    if (opt.all)
        from = 0;
    else if (opt.row && strcmp(opt.row, "first") == 0)
        from = to = 0;
    else if (opt.row && strcmp(opt.row, "last") != 0)
        from = to = atoi(opt.row) - 1;
    if (nkept == 0 || from < 0 || to >= nkept)
        rc = missing(1, NULL);
    for (int k = from; rc < 0 && k <= to; k++) {
        for (int i = 0; i < nk; i++) {
            rs_cell_text(t, kept[k], cols[i], buf, sizeof buf);
            printf("%s%s", i ? "\t" : "", buf);
        }
        putchar('\n');
    }
    free(kept);
    rc = rc < 0 ? 0 : rc;
out:
    rs_table_free(t);
    return rc;
}

/* The value at dotted PATH: object keys, and array indices (all digits) from 0; NULL
 * where it is not there. */
static const rs_json *json_at(const rs_json *v, const char *path)
{
    char part[128];
    while (v && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof part)
            return NULL;
        memcpy(part, path, n);
        part[n] = 0;
        path += n + (path[n] == '.');
        if (v->type == RS_JARR) {
            char *end;
            long i = strtol(part, &end, 10);
            v = n > 0 && *end == 0 && part[0] != '-' && part[0] != '+' && i < v->n ? v->items[i] : NULL;
        } else {
            v = rs_json_get(v, part);
        }
    }
    return v;
}

static int get_json(const char *path, const char *key)
{
    rs_json *j = rs_json_load(path);
    if (!j)
        return missing(2, "%s", rs_lasterr());
    const rs_json *v = json_at(j, key);
    int rc = 0;
    if (!v)
        rc = missing(2, "%s has no key '%s'", path, key);
    else if (v->type == RS_JSTR)
        puts(v->str);
    else if (v->type == RS_JNUM) {
        char buf[64];
        for (int d = 1; d <= 17; d++)
            if (snprintf(buf, sizeof buf, "%.*g", d, v->num), strtod(buf, NULL) == v->num)
                break;
        puts(buf);
    } else if (v->type == RS_JBOOL)
        puts(v->num ? "true" : "false");
    else if (v->type == RS_JNULL)
        puts("");
    else
        rc = (fprintf(stderr, "study get: %s: '%s' is an %s, not a value (name a %s inside it)\n",
                      path, key, v->type == RS_JOBJ ? "object" : "array",
                      v->type == RS_JOBJ ? "key" : "0-based index"), 2);
    rs_json_free(j);
    return rc;
}

int cmd_get(int argc, char **argv)
{
    char *pos[2];
    int npos = 2, rc = rs_opts_parse(argc, argv, options, RS_ARRAY_LEN(options), usage, pos, &npos);
    if (rc == 1)
        return 0;
    if (rc == 0 && npos != 2) {
        rs_seterr("expected FILE and KEY, got %d argument%s (study get --help)", npos, npos == 1 ? "" : "s");
        rc = -1;
    }
    int wheres = 0;
    for (int i = 1; i < argc; i++)
        wheres += strcmp(argv[i], "--where") == 0 || strncmp(argv[i], "--where=", 8) == 0;
    if (rc == 0 && wheres > 1) {
        rs_seterr("--where given %d times: give its conditions once, comma-separated (COL=V,COL2=W)", wheres);
        rc = -1;
    }
    if (rc == 0 && opt.row && strcmp(opt.row, "first") && strcmp(opt.row, "last") && atoi(opt.row) < 1) {
        rs_seterr("--row '%s': expected first, last or a row number from 1", opt.row);
        rc = -1;
    }
    if (rc != 0) {
        fprintf(stderr, "study get: %s\n", rs_lasterr());
        return 2;
    }
    size_t n = strlen(pos[0]);
    if (n > 5 && strcmp(pos[0] + n - 5, ".json") == 0)
        return get_json(pos[0], pos[1]);
    return get_csv(pos[0], pos[1]);
}
