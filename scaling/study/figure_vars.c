/* figure_vars.c — figure_vars (figures.h): per figure, the values it takes from the run,
 * each read from the CSV it draws:
 *   scaling_efficiency,      from scaling_weak.csv (scaling_time_to_target.csv): gflops,
 *   scaling_breakdown,       the first node_gflops given (the stated node's speed);
 *   scaling_time_to_target   b1, the first per-node batch (the rows weak scaling draws)
 *   scaling_models           kn3_test_ppl, kn3_completion_accuracy: the first row's;
 *                            acc_class, acc_full: "hidden accuracy se" of each output
 *                            layer's rows with an accuracy, sorted by hidden (gnuplot
 *                            cannot sort a yerrorlines series)
 *   simulate_nodes           sizes: of 4 B, 64 KiB, 4 MiB, 64 MiB and 1 MiB, the first
 *                            four the run has (one panel each)
 *   scaling_convergence*,    conv_figure_vars (converge_figures.c)
 *   scaling_bsimple
 * Values are the cells' text as written; a number missing is NaN. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "converge_study.h"
#include "figures.h"
#include "record.h"
#include "regime_study.h"
#include "study_def.h"

/* Appended to buf as NAME=VALUE; (the text of a number, else NaN) or NAME="TEXT";. */
static void put(char *buf, size_t len, const char *name, const char *text, int number)
{
    size_t n = strlen(buf);
    if (number) {
        char *end;
        strtod(text, &end);
        int ok = *text && end != text && *end == 0;
        snprintf(buf + n, len - n, "%s%s=%s;", n ? " " : "", name, ok ? text : "NaN");
        return;
    }
    n += (size_t)snprintf(buf + n, len - n, "%s%s=\"", n ? " " : "", name);
    for (; *text && n + 4 < len; text++) {
        if (*text == '"' || *text == '\\')
            buf[n++] = '\\';
        buf[n++] = *text;
    }
    snprintf(buf + n, len - n, "\";");
}

static rs_table *read_csv(const char *dir, const char *file)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    RS_CHECK_NULL(access(path, F_OK) == 0, "no %s (the figure's CSV)", path);
    return rs_table_read_csv_text(path);
}

/* gflops and b1 of a composition table. */
static int first_values(const char *dir, const char *file, char *buf, size_t len)
{
    rs_table *t = read_csv(dir, file);
    if (!t)
        return -1;
    char g[256] = "", b[256] = "", c[256];
    for (int r = 0; r < rs_table_nrows(t); r++) {
        if (!*g)
            study_cell_at(t, r, "node_gflops", g, sizeof g);
        if (!*b && strtod(study_cell_at(t, r, "b", c, sizeof c), NULL) != 0)
            snprintf(b, sizeof b, "%s", c);
    }
    put(buf, len, "gflops", g, 0);
    put(buf, len, "b1", *b ? b : "0", 1);
    rs_table_free(t);
    return 0;
}

typedef struct {
    char line[800];   /* "hidden accuracy se", as the row has them */
    double x;
} acc_row;

/* sort -g's order: the leading number, then the whole line */
static int by_hidden(const void *a, const void *b)
{
    const acc_row *p = a, *q = b;
    return p->x < q->x ? -1 : p->x > q->x ? 1 : strcmp(p->line, q->line);
}

/* acc_OUTPUT: the output layer's rows with an accuracy, sorted by hidden. */
static void accuracy_series(const rs_table *t, const char *output, char *buf, size_t len)
{
    int n = rs_table_nrows(t), k = 0;
    acc_row *rows = calloc((size_t)n + 1, sizeof *rows);
    RS_ASSERT(rows != NULL);
    for (int r = 0; r < n; r++) {
        char o[256], h[256], a[256], s[256];
        if (strcmp(study_cell_at(t, r, "output", o, sizeof o), output) != 0 ||
            !*study_cell_at(t, r, "completion_accuracy", a, sizeof a))
            continue;
        study_cell_at(t, r, "hidden", h, sizeof h);
        study_cell_at(t, r, "completion_se", s, sizeof s);
        snprintf(rows[k].line, sizeof rows[k].line, "%s %s %s", *h ? h : "NaN", a, *s ? s : "NaN");
        rows[k++].x = strtod(h, NULL);
    }
    qsort(rows, (size_t)k, sizeof *rows, by_hidden);
    char name[300], *list = calloc((size_t)k + 1, sizeof rows[0].line + 1);
    RS_ASSERT(list != NULL);
    for (int i = 0; i < k; i++)
        strcat(strcat(list, i ? " " : ""), rows[i].line);
    snprintf(name, sizeof name, "acc_%s", output);
    put(buf, len, name, list, 0);
    free(list);
    free(rows);
}

static int models_values(const char *dir, char *buf, size_t len)
{
    rs_table *t = read_csv(dir, "scaling_models.csv");
    if (!t)
        return -1;
    char c[256];
    put(buf, len, "kn3_test_ppl", study_cell_at(t, 0, "kn3_test_ppl", c, sizeof c), 1);
    put(buf, len, "kn3_completion_accuracy", study_cell_at(t, 0, "kn3_completion_accuracy", c, sizeof c), 1);
    accuracy_series(t, "class", buf, len);
    accuracy_series(t, "full", buf, len);
    rs_table_free(t);
    return 0;
}

static int simulate_sizes(const char *dir, char *buf, size_t len)
{
    static const char *const wanted[] = {"4", "65536", "4194304", "67108864", "1048576"};
    rs_table *t = read_csv(dir, "simulate.csv");
    if (!t)
        return -1;
    char sizes[128] = "", c[256];
    for (int w = 0, k = 0; w < 5 && k < 4; w++)
        for (int r = 0; r < rs_table_nrows(t); r++)
            if (strcmp(study_cell_at(t, r, "bytes", c, sizeof c), wanted[w]) == 0) {
                strcat(strcat(sizes, k++ ? " " : ""), wanted[w]);
                break;
            }
    put(buf, len, "sizes", sizes, 0);
    rs_table_free(t);
    return 0;
}

int figure_vars(const char *dir, const char *name, char *buf, size_t len)
{
    char gp[4200];
    snprintf(gp, sizeof gp, "%s/plot/%s.gp", study_root(), name);
    RS_CHECK(!strchr(name, '/') && access(gp, R_OK) == 0, "no figure '%s' (no plot/%s.gp)", name, name);
    buf[0] = 0;
    if (strncmp(name, "scaling_convergence", 19) == 0 || strcmp(name, "scaling_bsimple") == 0)
        return conv_figure_vars(dir, buf, len);
    if (strcmp(name, "scaling_efficiency") == 0 || strcmp(name, "scaling_breakdown") == 0)
        return first_values(dir, "scaling_weak.csv", buf, len);
    if (strcmp(name, "scaling_time_to_target") == 0)
        return first_values(dir, "scaling_time_to_target.csv", buf, len);
    if (strcmp(name, "scaling_models") == 0)
        return models_values(dir, buf, len);
    if (strcmp(name, "simulate_nodes") == 0)
        return simulate_sizes(dir, buf, len);
    if (strncmp(name, "regime_", 7) == 0)
        return regime_figure_vars(dir, name, buf, len);
    return 0;
}
