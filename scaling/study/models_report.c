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
    int row, full, hidden, done;   /* done: test ppl and completion both known */
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
        v[r].done = *cell(t, r, "test_ppl", a, sizeof a) && *cell(t, r, "completion_accuracy", b, sizeof b);
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
    fprintf(f, "| cell | output layer | hidden | seed | classes | parameters | steps | tokens | tokens/s | valid ppl "
               "| at equal time | at equal GFLOP | test ppl | completion | stop |\n");
    fprintf(f, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (int k = 0; k < n; k++) {
        int r = order[k].row;
        char acc[64] = "";
        if (*cell(t, r, "completion_accuracy", a, sizeof a))
            snprintf(acc, sizeof acc, "%.1f%% +- %.1f", 100 * atof(a),
                     100 * atof(cell(t, r, "completion_se", b, sizeof b)));
        char v[14][256];
        static const char *const cols[] = {"output", "hidden", "seed", "classes", "params", "steps", "tokens",
                                           "valid_ppl", "test_ppl", "stop", "tokens_per_s",
                                           "valid_ppl_at_equal_seconds", "valid_ppl_at_equal_gflop", "status"};
        for (int c = 0; c < 14; c++)
            cell(t, r, cols[c], v[c], sizeof v[c]);
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s |\n", order[k].cell,
                v[0], v[1], v[2], v[3], v[4], v[5], v[6], atof(v[10]), v[7], v[11], v[12], v[8], acc,
                *v[9] ? v[9] : v[13]);
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

/* Per cell: the modest class-based model (the smallest hidden with a class layer, over
 * its seeds) against each larger full-softmax one.  Holds: one beats it on test ppl and
 * on completion by more than twice the difference's standard error; does not hold: it
 * beats every one on completion so; inconclusive otherwise. */
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
        fprintf(f, "%s: modest class-based model, hidden %d (%d seed%s): test ppl %.1f, completion %.1f%% +- %.1f.\n\n",
                v[r].cell, m->hidden, m->seeds, m->seeds == 1 ? "" : "s", m->ppl, 100 * m->acc, 100 * m->se);
        int larger = 0, holds = 0, loses = 0;
        for (int k = 0; k < np; k++) {
            const pooled *x = &p[k];
            if (!x->full || x->hidden <= m->hidden)
                continue;
            larger++;
            double d = x->acc - m->acc, se = sqrt(x->se * x->se + m->se * m->se);
            int sig = fabs(d) > 2 * se;
            holds += x->ppl < m->ppl && d > 0 && sig;
            loses += d < 0 && sig;
            fprintf(f, "- full softmax, hidden %d: test ppl %.1f (%s), completion %.1f%% (%+.1f points, %s)\n",
                    x->hidden, x->ppl, x->ppl < m->ppl ? "better" : "worse", 100 * x->acc, 100 * d,
                    sig ? "beyond 2 standard errors" : "within 2 standard errors: not a difference");
        }
        if (larger == 0)
            fprintf(f, "\n**Verdict (%s):** no larger full-softmax point finished: the claim is not checked.\n\n",
                    v[r].cell);
        else if (holds)
            fprintf(f, "\n**Verdict (%s): holds here** — a larger full-softmax model beats the modest class-based "
                       "one on test perplexity and, beyond noise, on completion.\n\n", v[r].cell);
        else if (loses == larger)
            fprintf(f, "\n**Verdict (%s): does not hold here** — the modest class-based model beats every larger "
                       "full-softmax one on completion, beyond noise.\n\n", v[r].cell);
        else
            fprintf(f, "\n**Verdict (%s): inconclusive** — no larger full-softmax model is better on both, and "
                       "not every one is worse beyond noise (within 2 standard errors).\n\n", v[r].cell);
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
               "class-based one (47%% on MSR sentence completion). Here each model (cells %s, seeds %s) %s;\n"
               "`--threads %s`, batch %s, bptt %s, `%s`, on `--corpus %s` (vocabulary V = %s; the class layer has\n"
               "%s classes ~ sqrt(V)), with a class layer and with the full softmax, at each hidden size;\n"
               "then valid and test perplexity and an MSR-style sentence completion test of\n"
               "%s held-out test sentences per seed (chance 20%%; +- one standard error). Equal time and\n"
               "equal GEMM work are further axes: each model's valid ppl at the last evaluation within the\n"
               "least training seconds, and the least GFLOP, any model of its cell and seed took. The full\n"
               "softmax costs V x hidden per token where the class layer costs (classes + V/classes) x hidden.\n\n",
            S("CELLS"), S("SEEDS"), budget, S("THREADS"), S("BATCH"), S("BPTT"), S("OPT_FLAGS"), S("CORPUS"),
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
