/* models_report.c — the model-size study's section (Markdown) from its table: the
 * table, the Kneser-Ney trigram beside, and the verdict on the GPU study's claim that a
 * larger model without a class layer beats a modest class-based one, at this budget. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "models_study.h"
#include "fsio.h"

typedef struct {
    int row, full, hidden, seed, done;   /* done: at its chosen rate, test ppl and completion known */
    char cell[16];
    double ppl, acc, se;
} model_row;

static const char *cell(const rs_table *t, int r, const char *col, char *buf, size_t len)
{
    int c = rs_table_col_index(t, col);
    buf[0] = 0;
    if (c >= 0)
        rs_cell_text(t, r, c, buf, len);
    return buf;
}

static int by_cell_layer_hidden(const void *a, const void *b)
{
    const model_row *x = a, *y = b;
    int c = strcmp(x->cell, y->cell);
    if (c)
        return c;
    if (x->full != y->full)
        return x->full - y->full;
    return x->hidden != y->hidden ? x->hidden - y->hidden : x->row - y->row;
}

static model_row *rows_of(const rs_table *t)
{
    int n = rs_table_nrows(t);
    model_row *v = calloc((size_t)n + 1, sizeof *v);
    RS_ASSERT(v != NULL);
    char a[256], b[256];
    for (int r = 0; r < n; r++) {
        v[r].row = r;
        v[r].full = strcmp(cell(t, r, "output", a, sizeof a), "full") == 0;
        v[r].hidden = atoi(cell(t, r, "hidden", a, sizeof a));
        snprintf(v[r].cell, sizeof v[r].cell, "%s", *cell(t, r, "model", a, sizeof a) ? a : "lstm");
        v[r].seed = atoi(cell(t, r, "seed", a, sizeof a));
        int chosen = strcmp(cell(t, r, "chosen", a, sizeof a), "0") != 0;   /* "": before rates were tried */
        v[r].done = chosen && *cell(t, r, "test_ppl", a, sizeof a) && *cell(t, r, "completion_accuracy", b, sizeof b);
        v[r].ppl = atof(a);
        v[r].acc = atof(b);
        v[r].se = atof(cell(t, r, "completion_se", a, sizeof a));
    }
    qsort(v, (size_t)n, sizeof *v, by_cell_layer_hidden);
    return v;
}

static void table(const rs_table *t, FILE *f)
{
    int n = rs_table_nrows(t);
    model_row *order = rows_of(t);
    char a[256], b[256];
    fprintf(f, "| cell | output layer | hidden | rate | seed | classes | parameters | steps | tokens | tokens/s | "
               "valid ppl | at equal time | at equal GFLOP | test ppl | completion | stop |\n");
    fprintf(f, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: "
               "| --- |\n");
    for (int k = 0; k < n; k++) {
        int r = order[k].row;
        char acc[64] = "";
        if (*cell(t, r, "completion_accuracy", a, sizeof a))
            snprintf(acc, sizeof acc, "%.1f%% +- %.1f", 100 * atof(a),
                     100 * atof(cell(t, r, "completion_se", b, sizeof b)));
        char v[16][256];
        static const char *const cols[] = {"output", "hidden", "seed", "classes", "params", "steps", "tokens",
                                           "valid_ppl", "test_ppl", "stop", "tokens_per_s",
                                           "valid_ppl_at_equal_seconds", "valid_ppl_at_equal_gflop", "status",
                                           "lr", "chosen"};
        for (int c = 0; c < 16; c++)
            cell(t, r, cols[c], v[c], sizeof v[c]);
        fprintf(f, "| %s | %s | %s | %s%s | %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s |\n",
                order[k].cell, v[0], v[1], *v[14] ? v[14] : "-", strcmp(v[15], "1") == 0 && *v[14] ? " (chosen)" : "",
                v[2], v[3], v[4], v[5], v[6], atof(v[10]), v[7], v[11], v[12], v[8], acc, *v[9] ? v[9] : v[13]);
    }
    if (n > 0)
        fprintf(f, "| Kneser-Ney trigram | | | | | | | | | %s | | | %s | %.1f%% | |\n",
                cell(t, 0, "kn3_valid_ppl", a, sizeof a), cell(t, 0, "kn3_test_ppl", b, sizeof b),
                100 * atof(cell(t, 0, "kn3_completion_accuracy", b, sizeof b)));
    free(order);
}

/* A (cell, output, hidden) model over its seeds: mean test ppl, pooled completion and its
 * standard error (independent question sets: sqrt of the summed variances / seeds). */
typedef struct {
    int hidden, full, seeds;
    double ppl, acc, se;
} pooled;

static int pool(const model_row *v, int n, const char *c, pooled *p, int most)
{
    int np = 0;
    for (int r = 0; r < n; r++) {
        if (!v[r].done || strcmp(v[r].cell, c) != 0)
            continue;
        int k = 0;
        while (k < np && (p[k].hidden != v[r].hidden || p[k].full != v[r].full))
            k++;
        if (k == np) {
            if (np == most)
                continue;
            p[np++] = (pooled){v[r].hidden, v[r].full, 0, 0, 0, 0};
        }
        p[k].seeds++;
        p[k].ppl += v[r].ppl;
        p[k].acc += v[r].acc;
        p[k].se += v[r].se * v[r].se;
    }
    for (int k = 0; k < np; k++) {
        p[k].ppl /= p[k].seeds;
        p[k].acc /= p[k].seeds;
        p[k].se = sqrt(p[k].se) / p[k].seeds;
    }
    return np;
}

/* The two-sided 97.5% quantile of Student's t with dof degrees of freedom (1..10; more:
 * 10's, which is wider than the true one). */
static double t975(int dof)
{
    static const double q[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228};
    return q[(dof < 1 ? 1 : dof > 10 ? 10 : dof) - 1];
}

/* The paired differences x->f - m->f over each seed both ran at their chosen rates (f:
 * completion accuracy, or log test ppl): their mean and 95% t interval (n - 1 degrees of
 * freedom; NAN with fewer than two pairs).  How many pairs. */
typedef struct {
    double lo, hi;
} interval;

static int paired(const model_row *v, int n, const model_row *m, int mh, int xh, int use_ppl, double *mean,
                  interval *ci)
{
    double d[64];
    int k = 0;
    for (int i = 0; i < n && k < 64; i++) {
        if (!v[i].done || strcmp(v[i].cell, m->cell) || !v[i].full || v[i].hidden != xh)
            continue;
        for (int j = 0; j < n; j++)
            if (v[j].done && !strcmp(v[j].cell, m->cell) && !v[j].full && v[j].hidden == mh && v[j].seed == v[i].seed)
                d[k++] = use_ppl ? log(v[i].ppl) - log(v[j].ppl) : v[i].acc - v[j].acc;
    }
    double s = 0, ss = 0;
    for (int i = 0; i < k; i++)
        s += d[i];
    *mean = k ? s / k : NAN;
    for (int i = 0; i < k; i++)
        ss += (d[i] - *mean) * (d[i] - *mean);
    double half = k >= 2 ? t975(k - 1) * sqrt(ss / (k - 1) / k) : NAN;
    *ci = (interval){*mean - half, *mean + half};
    return k;
}

/* Per cell: the modest class-based model (the smallest hidden with a class layer) against
 * each larger full-softmax one, paired by seed at each model's chosen rate.  Holds: a
 * larger one is better on completion and on test ppl, both 95% t intervals of the paired
 * differences clear of 0; does not hold: the modest one is better on completion so
 * against every larger one; inconclusive otherwise (or with fewer than two pairs). */
static void verdict(const rs_table *t, FILE *f)
{
    int n = rs_table_nrows(t);
    model_row *v = rows_of(t);
    char done[512] = " ";
    for (int r = 0; r < n; r++) {
        char key[32];
        snprintf(key, sizeof key, " %s ", v[r].cell);
        if (strstr(done, key))
            continue;
        snprintf(done + strlen(done), sizeof done - strlen(done), "%s ", v[r].cell);
        pooled p[64];
        int np = pool(v, n, v[r].cell, p, 64);
        const pooled *m = NULL;
        for (int k = 0; k < np; k++)
            if (!p[k].full && (!m || p[k].hidden < m->hidden))
                m = &p[k];
        if (!m) {
            fprintf(f, "- %s: no class-based point finished: the claim is not checked\n", v[r].cell);
            continue;
        }
        fprintf(f, "%s: modest class-based model, hidden %d (%d seed%s): test ppl %.1f, completion %.1f%%.\n\n",
                v[r].cell, m->hidden, m->seeds, m->seeds == 1 ? "" : "s", m->ppl, 100 * m->acc);
        int larger = 0, holds = 0, loses = 0;
        for (int k = 0; k < np; k++) {
            const pooled *x = &p[k];
            if (!x->full || x->hidden <= m->hidden)
                continue;
            larger++;
            double da, dl;
            interval ca, cl;
            int pairs = paired(v, n, &v[r], m->hidden, x->hidden, 0, &da, &ca);
            paired(v, n, &v[r], m->hidden, x->hidden, 1, &dl, &cl);
            int better = pairs >= 2 && ca.lo > 0 && cl.hi < 0, worse = pairs >= 2 && ca.hi < 0;
            holds += better, loses += worse;
            fprintf(f, "- full softmax, hidden %d, %d pair%s by seed: completion %+.1f points", x->hidden, pairs,
                    pairs == 1 ? "" : "s", 100 * da);
            if (pairs >= 2)
                fprintf(f, " [%+.1f, %+.1f], test ppl x %.3f [%.3f, %.3f] (95%% t intervals, %d degrees of "
                           "freedom)%s\n", 100 * ca.lo, 100 * ca.hi, exp(dl), exp(cl.lo), exp(cl.hi), pairs - 1,
                        better ? ": better on both" : worse ? ": worse on completion" : ": not a difference");
            else
                fprintf(f, ", test ppl x %.3f (one pair: no interval)\n", exp(dl));
        }
        if (larger == 0)
            fprintf(f, "\n**Verdict (%s):** no larger full-softmax point finished: the claim is not checked.\n\n",
                    v[r].cell);
        else if (holds)
            fprintf(f, "\n**Verdict (%s): holds here** — a larger full-softmax model beats the modest class-based "
                       "one on completion and test perplexity, paired by seed, beyond the 95%% t interval.\n\n",
                    v[r].cell);
        else if (loses == larger)
            fprintf(f, "\n**Verdict (%s): does not hold here** — the modest class-based model beats every larger "
                       "full-softmax one on completion, paired by seed, beyond the 95%% t interval.\n\n", v[r].cell);
        else
            fprintf(f, "\n**Verdict (%s): inconclusive** — no larger full-softmax model is better on both beyond "
                       "the paired 95%% t interval, and not every one is worse.\n\n", v[r].cell);
    }
    free(v);
}

int models_report(const study_run *r, const char *csv, FILE *f)
{
    rs_table *t = rs_table_read_csv(csv);
    if (!t)
        return -1;
    char vocab[64] = "", classes[64] = "", questions[64] = "", buf[64];
    rs_table *kn3 = study_point_csv(r, "models-kn3", "summary.csv");
    study_cell(kn3, "vocab", vocab, sizeof vocab);
    if (kn3)
        rs_table_free(kn3);
    for (int i = 0; i < rs_table_nrows(t) && !classes[0]; i++)
        if (strcmp(cell(t, i, "output", buf, sizeof buf), "class") == 0)
            cell(t, i, "classes", classes, sizeof classes);
    if (rs_table_nrows(t) > 0)
        cell(t, 0, "completion_questions", questions, sizeof questions);
#define S(name) study_value(r, name)
    char budget[512];
    if (atol(S("TOKENS")) > 0)
        snprintf(budget, sizeof budget, "trains on %s tokens (`--steps`, the same for every model), stopping "
                 "early where `%s`'s schedule finds a plateau (evaluations every %s steps)", S("TOKENS"),
                 S("OPT_FLAGS"), S("EVAL_EVERY"));
    else
        snprintf(budget, sizeof budget, "trains for %s s of one thread (`rnn-train --max-seconds`, evaluations "
                 "excluded)", S("BUDGET_S"));
    fprintf(f, "## Model size: class layer or full softmax\n\n"
               "The GPU study reports that a larger RNN without a class layer beats a modest\n"
               "class-based one (47%% on MSR sentence completion). Here each model (cells %s) %s;\n"
               "it trains at each rate of LR_LIST = %s (the first seed), then seeds SEEDS = %s at the rate with its\n"
               "lowest valid ppl (\"chosen\"), paired by seed across the models;\n"
               "`--threads %s`, batch %s, bptt %s, `%s`, on `--corpus %s` (vocabulary V = %s; the class layer has\n"
               "%s classes ~ sqrt(V)), with a class layer and with the full softmax, at each hidden size;\n"
               "then valid and test perplexity and an MSR-style sentence completion test of\n"
               "%s held-out test sentences per seed (chance 20%%; +- one standard error). Equal time and\n"
               "equal GEMM work are further axes: each model's valid ppl at the last evaluation within the\n"
               "least training seconds, and the least GFLOP, any model of its cell and seed took. The full\n"
               "softmax costs V x hidden per token where the class layer costs (classes + V/classes) x hidden;\n"
               "at equal hidden the two have nearly equal parameters (the class layer adds classes x hidden), so\n"
               "equal hidden is equal parameters here, and equal GFLOP the comparison at equal work.\n\n",
            S("CELLS"), budget, *S("LR_LIST") ? S("LR_LIST") : "(OPT_FLAGS's)", S("SEEDS"), S("THREADS"), S("BATCH"), S("BPTT"), S("OPT_FLAGS"), S("CORPUS"),
            vocab, classes, questions);
#undef S
    table(t, f);
    fprintf(f, "\n");
    verdict(t, f);
    fprintf(f, "\nA time budget is wall time: what else ran on the machine meanwhile lowers every model's\n"
               "tokens per budget alike only if the load was steady (a token budget is immune). The settings and\n"
               "every point's output are in `models_settings.txt` and `points/models-*/`.\n\n");
    char png[2600];
    snprintf(png, sizeof png, "%s/figures/scaling_models.png", r->dir);
    FILE *p = rs_fopen_read(png);
    if (p) {
        fclose(p);
        fprintf(f, "![perplexity and completion against hidden size](figures/scaling_models.png)\n");
    }
    rs_table_free(t);
    return ferror(f) ? -1 : 0;
}
