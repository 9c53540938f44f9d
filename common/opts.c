/* opts.c — table-driven option parsing: --name VALUE, --name=VALUE, flags, repeated
 * options, "--" before another program's flags; every error is one line naming the
 * option, the bad value and what is expected. */
#include "opts.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

int rs_parse_size(const char *s, long *out)
{
    if (!s || !*s)
        return -1;
    errno = 0;
    char *end;
    double v = strtod(s, &end);
    if (end == s || errno || v != floor(v) || v < 0 || *s == '-' || *s == '+')   /* " -4" too */
        return -1;
    double mult = 1;
    switch (*end) {
    case 'k': case 'K': mult = 1024.0; end++; break;
    case 'm': case 'M': mult = 1048576.0; end++; break;
    case 'g': case 'G': mult = 1073741824.0; end++; break;
    default: break;
    }
    if (*end == 'i' || *end == 'B')  /* accept 64KiB, 64kB, 64KB */
        end += (*end == 'i' && end[1] == 'B') ? 2 : 1;
    if (*end)
        return -1;
    v *= mult;
    if (v > 9.0e18)
        return -1;
    *out = (long)v;
    return 0;
}

int rs_split_list(char *s, char **items, int max)
{
    int n = 0;
    for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ","))
        items[n++] = tok;
    return n;
}

static const rs_opt *find(const rs_opt *opts, int nopts, const char *name, size_t len)
{
    for (int i = 0; i < nopts; i++)
        if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
            return &opts[i];
    return NULL;
}

static int bounded(const rs_opt *o) { return o->min != 0 || o->max != 0; }

static int out_of_range(const rs_opt *o, double v)
{
    if (!bounded(o))
        return 0;
    return v < o->min || v > o->max || (o->kind == RS_OPT_DBL_GT && v == o->min);
}

/* "an integer in 1..65536, e.g. 512": what the bounds allow, and the option's starting
 * value (its default) as the example when that is in range. */
/* 65536 and 16777216 in full, 1e9 as 1e+09, 0.5 as 0.5: the short form where exact. */
static const char *num(double v, char *buf, size_t len)
{
    snprintf(buf, len, "%g", v);
    if (strtod(buf, NULL) != v && fabs(v) < 1e15 && v == floor(v))
        snprintf(buf, len, "%.0f", v);
    return buf;
}

static const char *expected(const rs_opt *o, char *buf, size_t len)
{
    char lo[32], hi[32], eg[32];
    int dbl = o->kind == RS_OPT_DBL || o->kind == RS_OPT_DBL_GT;
    const char *what = dbl ? "a number" : o->kind == RS_OPT_SIZE ? "a size" : "an integer";
    double def = dbl ? *(const double *)o->dest : (double)*(const long *)o->dest;
    int n;
    if (!bounded(o))
        n = snprintf(buf, len, "%s", what);
    else
        n = snprintf(buf, len, o->kind == RS_OPT_DBL_GT ? "%s > %s and <= %s" : "%s in %s..%s", what,
                     num(o->min, lo, sizeof lo), num(o->max, hi, sizeof hi));
    if (n > 0 && (size_t)n < len && isfinite(def) && !out_of_range(o, def))
        snprintf(buf + n, len - (size_t)n, ", e.g. %s", num(def, eg, sizeof eg));
    return buf;
}

static int set_value(const rs_opt *o, const char *val)
{
    char *end, exp[128];
    switch (o->kind) {
    case RS_OPT_FLAG:
        *(int *)o->dest = 1;
        return 0;
    case RS_OPT_STR:
        RS_CHECK(*val, "--%s: empty value (expected %s)", o->name, o->metavar ? o->metavar : "text");
        *(const char **)o->dest = val;
        return 0;
    case RS_OPT_STRS: {
        rs_opt_strs *l = o->dest;
        RS_CHECK(*val, "--%s: empty value (expected %s)", o->name, o->metavar ? o->metavar : "text");
        RS_CHECK(l->n < l->max, "--%s: given more than %d times", o->name, l->max);
        l->v[l->n++] = val;
        return 0;
    }
    case RS_OPT_INT: {
        errno = 0;
        long v = strtol(val, &end, 10);
        RS_CHECK(*val && !*end, "--%s: '%s' is not an integer (expected %s)", o->name, val,
              expected(o, exp, sizeof exp));
        RS_CHECK(!errno && !out_of_range(o, (double)v), "--%s %s: out of range (expected %s)",
              o->name, val, expected(o, exp, sizeof exp));
        *(long *)o->dest = v;
        return 0;
    }
    case RS_OPT_SIZE: {
        long v;
        RS_CHECK(rs_parse_size(val, &v) == 0,
              "--%s: '%s' is not a size (expected a positive integer like 4096, 64k, 1M)",
              o->name, val);
        RS_CHECK(!out_of_range(o, (double)v), "--%s %s: out of range (expected %s)",
              o->name, val, expected(o, exp, sizeof exp));
        *(long *)o->dest = v;
        return 0;
    }
    case RS_OPT_DBL:
    case RS_OPT_DBL_GT: {
        errno = 0;
        double v = strtod(val, &end);
        RS_CHECK(*val && !*end, "--%s: '%s' is not a number (expected %s)", o->name, val,
              expected(o, exp, sizeof exp));
        /* NaN, inf and what overflows (1e400) are never a setting */
        RS_CHECK(!errno && isfinite(v) && !out_of_range(o, v), "--%s %s: out of range (expected %s)",
              o->name, val, expected(o, exp, sizeof exp));
        *(double *)o->dest = v;
        return 0;
    }
    }
    return -1;
}

void rs_opts_usage(FILE *f, const rs_opt *opts, int nopts, const char *usage)
{
    fprintf(f, "%s\n\noptions:\n", usage);
    for (int i = 0; i < nopts; i++) {
        char left[64];
        snprintf(left, sizeof left, "--%s%s%s", opts[i].name, opts[i].metavar ? " " : "",
                 opts[i].metavar ? opts[i].metavar : "");
        fprintf(f, "  %-24s %s\n", left, opts[i].help);
    }
    fprintf(f, "  %-24s %s\n", "--help", "show this help and exit");
}

int rs_opts_parse(int argc, char **argv, const rs_opt *opts, int nopts, const char *usage,
                  char **pos, int *npos)
{
    return rs_opts_parse_rest(argc, argv, opts, nopts, usage, pos, npos, NULL);
}

int rs_opts_parse_rest(int argc, char **argv, const rs_opt *opts, int nopts, const char *usage,
                       char **pos, int *npos, int *rest)
{
    int maxpos = npos ? *npos : 0, np = 0, i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (rest && strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            rs_opts_usage(stdout, opts, nopts, usage);
            return 1;
        }
        if (strncmp(a, "--", 2) != 0 || a[2] == 0) {
            RS_CHECK(pos && np < maxpos, "unexpected argument '%s' (see --help)", a);
            pos[np++] = argv[i];
            continue;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const rs_opt *o = find(opts, nopts, name, len);
        RS_CHECK(o != NULL, "unknown option '--%.*s' (see --help)", (int)len, name);
        const char *val = NULL;
        if (o->kind == RS_OPT_FLAG) {
            RS_CHECK(!eq, "--%s takes no value", o->name);
        } else if (eq) {
            val = eq + 1;
        } else {
            RS_CHECK(i + 1 < argc, "--%s needs a value (%s)", o->name, o->metavar ? o->metavar : "value");
            val = argv[++i];
        }
        if (set_value(o, val) != 0)
            return -1;
    }
    if (npos)
        *npos = np;
    if (rest)
        *rest = i;
    return 0;
}

#include "bench.h"
#include "fsio.h"

int rs_common_check_outputs(const rs_common_opts *c)
{
    if (c->csv && rs_check_writable(c->csv) != 0)
        return -1;
    if (c->json && rs_check_writable(c->json) != 0)
        return -1;
    RS_CHECK(!(c->csv && c->json && strcmp(c->csv, c->json) == 0),
          "--csv and --json name the same file %s", c->csv);
    return 0;
}

int rs_parse_threads(const char *s, int *out, int max)
{
    char buf[256], *items[64];
    snprintf(buf, sizeof buf, "%s", s);
    int n = rs_split_list(buf, items, 64), k = 0;
    RS_CHECK(n > 0, "--threads: empty list (expected e.g. 1,2 or all)");
    for (int i = 0; i < n && k < max; i++) {
        long v;
        if (strcmp(items[i], "all") == 0)
            v = rs_ncpus();
        else {
            char *end;
            v = strtol(items[i], &end, 10);
            RS_CHECK(*items[i] && !*end, "--threads: '%s' is not a thread count (expected e.g. 1,2 or all)",
                  items[i]);
        }
        RS_CHECK(v >= 1 && v <= 1024, "--threads: %ld is out of range (expected 1..1024)", v);
        int dup = 0;
        for (int j = 0; j < k; j++)
            dup |= out[j] == v;
        if (!dup)
            out[k++] = (int)v;
    }
    return k;
}

int rs_list_has(const char *list, const char *name)
{
    if (!list)
        return 1;
    char buf[1024], *items[64];
    snprintf(buf, sizeof buf, "%s", list);
    int n = rs_split_list(buf, items, 64);
    for (int i = 0; i < n; i++)
        if (strcmp(items[i], name) == 0 || strcmp(items[i], "all") == 0)
            return 1;
    return 0;
}

int rs_list_check(const char *flag, const char *what, const char *list,
                  const char *const *names, int n)
{
    char buf[1024], *items[64];
    snprintf(buf, sizeof buf, "%s", list);
    int k = rs_split_list(buf, items, 64);
    RS_CHECK(k > 0, "--%s: empty list", flag);
    for (int i = 0; i < k; i++) {
        int found = strcmp(items[i], "all") == 0;
        for (int j = 0; j < n && !found; j++)
            found = strcmp(items[i], names[j]) == 0;
        if (found)
            continue;
        char choices[512] = "";
        size_t len = 0;
        for (int j = 0; j < n; j++) {
            int seen = 0;
            for (int q = 0; q < j && !seen; q++)
                seen = strcmp(names[q], names[j]) == 0;
            if (!seen && len < sizeof choices)
                len += (size_t)snprintf(choices + len, sizeof choices - len, "%s%s", len ? ", " : "", names[j]);
        }
        RS_CHECK(0, "--%s: unknown %s '%s' (expected one of: %s, or all)", flag, what, items[i], choices);
    }
    return 0;
}

int rs_name_index(const char *const *names, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}
