/* cmd_compare.c — `study compare A.csv B.csv`: two result tables (two runs' logs) row by
 * row, for the checks that two runs agree.  B's rows are matched to A's by the --key
 * column (default step); each of B's rows must have a match, --equal columns the same
 * text, --abs COL=T columns within T, --rel COL=T within T relative to A, --filled
 * columns set in B; --after K compares only rows whose key is above K; --rows N wants
 * exactly N rows of B compared.  Prints the first disagreement, or the row count.
 * Exit 0 agree, 1 disagree (or nothing compared), 2 bad usage or an unreadable file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "opts.h"
#include "record.h"
#include "study.h"

#define MOST 32

static struct {
    const char *key, *equal, *abs, *rel, *filled;
    double after;
    long rows;
} opt = {.key = "step", .after = -1e300, .rows = -1};

static const rs_opt options[] = {
    {"key", RS_OPT_STR, &opt.key, "COL", "the column that matches rows (default step)", 0, 0},
    {"equal", RS_OPT_STR, &opt.equal, "COLS", "columns whose text must be the same", 0, 0},
    {"abs", RS_OPT_STR, &opt.abs, "COL=T,...", "columns within T of A's value", 0, 0},
    {"rel", RS_OPT_STR, &opt.rel, "COL=T,...", "columns within T relative to A's value", 0, 0},
    {"filled", RS_OPT_STR, &opt.filled, "COLS", "columns that must be set in B's rows", 0, 0},
    {"after", RS_OPT_DBL, &opt.after, "K", "only rows whose key is above K", 0, 0},
    {"rows", RS_OPT_INT, &opt.rows, "N", "exactly N of B's rows compared", 0, 1e9},
};
static const char usage[] = "usage: study compare A.csv B.csv [options]\n"
                            "Two tables row by row (matched by --key): exit 0 when they agree.";

typedef struct {
    int n;
    char *name[MOST];
    double tol[MOST];
} col_list;

/* "a,b" or "a=1e-6,b=2" into names (and tolerances); -1 with the line printed. */
static int parse_list(const char *flag, const char *s, int with_tol, col_list *l, char *buf, size_t len)
{
    l->n = 0;
    if (!s)
        return 0;
    snprintf(buf, len, "%s", s);
    l->n = rs_split_list(buf, l->name, MOST);
    for (int i = 0; with_tol && i < l->n; i++) {
        char *eq = strchr(l->name[i], '='), *end = NULL;
        if (eq)
            *eq = 0, l->tol[i] = strtod(eq + 1, &end);
        if (!eq || !*(eq + 1) || *end || !(l->tol[i] >= 0))
            return fprintf(stderr, "study compare: --%s '%s': expected COL=TOLERANCE (a number >= 0)\n",
                           flag, l->name[i]), -1;
    }
    return 0;
}

static int col_of(const rs_table *t, const char *path, const char *name)
{
    int c = rs_table_col_index(t, name);
    if (c < 0)
        fprintf(stderr, "study compare: %s has no column '%s'\n", path, name);
    return c;
}

static const char *text(const rs_table *t, int r, int c)
{
    return rs_cell_isset(t, r, c) ? rs_cell_str(t, r, c) : "";
}

/* The first disagreement of B's row rb with A, as one line in why; 0 when none. */
static int differs(const rs_table *a, const rs_table *b, int ra, int rb, const col_list *eq,
                   const col_list *ab, const col_list *re, const col_list *fi, const int *ca,
                   const int *cb, char *why, size_t len)
{
    int k = 0;
    for (int i = 0; i < eq->n; i++, k++)
        if (strcmp(text(a, ra, ca[k]), text(b, rb, cb[k])) != 0)
            return snprintf(why, len, "%s: %s against %s", eq->name[i], text(b, rb, cb[k]),
                            text(a, ra, ca[k])), 1;
    for (int g = 0; g < 2; g++) {
        const col_list *l = g ? re : ab;
        for (int i = 0; i < l->n; i++, k++) {
            double x = atof(text(a, ra, ca[k])), y = atof(text(b, rb, cb[k]));
            double d = fabs(y - x), lim = l->tol[i] * (g ? fabs(x) : 1);
            if (!*text(a, ra, ca[k]) || !*text(b, rb, cb[k]) || !(d <= lim))
                return snprintf(why, len, "%s: %s against %s (%s %g allowed)", l->name[i],
                                text(b, rb, cb[k]), text(a, ra, ca[k]), g ? "relative" : "by", l->tol[i]), 1;
        }
    }
    for (int i = 0; i < fi->n; i++, k++)
        if (!*text(b, rb, cb[k]))
            return snprintf(why, len, "%s is empty", fi->name[i]), 1;
    return 0;
}

int cmd_compare(int argc, char **argv)
{
    char *pos[2], b1[1024], b2[1024], b3[1024], b4[1024], why[1024] = "";
    int npos = 2, rc = rs_opts_parse(argc, argv, options, RS_ARRAY_LEN(options), usage, pos, &npos);
    if (rc == 1)
        return 0;
    if (rc == 0 && npos != 2)
        rs_seterr("expected A.csv and B.csv (study compare --help)"), rc = -1;
    if (rc != 0)
        return fprintf(stderr, "study compare: %s\n", rs_lasterr()), 2;
    col_list eq, ab, re, fi;
    if (parse_list("equal", opt.equal, 0, &eq, b1, sizeof b1) || parse_list("abs", opt.abs, 1, &ab, b2, sizeof b2) ||
        parse_list("rel", opt.rel, 1, &re, b3, sizeof b3) || parse_list("filled", opt.filled, 0, &fi, b4, sizeof b4))
        return 2;
    rs_table *a = rs_table_read_csv_text(pos[0]), *b = a ? rs_table_read_csv_text(pos[1]) : NULL;
    int ca[4 * MOST], cb[4 * MOST], n = 0, status = 2;
    const col_list *all[4] = {&eq, &ab, &re, &fi};
    int ka = a ? col_of(a, pos[0], opt.key) : -1, kb = b ? col_of(b, pos[1], opt.key) : -1, ok = ka >= 0 && kb >= 0;
    for (int g = 0; ok && g < 4; g++)
        for (int i = 0; ok && i < all[g]->n; i++, n++)
            ok = (g == 3 || (ca[n] = col_of(a, pos[0], all[g]->name[i])) >= 0) &&
                 (cb[n] = col_of(b, pos[1], all[g]->name[i])) >= 0;
    if (!a || !b)
        fprintf(stderr, "study compare: %s\n", rs_lasterr());
    else if (ok) {
        int compared = 0;
        status = 0;
        for (int rb = 0; rb < rs_table_nrows(b) && status == 0; rb++) {
            const char *key = text(b, rb, kb);
            if (!(atof(key) > opt.after))
                continue;
            int ra = -1;
            for (int r = 0; r < rs_table_nrows(a) && ra < 0; r++)
                if (strcmp(text(a, r, ka), key) == 0)
                    ra = r;
            compared++;
            if (ra < 0)
                status = 1, snprintf(why, sizeof why, "%s %s: not in %s", opt.key, key, pos[0]);
            else if (differs(a, b, ra, rb, &eq, &ab, &re, &fi, ca, cb, why, sizeof why)) {
                char w[1024];
                snprintf(w, sizeof w, "%s %s: %s", opt.key, key, why);
                snprintf(why, sizeof why, "%s", w);
                status = 1;
            }
        }
        if (status == 0 && (compared == 0 || (opt.rows >= 0 && compared != opt.rows)))
            status = 1, snprintf(why, sizeof why, "%d rows compared%s", compared,
                                 opt.rows >= 0 ? " (--rows wants another count)" : "");
        if (status == 0)
            printf("%d rows agree\n", compared);
        else
            printf("differ: %s\n", why);
    }
    rs_table_free(a);
    rs_table_free(b);
    return status;
}
