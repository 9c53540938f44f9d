/* compose_report.c — the composition study's figures and report section, from its
 * tables (read back as the project reads every CSV):
 *   figures/scaling_efficiency.png      plot/scaling_efficiency.gp (weak and strong)
 *   figures/scaling_breakdown.png       plot/scaling_breakdown.gp (the step's parts)
 *   figures/scaling_time_to_target.png  plot/scaling_time_to_target.gp
 *   scaling_compose.md                  the section "Weak and strong scaling, time to
 *                                       target", put into scaling_report.md between
 *                                       <!-- scaling_compose --> marks
 * Earlier figures and sections move to old-K/ (study_keep_aside). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "draw.h"
#include "compose_study.h"
#include "figures.h"
#include "fsio.h"

static const char *const schemes[] = {"fused-library", "fused-mpich", "fused-best", "fused-rdb", "fused-hier",
                                      "per-tensor"};
#define NSCH ((int)(sizeof schemes / sizeof schemes[0]))
static const char *const figures[] = {"scaling_efficiency", "scaling_breakdown", "scaling_time_to_target"};

static int draw_all(const study_run *r, const rs_table *target)
{
    char vars[8192], weak[2300];
    int status = 0;
    snprintf(vars, sizeof vars, "weak='%s/scaling_weak.csv'; strong='%s/scaling_strong.csv';", r->dir, r->dir);
    snprintf(weak, sizeof weak, "%s/scaling_weak.csv", r->dir);
    status |= study_draw(r->dir, figures[0], weak, vars, "compose") == 1;
    status |= study_draw(r->dir, figures[1], weak, NULL, "compose") == 1;
    /* no time to target before the convergence study has a best point */
    if (rs_table_nrows(target) > 0)
        status |= study_draw(r->dir, figures[2], NULL, NULL, "compose") == 1;
    return status;
}

static const char *cell(const rs_table *t, int row, const char *col, char *buf, size_t len)
{
    return study_cell_at(t, row, col, buf, len);
}

static double num(const rs_table *t, int row, const char *col)
{
    char buf[128];
    return strtod(cell(t, row, col, buf, sizeof buf), NULL);
}

/* "-" for no value, whole from 1000 on, else 3 significant digits */
static const char *fmt(const char *x, char *buf, size_t len)
{
    double v = strtod(x, NULL);
    snprintf(buf, len, !*x ? "-" : v >= 1000 ? "%.0f" : "%.3g", v);
    return buf;
}

/* One markdown table of node kind KIND: per (N, b), the column FIRST and each scheme's
 * COLS (each "column:label"). */
static void by_scheme(FILE *f, const rs_table *t, const char *kind, const char *first, const char *flabel,
                      const char *const *cols, int nc)
{
    int n = rs_table_nrows(t), nk = 0, *key = calloc((size_t)n + 1, sizeof *key);
    int *at = calloc((size_t)(n + 1) * NSCH, sizeof *at);   /* (key, scheme): its last row + 1 */
    RS_ASSERT(key && at);
    char a[128], b[128], c[128], d[128], s[64], buf[64];
    fprintf(f, "| N | b | %s |", flabel);
    for (int sc = 0; sc < NSCH; sc++)
        for (int i = 0; i < nc; i++)
            fprintf(f, " %s: %s |", schemes[sc], strchr(cols[i], ':') + 1);
    fprintf(f, "\n| ---: | ---: | ---: |");
    for (int i = 0; i < NSCH * nc; i++)
        fprintf(f, " ---: |");
    fprintf(f, "\n");
    for (int row = 0; row < n; row++) {
        if (strcmp(cell(t, row, "node", s, sizeof s), kind) != 0 || strcmp(cell(t, row, "study", a, sizeof a), "regime") == 0)
            continue;   /* the regime study's rows: fastest() */
        int k = 0;
        cell(t, row, "nodes", a, sizeof a);
        cell(t, row, "b", b, sizeof b);
        while (k < nk && (strcmp(cell(t, key[k], "nodes", c, sizeof c), a) != 0 ||
                          strcmp(cell(t, key[k], "b", d, sizeof d), b) != 0))
            k++;
        if (k == nk)
            key[nk++] = row;
        cell(t, row, "scheme", s, sizeof s);
        for (int sc = 0; sc < NSCH; sc++)
            if (strcmp(s, schemes[sc]) == 0)
                at[k * NSCH + sc] = row + 1;
    }
    for (int k = 0; k < nk; k++) {
        fprintf(f, "| %s | %s | %s |", cell(t, key[k], "nodes", a, sizeof a), cell(t, key[k], "b", b, sizeof b),
                fmt(cell(t, key[k], first, c, sizeof c), buf, sizeof buf));
        for (int sc = 0; sc < NSCH; sc++)
            for (int i = 0; i < nc; i++) {
                char col[64];
                snprintf(col, sizeof col, "%.*s", (int)strcspn(cols[i], ":"), cols[i]);
                int row = at[k * NSCH + sc] - 1;
                fprintf(f, " %s |", fmt(row < 0 ? "" : cell(t, row, col, c, sizeof c), buf, sizeof buf));
            }
        fprintf(f, "\n");
    }
    free(key);
    free(at);
}

/* The node count that reaches the target first, per (node kind, b, scheme); for the
 * regime study's rows (regime 1), per target, of the best optimizer at each N ("any"),
 * under the library's choice and hier. */
static void fastest(FILE *f, const rs_table *t, int regime)
{
    char a[128], b[128], c[128], d[128], e[128];
    for (int row = 0; row < rs_table_nrows(t); row++) {
        int is_regime = strcmp(cell(t, row, "study", a, sizeof a), "regime") == 0;
        if (strcmp(cell(t, row, "fastest", a, sizeof a), "1") != 0 || is_regime != regime ||
            (regime && (strcmp(cell(t, row, "optimizer", a, sizeof a), "any") != 0 ||
                        (strcmp(cell(t, row, "scheme", b, sizeof b), "fused-library") != 0 &&
                         strcmp(b, "fused-hier") != 0))))
            continue;
        fprintf(f, "- ");
        if (regime)
            fprintf(f, "target %s, ", cell(t, row, "target", e, sizeof e));
        char node[160], speedup[64];
        if (strcmp(cell(t, row, "node", a, sizeof a), "core") == 0)
            snprintf(node, sizeof node, "this core");
        else
            snprintf(node, sizeof node, "%s GFLOP/s node", cell(t, row, "node_gflops", a, sizeof a));
        if (*cell(t, row, "speedup", a, sizeof a))
            snprintf(speedup, sizeof speedup, "%.3g", strtod(a, NULL));
        else
            snprintf(speedup, sizeof speedup, "-");
        fprintf(f, "%s, b = %s, %s: N = %s, %.3g s (%s steps of %.3g ms; %sx faster than N = 1)\n", node,
                cell(t, row, "b", b, sizeof b), cell(t, row, "scheme", c, sizeof c),
                cell(t, row, "nodes", d, sizeof d),
                num(t, row, "time_to_target_s"), cell(t, row, "steps_to_target", e, sizeof e),
                num(t, row, "step_ms"), speedup);
    }
}

/* compute's spread over the repeats per b, this core's rows of the strong table, then
 * the weak one's (every b the tables use) */
static void spread(FILE *f, const rs_table *strong, const rs_table *weak)
{
    char seen[4096] = " ", key[160], b[128], s[64];
    int n = 0;
    const rs_table *t[2] = {strong, weak};
    for (int i = 0; i < 2; i++)
        for (int row = 0; row < rs_table_nrows(t[i]); row++) {
            snprintf(key, sizeof key, " %s ", cell(t[i], row, "b", b, sizeof b));
            if (strcmp(cell(t[i], row, "node", s, sizeof s), "core") != 0 || strstr(seen, key))
                continue;
            snprintf(seen + strlen(seen), sizeof seen - strlen(seen), "%s ", b);
            fprintf(f, "%sb = %s: %.4g - %.4g ms", n++ ? "; " : "", b, num(t[i], row, "compute_ms_min"),
                    num(t[i], row, "compute_ms_max"));
        }
}

/* The platform's band under a weak or strong table: each fused-library row that has one
 * (the largest N), its efficiency with the range beside it. */
static void band_lines(FILE *f, const rs_table *t, const char *kind)
{
    char k[32], lo[32], b[32], n[32];
    int any = 0;
    for (int row = 0; t && row < rs_table_nrows(t); row++)
        if (!strcmp(cell(t, row, "node", k, sizeof k), kind) && *cell(t, row, "efficiency_lo", lo, sizeof lo) &&
            ++any)
            fprintf(f, "- fused-library, b = %s, N = %s: efficiency %.3f, **%.3f-%.3f** with the platform's "
                       "bandwidths or its latencies off by 2x each way\n",
                    cell(t, row, "b", b, sizeof b), cell(t, row, "nodes", n, sizeof n), num(t, row, "efficiency"),
                    num(t, row, "efficiency_lo"), num(t, row, "efficiency_hi"));
    if (any)
        fprintf(f, "\n");
}

static int by_batch(const void *a, const void *b)
{
    double x = ((const compose_batch *)a)->batch, y = ((const compose_batch *)b)->batch;
    return (x > y) - (x < y);
}

/* Compute per sequence (the fastest repeat / b) against b, which should not rise with b
 * (a larger batch only makes the GEMMs larger): each b more than 10% above the smaller
 * b's is named with its GEMM plan and the smaller's, the first suspect (--gemm auto
 * times every backend at start-up and may pick differently per run). */
static void per_sequence(FILE *f, const study_run *r)
{
    compose_facts facts;
    if (compose_facts_read(r, &facts) != 0 || facts.nbatch == 0)
        return;
    qsort(facts.batch, (size_t)facts.nbatch, sizeof *facts.batch, by_batch);
    fprintf(f, "Compute per sequence, the fastest repeat / b:");
    for (int i = 0; i < facts.nbatch; i++)
        fprintf(f, "%s b = %g: %.3g ms", i ? ";" : "", facts.batch[i].batch,
                facts.batch[i].ms_min / facts.batch[i].batch);
    int flagged = 0;
    for (int i = 1; i < facts.nbatch; i++) {
        const compose_batch *p = &facts.batch[i - 1], *c = &facts.batch[i];
        double was = p->ms_min / p->batch, now = c->ms_min / c->batch;
        if (now > 1.10 * was)
            fprintf(f, "%s b = %g costs %.2fx b = %g's per sequence; its GEMM plan `%s`, b = %g's `%s`",
                    flagged++ ? ";" : ". Not monotone:", c->batch, now / was, p->batch, c->gemm, p->batch,
                    p->gemm);
    }
    fprintf(f, "%s\n\n", flagged ? "" : ". Monotone: it falls or stays within 10% as b grows");
    compose_facts_free(&facts);
}

typedef struct {
    double nodes;
    char scheme[64], line[512];
} check_line;

static int by_nodes_scheme(const void *a, const void *b)
{
    const check_line *x = a, *y = b;
    if (x->nodes != y->nodes)
        return x->nodes < y->nodes ? -1 : 1;
    int c = strcmp(x->scheme, y->scheme);
    return c ? c : strcmp(x->line, y->line);
}

/* The composition against train-sim, by N then scheme. */
static void check_table(FILE *f, const rs_table *t)
{
    int n = rs_table_nrows(t);
    check_line *l = calloc((size_t)n + 1, sizeof *l);
    RS_ASSERT(l != NULL);
    char a[128], g[128];
    for (int row = 0; row < n; row++) {
        l[row].nodes = num(t, row, "nodes");
        cell(t, row, "scheme", l[row].scheme, sizeof l[row].scheme);
        snprintf(l[row].line, sizeof l[row].line, "| %s | %s | %s | %.4g | %.4g | %+.1f%% | %.4g / %.4g |\n",
                 cell(t, row, "nodes", a, sizeof a), l[row].scheme, cell(t, row, "node_gflops", g, sizeof g),
                 num(t, row, "composed_step_ms"), num(t, row, "simulated_step_ms"),
                 100 * num(t, row, "rel_diff"),
                 num(t, row, "composed_exchange_ms"), num(t, row, "simulated_exchange_ms"));
    }
    qsort(l, (size_t)n, sizeof *l, by_nodes_scheme);
    for (int row = 0; row < n; row++)
        fputs(l[row].line, f);
    free(l);
}

typedef struct {
    const study_run *r;
    const rs_table *weak, *strong, *target, *check, *regime;
} section_ctx;

static int section_writer(FILE *f, void *ctx)
{
    const section_ctx *x = ctx;
    const study_run *r = x->r;
#define S(name) study_value(r, name)
    double bytes[64];
    int ntensor = compose_preset_bytes(r, bytes, 64);
    char tensors[32] = "";
    if (ntensor > 0)
        snprintf(tensors, sizeof tensors, "%d", ntensor);
    char data[512] = "";
    if (*compose_regime(r, "CORPUS"))
        snprintf(data, sizeof data, " on the regime study's data, `--corpus %s --vocab %s`",
                 compose_regime(r, "CORPUS"), compose_regime(r, "VOCAB"));
    fprintf(f, "## Weak and strong scaling, time to target\n\n"
               "The step at N nodes is composed: T(N) = compute(b) + optimizer + exposed exchange(N) +\n"
               "exposed evaluation. compute and the optimizer (momentum) are `rnn-train --bench` on this\n"
               "machine, one thread (`%s`%s), at every per-node batch b, the fastest of %s interleaved\n"
               "repeats (the machine was loaded; compute per b, fastest - slowest: ",
            compose_conv(r, "MODEL"), data, S("REPEATS"));
    spread(f, x->strong, x->weak);
    fprintf(f, "); the exchange is the model's\n"
               "own gradient (%s tensors, compose_preset.txt) simulated under SMPI on the TaihuLight model\n"
               "(`study simulate`): `fused-library` one allreduce of the flat gradient as Open MPI\n"
               "would choose it (SMPI's `ompi` selector, Open MPI's decision), `fused-mpich` as MPICH would,\n"
               "`fused-best` the fastest SMPI built-in at that N and size (rdb, rab1, rab_rdb, lr, smp_rsag,\n"
               "mvapich2, ompi, mpich; named in the tables' `algo`), `fused-rdb` recursive doubling\n"
               "(train-sim's `library`), `fused-hier` hier at the faster of its default groups and groups of\n"
               "16, or where the simulated trainer ran hier at that N and the benchmark's default groups are\n"
               "more than 5%% off its exchange, the trainer's (`hier (train-sim)`), `per-tensor` one allreduce\n"
               "per tensor per unrolled step as Open MPI would choose it (Caffe-style, each size simulated\n"
               "once and multiplied out). All are blocking, so the exchange is all exposed.\n", tensors);
    if (strcmp(S("EVAL_ASYNC"), "1") == 0)
        fprintf(f, "Evaluation: asynchronous (`--eval-async`), not exposed (0).\n");
    else
        fprintf(f, "Evaluation: synchronous, one evaluation of valid (%s streams) every %s steps in every\n"
                   "table (the study's own interval, ~1/20 of the steps to resolve the crossing, would "
                   "dominate T(N)).\n",
                compose_conv(r, "EVAL_STREAMS"), S("EVAL_EVERY"));
    fprintf(f, "Two nodes: `core`, this machine's core as measured (the machine was loaded); `gflops`, a\n"
               "node of %s GFLOP/s (%s): compute = the\n"
               "step's flops / %s GFLOP/s, the optimizer its memory traffic at %s GB/s (as\n"
               "`rnn-train-smpi` charges it), evaluation scaled by this core's GFLOP/s over the node's.\n\n",
            S("NODE_GFLOPS"), *S("NODE_GFLOPS_WHY") ? S("NODE_GFLOPS_WHY") : "set by NODE_GFLOPS",
            S("NODE_GFLOPS"), S("GAMMA_GBYTES_PER_S"));
    per_sequence(f, r);
    static const char *const step_eff[] = {"step_ms:ms", "efficiency:eff"};
    static const char *const secs[] = {"time_to_target_s:s"};
    static const char *const kinds[] = {"core", "gflops"};
    for (int k = 0; k < 2; k++) {
        fprintf(f, "### Weak scaling, %s node (per-node batch fixed): step ms, efficiency\n\n", kinds[k]);
        by_scheme(f, x->weak, kinds[k], "compute_ms", "compute ms", step_eff, 2);
        fprintf(f, "\n");
        band_lines(f, x->weak, kinds[k]);
    }
    for (int k = 0; k < 2; k++) {
        fprintf(f, "### Strong scaling, %s node (global batch %s, b = %s / N): step ms, efficiency\n\n",
                kinds[k], S("STRONG_B"), S("STRONG_B"));
        by_scheme(f, x->strong, kinds[k], "compute_ms", "compute ms", step_eff, 2);
        fprintf(f, "\n");
        band_lines(f, x->strong, kinds[k]);
    }
    fprintf(f, "### Time to target (steps of the study's best point x T(N)), seconds\n\n");
    for (int k = 0; k < 2; k++) {
        fprintf(f, "%s node:\n\n", kinds[k]);
        by_scheme(f, x->target, kinds[k], "steps_to_target", "steps", secs, 1);
        fprintf(f, "\n");
    }
    fprintf(f, "The node count that reaches the target first:\n\n");
    fastest(f, x->target, 0);
    int regime = 0;
    char st[32];
    for (int row = 0; row < rs_table_nrows(x->target); row++)
        regime |= strcmp(cell(x->target, row, "study", st, sizeof st), "regime") == 0;
    if (regime && x->regime)
        compose_regime_table(f, x->regime, S("NODE_GFLOPS"));
    fprintf(f, "\n### The composition against the simulated trainer (study train-sim, flops mode)\n\n"
               "| N | scheme | node GFLOP/s | composed ms | simulated ms | difference "
               "| exchange composed / simulated ms |\n"
               "| ---: | --- | ---: | ---: | ---: | ---: | --- |\n");
    check_table(f, x->check);
    fprintf(f, "\n");
    for (int i = 0; i < 3; i++) {
        char png[2400];
        snprintf(png, sizeof png, "%s/figures/%s.png", r->dir, figures[i]);
        if (access(png, F_OK) == 0)
            fprintf(f, "![%s](figures/%s.png)\n", figures[i], figures[i]);
    }
#undef S
    return ferror(f) ? -1 : 0;
}

/* A report whose section was written before it had its own marks holds it from this
 * line up to the next section's mark (or the end): dropped, as the section is rewritten. */
#define UNMARKED "<!-- compose_report.sh: weak and strong scaling, time to target -->\n"

static int unmarked_writer(FILE *out, void *ctx)
{
    FILE *in = rs_fopen_read(ctx);
    char line[8192];
    int skip = 0;
    while (in && fgets(line, sizeof line, in)) {
        if (strcmp(line, UNMARKED) == 0)
            skip = 1;
        else if (strncmp(line, "<!-- ", 5) == 0)
            skip = 0;
        if (!skip)
            fputs(line, out);
    }
    if (in)
        fclose(in);
    return in && !ferror(out) ? 0 : -1;
}

static int drop_unmarked(const study_run *r)
{
    char report[2400], tmp[2500], line[8192];
    snprintf(report, sizeof report, "%s/scaling_report.md", r->dir);
    FILE *f = rs_fopen_read(report);
    int found = 0;
    while (f && !found && fgets(line, sizeof line, f))
        found = strcmp(line, UNMARKED) == 0;
    if (f)
        fclose(f);
    if (!found)
        return 0;
    snprintf(tmp, sizeof tmp, "%s.unmarked", report);
    unlink(tmp);
    RS_CHECK(rs_write_atomic(tmp, unmarked_writer, report) == 0 && rename(tmp, report) == 0,
             "cannot write %s: %s", report, rs_lasterr());
    return 0;
}

int compose_report(const study_run *r)
{
    static const char *const names[] = {"weak", "strong", "time_to_target", "compose_check", "regime_time"};
    rs_table *t[5];
    int status = 0;
    for (int i = 0; i < 5; i++) {
        char path[2400];
        snprintf(path, sizeof path, "%s/scaling_%s.csv", r->dir, names[i]);
        t[i] = i == 4 && access(path, F_OK) != 0 ? NULL : rs_table_read_csv(path);   /* a folder from before it */
        if (!t[i] && i < 4) {
            fprintf(stderr, "compose: %s\n", rs_lasterr());
            status = 1;
        }
    }
    if (status == 0)
        status = study_keep_aside(r, "scaling_compose.md") != 0;
    for (int i = 0; i < 3 && status == 0; i++) {
        char png[128];
        snprintf(png, sizeof png, "figures/%s.png", figures[i]);
        status = study_keep_aside(r, png) != 0;
    }
    if (status == 0) {
        status = draw_all(r, t[2]);
        char md[2400];
        snprintf(md, sizeof md, "%s/scaling_compose.md", r->dir);
        section_ctx ctx = {r, t[0], t[1], t[2], t[3], t[4]};
        if (rs_write_atomic(md, section_writer, &ctx) == 0 && drop_unmarked(r) == 0 &&
            study_report_section(r, "scaling_compose", "scaling_compose.md") == 0)
            printf("compose: report section in %s/scaling_report.md\n", r->dir);
        else {
            fprintf(stderr, "compose: %s\n", rs_lasterr());
            status = 1;
        }
    }
    for (int i = 0; i < 5; i++)
        if (t[i])
            rs_table_free(t[i]);
    return status;
}
