/* simulate_report_more.c — the rest of the allreduce-at-scale section (simulate_report.c):
 * the Sunway TaihuLight study's experiment (caffe.csv) and its 20x target with the
 * platform's band (caffe_platform_*.csv), the placements
 * at 800 nodes (simulate_placement.csv beside simulate.csv's consecutive rows), and the
 * other networks (simulate_platforms.csv). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simulate.h"

static rs_table *load(const char *run, const char *name)
{
    char path[4300];
    snprintf(path, sizeof path, "%s/%s", run, name);
    return access(path, F_OK) == 0 ? rs_table_read_csv_text(path) : NULL;
}

/* The last row's COL of ALGO at p (nodes, as a number). */
static const char *at(const rs_table *t, const char *algo, double p, const char *col)
{
    const char *v = "";
    for (int r = 0; r < rs_table_nrows(t); r++)
        if (strcmp(sim_cell(t, r, "algo"), algo) == 0 && atof(sim_cell(t, r, "p")) == p)
            v = sim_cell(t, r, col);
    return v;
}

static void times_x(const char *s, char *buf, size_t len)
{
    if (*s)
        snprintf(buf, len, "%.3gx", atof(s));
    else
        snprintf(buf, len, "-");
}

int sim_caffe_band(const char *run, double p, double lo[2], double hi[2])
{
    static const char *const v[] = {"bw2", "bwhalf", "lat2", "lathalf"}, *const base[] = {"caffe_style",
                                                                                       "caffe_style_cell"};
    lo[0] = lo[1] = INFINITY, hi[0] = hi[1] = -INFINITY;
    for (int i = 0; i < 4; i++) {
        char name[64];
        snprintf(name, sizeof name, "caffe_platform_%s.csv", v[i]);
        rs_table *t = load(run, name);
        for (int k = 0; k < 2; k++) {
            const char *x = t ? at(t, base[k], p, "improvement") : "";
            double y = atof(x);
            lo[k] = y < lo[k] ? y : lo[k], hi[k] = y > hi[k] ? y : hi[k];
            if (!*x)
                lo[k] = NAN;
        }
        rs_table_free(t);
    }
    return !isnan(lo[0]) && !isnan(lo[1]);
}

void sim_report_caffe(const char *run, FILE *f)
{
    rs_table *t = load(run, "caffe.csv");
    if (!t)
        return;
    double fused = 0, top = 0;
    for (int r = 0; r < rs_table_nrows(t); r++)
        if (strcmp(sim_cell(t, r, "algo"), "fused_hier") == 0)
            fused = atof(sim_cell(t, r, "bytes"));
    fprintf(f,
            "### The Sunway TaihuLight study's experiment: Caffe-style synchronisation against one fused hier "
            "allreduce\n\n"
            "LSTM language model, hidden 512, vocabulary 10k (rnn-train's `--model lstm --hidden 512\n"
            "--vocab 10000`, %.2f M parameters, %.1f MB of float gradients; the\n"
            "tensors: `scaling/sim/presets/caffe_lstm512.txt`), 35 unrolled steps, times per training step.\n"
            "`caffe_style` (the baseline the Sunway study removed): one allreduce per parameter tensor per unrolled\n"
            "time step, each with SMPI's default algorithm (the Open MPI decision) in the default\n"
            "(consecutive) placement. `caffe_style_cell`, a milder reading: only the recurrent\n"
            "layer's three tensors once per step (the unrolled layer's shared weights), embedding\n"
            "and output layer once. `fused_hier`: one allreduce of the whole gradient with the\n"
            "topology-mapped algorithm. Improvement = baseline / fused_hier.\n\n"
            "| nodes | caffe_style (us) | caffe_style_cell (us) | fused_hier (us) | improvement | improvement over "
            "caffe_style_cell |\n"
            "| ---: | ---: | ---: | ---: | ---: | ---: |\n",
            fused / 4e6, fused / 1e6);
    for (int r = 0; r < rs_table_nrows(t); r++) {
        double p = atof(sim_cell(t, r, "p"));
        if (strcmp(sim_cell(t, r, "algo"), "fused_hier") != 0 || p < 2)
            continue;
        char a[32], b[32];
        times_x(at(t, "caffe_style", p, "improvement"), a, sizeof a);
        times_x(at(t, "caffe_style_cell", p, "improvement"), b, sizeof b);
        fprintf(f, "| %d | %.0f | %.0f | %.0f | %s | %s |\n", (int)p, atof(at(t, "caffe_style", p, "time_us")),
                atof(at(t, "caffe_style_cell", p, "time_us")), atof(at(t, "fused_hier", p, "time_us")), a, b);
    }
    fprintf(f, "\n");
    /* the target at 800 nodes, or the largest node count below */
    for (int r = 0; r < rs_table_nrows(t); r++) {
        double p = atof(sim_cell(t, r, "p"));
        if (*sim_cell(t, r, "improvement") && strcmp(sim_cell(t, r, "algo"), "fused_hier") != 0 && p <= 800 && p > top)
            top = p;
    }
    if (top > 0) {
        double a = atof(at(t, "caffe_style", top, "improvement")), c = atof(at(t, "caffe_style_cell", top, "improvement"));
        fprintf(f, "Target (fused hier >= 20x faster than the Caffe-style baseline at 800 nodes), at %d nodes: "
                   "caffe_style %.3gx (%s); the milder caffe_style_cell %.3gx (%s).\n",
                (int)top, a, a >= 20 ? "met" : "NOT met", c, c >= 20 ? "met" : "not met");
        double lo[2], hi[2];
        if (sim_caffe_band(run, top, lo, hi))
            fprintf(f, "With the platform's bandwidths or its latencies off by 2x each way (caffe_platform_*.csv): "
                       "caffe_style **%.3gx-%.3gx**, caffe_style_cell **%.3gx-%.3gx**.\n",
                    lo[0], hi[0], lo[1], hi[1]);
    }
    fprintf(f, "\n");
    rs_table_free(t);
}

/* Lines "KEY | cells |" sorted by the text before the first space, then the numbers
 * after it, then the whole line; printed from the first "| ". */
typedef struct {
    char line[1024];
    double n1, n2;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    size_t lx = strcspn(x->line, " "), ly = strcspn(y->line, " ");
    int c = strncmp(x->line, y->line, lx < ly ? lx : ly);
    if (c == 0 && lx != ly)
        c = lx < ly ? -1 : 1;
    if (c == 0 && x->n1 != y->n1)
        c = x->n1 < y->n1 ? -1 : 1;
    if (c == 0 && x->n2 != y->n2)
        c = x->n2 < y->n2 ? -1 : 1;
    return c ? c : strcmp(x->line, y->line);
}

static void print_sorted(keyed *k, int n, FILE *f)
{
    qsort(k, (size_t)n, sizeof *k, by_key);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s\n", strstr(k[i].line, "| "));
}

static void p50(const char *v, char *buf, size_t len)
{
    if (*v)
        snprintf(buf, len, "%.4g", atof(v));
    else
        snprintf(buf, len, "-");
}

/* A row of the placement table: at 800 nodes, timed, not the bound. */
static int counts(const rs_table *t, int r)
{
    return strcmp(sim_cell(t, r, "p"), "800") == 0 && *sim_cell(t, r, "p50_us") &&
           strcmp(sim_cell(t, r, "algo"), "bound") != 0;
}

void sim_report_placement(const char *run, FILE *f)
{
    rs_table *pl = load(run, "simulate_placement.csv"), *sim = load(run, "simulate.csv");
    if (pl && sim) {
        fprintf(f, "### Placement at 800 nodes (p50 us: consecutive / round-robin / random)\n\n"
                   "| algorithm | size | consecutive | roundrobin | random |\n"
                   "| --- | ---: | ---: | ---: | ---: |\n");
        /* (algo, bytes) with a placement other than consecutive; each placement's last time */
        const rs_table *both[2] = {sim, pl};
        int most = rs_table_nrows(sim) + rs_table_nrows(pl), n = 0;
        keyed *k = calloc((size_t)most + 1, sizeof *k);
        for (int s = 0; s < 2; s++)
            for (int r = 0; r < rs_table_nrows(both[s]); r++) {
                const rs_table *x = both[s];
                const char *a = sim_cell(x, r, "algo"), *b = sim_cell(x, r, "bytes");
                if (!counts(x, r) || strcmp(sim_cell(x, r, "placement"), "consecutive") == 0)
                    continue;
                char line[1024];
                snprintf(line, sizeof line, "%s %d |", a, (int)atof(b));
                int seen = 0;
                for (int i = 0; i < n && !seen; i++)
                    seen = strncmp(k[i].line, line, strlen(line)) == 0;
                if (seen)
                    continue;
                const char *t[3] = {"", "", ""};
                static const char *const how[3] = {"consecutive", "roundrobin", "random"};
                for (int u = 0; u < 2; u++)
                    for (int q = 0; q < rs_table_nrows(both[u]); q++)
                        for (int h = 0; h < 3; h++)
                            if (counts(both[u], q) && strcmp(sim_cell(both[u], q, "algo"), a) == 0 &&
                                strcmp(sim_cell(both[u], q, "bytes"), b) == 0 &&
                                strcmp(sim_cell(both[u], q, "placement"), how[h]) == 0)
                                t[h] = sim_cell(both[u], q, "p50_us");
                char hb[64], c[3][32];
                sim_human(atof(b), hb, sizeof hb);
                for (int h = 0; h < 3; h++)
                    p50(t[h], c[h], sizeof c[h]);
                k[n].n1 = atof(b);
                snprintf(k[n++].line, sizeof k->line, "%s %s | %s | %s | %s | %s |", line, a, hb, c[0],
                         c[1], c[2]);
            }
        print_sorted(k, n, f);
        free(k);
        fprintf(f, "\n");
    }
    rs_table_free(pl);
    rs_table_free(sim);
}

void sim_report_platforms(const char *run, FILE *f)
{
    rs_table *t = load(run, "simulate_platforms.csv");
    if (!t)
        return;
    fprintf(f, "### Other networks (p50 us; the same nodes, 16 GB/s injection)\n\n"
               "| platform | nodes | size | best algorithm | us | x bound | hier us | rabenseifner us | smpi:ompi us |\n"
               "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |\n");
    int rows = rs_table_nrows(t), n = 0;
    keyed *k = calloc((size_t)rows + 1, sizeof *k);
    for (int r = 0; r < rows; r++) {
        const char *pf = sim_cell(t, r, "platform"), *p = sim_cell(t, r, "p"), *b = sim_cell(t, r, "bytes");
        if (!*sim_cell(t, r, "p50_us"))
            continue;
        int seen = 0;
        for (int i = 0; i < r && !seen; i++)
            seen = *sim_cell(t, i, "p50_us") && strcmp(sim_cell(t, i, "platform"), pf) == 0 &&
                   strcmp(sim_cell(t, i, "p"), p) == 0 && strcmp(sim_cell(t, i, "bytes"), b) == 0;
        if (seen)
            continue;
        /* this (platform, p, size): the best algorithm, the bound, three algorithms' times */
        double best = 0, bound = 0;
        const char *win = "", *tt[3] = {NULL, NULL, NULL};
        static const char *const named[3] = {"hier", "rabenseifner", "smpi:ompi"};
        int has_best = 0;
        for (int q = r; q < rows; q++) {
            if (!*sim_cell(t, q, "p50_us") || strcmp(sim_cell(t, q, "platform"), pf) != 0 ||
                strcmp(sim_cell(t, q, "p"), p) != 0 || strcmp(sim_cell(t, q, "bytes"), b) != 0)
                continue;
            const char *a = sim_cell(t, q, "algo");
            double v = atof(sim_cell(t, q, "p50_us"));
            for (int i = 0; i < 3; i++)
                if (strcmp(a, named[i]) == 0)
                    tt[i] = sim_cell(t, q, "p50_us");
            if (strcmp(a, "bound") == 0)
                bound = v;
            else if (!has_best || v < best)
                best = v, win = a, has_best = 1;
        }
        char x[32] = "-", c[3][32];
        if (bound > 0)
            snprintf(x, sizeof x, "%.3g", best / bound);
        for (int i = 0; i < 3; i++)
            if (tt[i])
                snprintf(c[i], sizeof c[i], "%.4g", atof(tt[i]));
            else
                snprintf(c[i], sizeof c[i], "-");
        k[n].n1 = atof(p);
        k[n].n2 = atof(b);
        snprintf(k[n++].line, sizeof k->line, "%s %d %d | %s | %d | %d | %s | %.4g | %s | %s | %s | %s |", pf,
                 (int)atof(p), (int)atof(b), pf, (int)atof(p), (int)atof(b), win, best, x, c[0], c[1], c[2]);
    }
    print_sorted(k, n, f);
    free(k);
    fprintf(f, "\n");
    rs_table_free(t);
}
