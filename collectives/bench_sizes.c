/* bench_sizes.c — sizes_parse() (bench_sizes.h): the --sizes file's text to sizes. */
#define _GNU_SOURCE
#include "bench_sizes.h"

#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "opts.h"

#define SEPARATORS " \t\r\n,"

/* Append v unless it is there already. */
static int add_distinct(long v, long *sizes, int max, int *n)
{
    for (int i = 0; i < *n; i++)
        if (sizes[i] == v)
            return 0;
    RS_CHECK(*n < max, "too many sizes (at most %d)", max);
    sizes[(*n)++] = v;
    return 0;
}

/* One line, in place: its comment cut, each token a size. */
static int parse_line(char *line, const char *path, int ln, long *sizes, int max, int *n)
{
    char *hash = strchr(line, '#'), *save = NULL;
    if (hash)
        *hash = 0;
    for (char *tok = strtok_r(line, SEPARATORS, &save); tok; tok = strtok_r(NULL, SEPARATORS, &save)) {
        long v;
        RS_CHECK(rs_parse_size(tok, &v) == 0 && v <= SIZES_MAX_BYTES, "--sizes: %s:%d: '%s' is not a "
                 "size in bytes (expected e.g. 4096, 64k, 1M; at most 2G)", path, ln, tok);
        if (add_distinct(v, sizes, max, n) != 0)
            return -1;
    }
    return 0;
}

int sizes_parse(const char *text, const char *path, long *sizes, int max, int *n)
{
    char *copy = strdup(text);
    RS_CHECK(copy, "--sizes: out of memory reading %s", path);
    int rc = 0, ln = 0;
    *n = 0;
    for (char *line = copy, *next; rc == 0 && line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = 0;
        if (*line || next)   /* a last line without its newline still counts */
            rc = parse_line(line, path, ++ln, sizes, max, n);
    }
    free(copy);
    if (rc == 0 && *n == 0) {
        rs_seterr("--sizes: %s holds no sizes", path);
        rc = -1;
    }
    return rc;
}
