/* models_report.c — the model-size study's section (Markdown) from its table: the
 * table, the Kneser-Ney trigram beside, and the verdict on the GPU study's claim that a
 * larger model without a class layer beats a modest class-based one, at this budget. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "models_study.h"

typedef struct {
    int row, full, hidden, done;   /* done: test ppl and completion both known */
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

static int by_layer_then_hidden(const void *a, const void *b)
{
    const model_row *x = a, *y = b;
    if (x->full != y->full)
        return x->full - y->full;
    return x->hidden != y->hidden ? x->hidden - y->hidden : x->row - y->row;
}

static void table(const rs_table *t, FILE *f)
{
    int n = rs_table_nrows(t);
    model_row *order = calloc((size_t)n + 1, sizeof *order);
    RS_ASSERT(order != NULL);
    char a[256], b[256];
    for (int r = 0; r < n; r++) {
        order[r].full = strcmp(cell(t, r, "output", a, sizeof a), "full") == 0;
        order[r].hidden = atoi(cell(t, r, "hidden", a, sizeof a));
        order[r].row = r;
    }
    qsort(order, (size_t)n, sizeof *order, by_layer_then_hidden);
    fprintf(f, "| output layer | hidden | classes | parameters | steps | tokens | tokens/s | valid ppl "
               "| test ppl | completion | status |\n");
    fprintf(f, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
    for (int k = 0; k < n; k++) {
        int r = order[k].row;
        char acc[64] = "";
        if (*cell(t, r, "completion_accuracy", a, sizeof a))
            snprintf(acc, sizeof acc, "%.1f%% +- %.1f", 100 * atof(a),
                     100 * atof(cell(t, r, "completion_se", b, sizeof b)));
        char v[10][256];
        static const char *const cols[] = {"output", "hidden", "classes", "params", "steps", "tokens",
                                           "valid_ppl", "test_ppl", "status", "tokens_per_s"};
        for (int c = 0; c < 10; c++)
            cell(t, r, cols[c], v[c], sizeof v[c]);
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %s |\n", v[0], v[1], v[2], v[3],
                v[4], v[5], atof(v[9]), v[6], v[7], acc, v[8]);
    }
    if (n > 0)
        fprintf(f, "| Kneser-Ney trigram | | | | | | | %s | %s | %.1f%% | |\n",
                cell(t, 0, "kn3_valid_ppl", a, sizeof a), cell(t, 0, "kn3_test_ppl", b, sizeof b),
                100 * atof(cell(t, 0, "kn3_completion_accuracy", b, sizeof b)));
    free(order);
}

/* The modest class-based model (the smallest hidden with a class layer) against each
 * larger full-softmax one: test ppl and completion; a completion gap counts when it is
 * over twice its standard error.  Then the best of each output layer by test ppl. */
static void verdict(const rs_table *t, FILE *f)
{
    int n = rs_table_nrows(t);
    model_row *v = calloc((size_t)n + 1, sizeof *v);
    RS_ASSERT(v != NULL);
    char a[256], b[256];
    for (int r = 0; r < n; r++) {
        v[r].row = r;
        v[r].full = strcmp(cell(t, r, "output", a, sizeof a), "full") == 0;
        v[r].hidden = atoi(cell(t, r, "hidden", a, sizeof a));
        v[r].done = *cell(t, r, "test_ppl", a, sizeof a) && *cell(t, r, "completion_accuracy", b, sizeof b);
        v[r].ppl = atof(a);
        v[r].acc = atof(b);
        v[r].se = atof(cell(t, r, "completion_se", a, sizeof a));
    }
    qsort(v, (size_t)n, sizeof *v, by_layer_then_hidden);
    const model_row *m = NULL, *best[2] = {NULL, NULL};
    for (int r = 0; r < n; r++) {
        const model_row *x = &v[r];
        if (!x->done)
            continue;
        if (!x->full && !m)
            m = x;   /* the smallest class-based one */
        const model_row **bo = &best[x->full];
        if (!*bo || x->ppl < (*bo)->ppl || (x->ppl == (*bo)->ppl && x->row < (*bo)->row))
            *bo = x;
    }
    if (!m) {
        fprintf(f, "- no class-based point finished: the claim is not checked\n");
        free(v);
        return;
    }
    fprintf(f, "Modest class-based model: hidden %d, test ppl %.1f, completion %.1f%%.\n\n", m->hidden,
            m->ppl, 100 * m->acc);
    int larger = 0, both = 0;
    for (int r = 0; r < n; r++) {
        const model_row *x = &v[r];
        if (!x->done || !x->full || x->hidden <= m->hidden)
            continue;
        larger++;
        int better = x->ppl < m->ppl;
        double d = x->acc - m->acc;
        int sig = fabs(d) > 2 * sqrt(x->se * x->se + m->se * m->se);
        both += better && d > 0 && sig;
        fprintf(f, "- full softmax, hidden %d: test ppl %.1f (%s), completion %.1f%% (%+.1f points, %s)\n",
                x->hidden, x->ppl, better ? "better" : "worse", 100 * x->acc, 100 * d,
                sig ? "beyond 2 standard errors" : "within 2 standard errors: not a difference");
    }
    for (int full = 1; full >= 0; full--)
        if (best[full])
            fprintf(f, "- the best %s model at this budget (by test ppl): hidden %d, test ppl %.1f, "
                    "completion %.1f%%\n", full ? "full-softmax" : "class-based", best[full]->hidden,
                    best[full]->ppl, 100 * best[full]->acc);
    fprintf(f, "\n");
    if (larger == 0)
        fprintf(f, "**Verdict:** no larger full-softmax point finished: the claim is not checked.\n");
    else if (both)
        fprintf(f, "**Verdict: holds here** — a larger full-softmax model beats the modest class-based "
                   "one on test perplexity and, beyond noise, on completion.\n");
    else
        fprintf(f, "**Verdict: does not hold here** — no larger full-softmax model beats the modest "
                   "class-based one on both test perplexity and completion (beyond noise) at this budget.\n");
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
    fprintf(f, "## Model size at a fixed training-time budget: class layer or full softmax\n\n"
               "The GPU study reports that a larger RNN without a class layer beats a modest\n"
               "class-based one (47%% on MSR sentence completion). Here each LSTM trains for\n"
               "%s s of one thread (`rnn-train --max-seconds`, evaluations excluded;\n"
               "`--threads %s`, batch %s, bptt %s, `%s`, seed %s)\n"
               "on `--corpus %s` (vocabulary V = %s; the class layer has %s classes ~ sqrt(V)),\n"
               "with a class layer and with the full softmax, at each hidden size;\n"
               "then valid and test perplexity and an MSR-style sentence completion test of\n"
               "%s held-out test sentences (chance 20%%; +- one standard error). Tokens and\n"
               "steps are what each model reached within the budget: the full softmax costs V x hidden\n"
               "per token where the class layer costs (classes + V/classes) x hidden.\n\n",
            S("BUDGET_S"), S("THREADS"), S("BATCH"), S("BPTT"), S("OPT_FLAGS"), S("SEED"), S("CORPUS"),
            vocab, classes, questions);
#undef S
    table(t, f);
    fprintf(f, "\n");
    verdict(t, f);
    fprintf(f, "\nThe budget is wall time: what else ran on the machine meanwhile lowers every model's\n"
               "tokens per budget alike only if the load was steady. The settings and every point's output are in\n"
               "`models_settings.txt` and `points/models-*/`.\n\n");
    char png[2600];
    snprintf(png, sizeof png, "%s/figures/scaling_models.png", r->dir);
    FILE *p = fopen(png, "r");
    if (p) {
        fclose(p);
        fprintf(f, "![perplexity and completion against hidden size](figures/scaling_models.png)\n");
    }
    rs_table_free(t);
    return ferror(f) ? -1 : 0;
}
