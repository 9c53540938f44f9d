/* cmd_concat.c — `study concat OUT IN.csv... [--label COL]`: one table of several, for
 * the campaign (scaling/bench/bench.sh): every row of every IN in order under their common
 * header, cells as written; --label COL adds a first column COL holding each row's
 * file name less .csv (train_eval.d/async.csv: "async").  INs whose columns differ are
 * refused, not glued; OUT is never overwritten.  Exit 0; 2 an unreadable or mismatched
 * input, or OUT exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "opts.h"
#include "record.h"
#include "study.h"

#define MOST_INPUTS 256

/* IN's columns are FIRST's, in the same order. */
static int same_columns(const rs_table *first, const rs_table *in)
{
    if (rs_table_ncols(first) != rs_table_ncols(in))
        return 0;
    for (int c = 0; c < rs_table_ncols(in); c++)
        if (strcmp(rs_table_col(first, c)->name, rs_table_col(in, c)->name) != 0)
            return 0;
    return 1;
}

static rs_table *joined(char **in, int n, const char *label)
{
    rs_table *t[MOST_INPUTS], *out = NULL;
    int k = 0;
    for (; k < n; k++) {
        if (!(t[k] = rs_table_read_csv_text(in[k])))
            break;
        if (!same_columns(t[0], t[k])) {
            rs_seterr("%s: its columns are not those of %s (one table needs one header)", in[k], in[0]);
            rs_table_free(t[k]);
            break;
        }
    }
    if (k == n) {
        int nc = rs_table_ncols(t[0]) + (label != NULL);
        rs_col *cols = calloc((size_t)nc, sizeof *cols);
        RS_ASSERT(cols != NULL);
        if (label)
            cols[0] = (rs_col){label, RS_STR, 0};
        for (int c = 0; c < rs_table_ncols(t[0]); c++)
            cols[c + (label != NULL)] = (rs_col){rs_table_col(t[0], c)->name, RS_STR, 0};
        out = rs_table_new("concat", cols, nc);
        free(cols);
        for (int i = 0; i < n; i++) {
            char name[1024];
            const char *base = strrchr(in[i], '/') ? strrchr(in[i], '/') + 1 : in[i];
            size_t len = strlen(base);
            snprintf(name, sizeof name, "%.*s", (int)(len > 4 && strcmp(base + len - 4, ".csv") == 0 ? len - 4 : len), base);
            for (int r = 0; r < rs_table_nrows(t[i]); r++) {
                int row = rs_table_row(out);
                if (label)
                    rs_set_str(out, row, label, name);
                for (int c = 0; c < rs_table_ncols(t[i]); c++)
                    if (rs_cell_isset(t[i], r, c))
                        rs_set_str(out, row, rs_table_col(t[i], c)->name, rs_cell_str(t[i], r, c));
            }
        }
    }
    for (int i = 0; i < k; i++)
        rs_table_free(t[i]);
    return out;
}

int cmd_concat(int argc, char **argv)
{
    static const char *label;
    static const rs_opt options[] = {
        {"label", RS_OPT_STR, &label, "COL", "a first column COL: each row's file name less .csv", 0, 0},
    };
    static const char usage[] = "usage: study concat OUT.csv IN.csv... [--label COL]\n"
                                "One table of the rows of every IN (the same columns), written to OUT.";
    char *pos[MOST_INPUTS + 1];
    int npos = MOST_INPUTS + 1, rc = rs_opts_parse(argc, argv, options, RS_ARRAY_LEN(options), usage, pos, &npos);
    if (rc == 1)
        return 0;
    if (rc < 0 || npos < 2) {
        fprintf(stderr, "study concat: %s (study concat --help)\n",
                rc < 0 ? rs_lasterr() : "expected OUT and at least one IN");
        return 2;
    }
    rs_table *t = joined(pos + 1, npos - 1, label);
    if (!t || rs_table_write_csv(t, pos[0]) != 0) {
        fprintf(stderr, "study concat: %s\n", rs_lasterr());
        rs_table_free(t);
        return 2;
    }
    rs_table_free(t);
    return 0;
}
