/* compose_regime.c — the composition section's table of the regime study's time to
 * target (scaling_regime_time.csv): per target, each optimizer's time on N nodes at the
 * global batch of its counts that gets there first, on this core and on the stated node,
 * under the fastest simulated exchange. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compose_study.h"

static const char *text(const rs_table *t, int row, const char *col, char *buf, size_t len)
{
    return study_cell_at(t, row, col, buf, len);
}

/* A time in the unit that reads best. */
static void duration(FILE *f, double s)
{
    if (!isfinite(s))
        fprintf(f, "-");
    else if (s < 120)
        fprintf(f, "%.3g s", s);
    else if (s < 7200)
        fprintf(f, "%.3g min", s / 60);
    else
        fprintf(f, "%.3g h", s / 3600);
}

/* The row of (node, target, optimizer, N) under fused-best, or -1. */
static int find(const rs_table *t, const char *node, const char *target, const char *opt, const char *N)
{
    char a[64];
    for (int row = 0; row < rs_table_nrows(t); row++)
        if (!strcmp(text(t, row, "scheme", a, sizeof a), "fused-best") && !strcmp(text(t, row, "node", a, sizeof a), node) &&
            !strcmp(text(t, row, "target", a, sizeof a), target) &&
            !strcmp(text(t, row, "optimizer", a, sizeof a), opt) && !strcmp(text(t, row, "nodes", a, sizeof a), N))
            return row;
    return -1;
}

/* The distinct values of a column, in the table's order, space-separated. */
static void distinct(const rs_table *t, const char *col, char *out, size_t len)
{
    char a[64], key[80];
    out[0] = 0;
    for (int row = 0; row < rs_table_nrows(t); row++) {
        snprintf(key, sizeof key, " %s ", text(t, row, col, a, sizeof a));
        char padded[4200];
        snprintf(padded, sizeof padded, " %s ", out);
        if (!strstr(padded, key) && strlen(out) + strlen(a) + 2 < len)
            snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "", a);
    }
}

void compose_regime_table(FILE *f, const rs_table *t, const char *gflops)
{
    char targets[1024], opts[256], nodes[2048], *s1, *s2, *s3;
    distinct(t, "target", targets, sizeof targets);
    distinct(t, "optimizer", opts, sizeof opts);
    distinct(t, "nodes", nodes, sizeof nodes);
    if (!targets[0])
        return;
    fprintf(f, "\n### Time to target in the Sunway TaihuLight study's regime\n\n"
               "Each optimizer's steps S(B) at every global batch B the regime study measured, times the composed "
               "step T(N) at b = B / N a node (a b whose compute was measured; the update of the optimizer that "
               "did best, for any): at each N the B that gets there first. This core / a %s GFLOP/s node, the "
               "fastest simulated exchange (fused-best); in brackets that B (scaling_regime_time.csv has every "
               "scheme):\n", gflops);
    for (char *tg = strtok_r(targets, " ", &s1); tg; tg = strtok_r(NULL, " ", &s1)) {
        char ol[256], nl[2048];
        snprintf(ol, sizeof ol, "%s", opts);
        fprintf(f, "\n%s:\n\n| N |", tg);
        for (char *o = strtok_r(ol, " ", &s2); o; o = strtok_r(NULL, " ", &s2))
            fprintf(f, " %s |", o);
        fprintf(f, "\n|---:|");
        snprintf(ol, sizeof ol, "%s", opts);
        for (char *o = strtok_r(ol, " ", &s2); o; o = strtok_r(NULL, " ", &s2))
            fprintf(f, "---|");
        fprintf(f, "\n");
        snprintf(nl, sizeof nl, "%s", nodes);
        for (char *N = strtok_r(nl, " ", &s3); N; N = strtok_r(NULL, " ", &s3)) {
            fprintf(f, "| %s |", N);
            snprintf(ol, sizeof ol, "%s", opts);
            for (char *o = strtok_r(ol, " ", &s2); o; o = strtok_r(NULL, " ", &s2)) {
                int c = find(t, "core", tg, o, N), g = find(t, "gflops", tg, o, N);
                char a[64], b[64];
                fprintf(f, " ");
                duration(f, c >= 0 ? atof(text(t, c, "time_to_target_s", a, sizeof a)) : NAN);
                fprintf(f, " / ");
                duration(f, g >= 0 ? atof(text(t, g, "time_to_target_s", a, sizeof a)) : NAN);
                if (g >= 0)
                    fprintf(f, " (%s)", text(t, g, "global_batch", b, sizeof b));
                fprintf(f, " |");
            }
            fprintf(f, "\n");
        }
    }
}
