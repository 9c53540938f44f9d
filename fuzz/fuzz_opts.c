/* fuzz_opts.c — fuzz target: the option parser (rs_opts_parse) on an argv cut from the
 * input at newlines, over a table with every kind of option, then the list parsers the
 * drivers run on string options (threads, comma lists, sizes). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "opts.h"

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    char *buf = fuzz_text(data, n);
    if (!buf)
        return 0;
    char *argv[MAX_ARGS + 1] = {"fuzz"};
    int argc = 1;
    for (char *s = buf, *nl; argc < MAX_ARGS && s; s = nl ? nl + 1 : NULL) {
        nl = strchr(s, '\n');
        if (nl)
            *nl = 0;
        argv[argc++] = s;
    }
    int flag = 0;
    long count = 0, size = 0;
    double x = 0;
    const char *str = NULL, *threads = NULL, *many_v[4];
    rs_opt_strs many = {many_v, 0, 4};
    const rs_opt opts[] = {
        {"flag", RS_OPT_FLAG, &flag, NULL, "a flag", 0, 0},
        {"count", RS_OPT_INT, &count, "N", "an integer", 1, 1000},
        {"size", RS_OPT_SIZE, &size, "BYTES", "a size", 4, 1L << 31},
        {"x", RS_OPT_DBL, &x, "X", "a number", -1, 1},
        {"str", RS_OPT_STR, &str, "LIST", "a list", 0, 0},
        {"threads", RS_OPT_STR, &threads, "LIST", "threads", 0, 0},
        {"many", RS_OPT_STRS, &many, "S", "a repeatable option", 0, 0},
    };
    char *pos[MAX_ARGS];
    int npos = MAX_ARGS;
    FILE *null = fopen("/dev/null", "w");
    FILE *out = stdout;
    stdout = null ? null : stdout;   /* --help prints the usage */
    int rc = rs_opts_parse(argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), "fuzz", pos, &npos);
    stdout = out;
    if (null)
        fclose(null);
    if (rc == 0) {
        int t[64];
        if (threads)
            (void)rs_parse_threads(threads, t, 64);
        if (str) {
            static const char *const names[] = {"ring", "recdbl", "hier"};
            (void)rs_list_check("--str", "name", str, names, 3);
            char *copy = strdup(str), *items[16];
            if (copy) {
                int k = rs_split_list(copy, items, 16);
                for (int i = 0; i < k; i++) {
                    long v;
                    (void)rs_parse_size(items[i], &v);
                }
                free(copy);
            }
        }
    }
    free(buf);
    return 0;
}
