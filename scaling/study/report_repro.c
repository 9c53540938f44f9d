/* report_repro.c — the scaling sections other tools write (simulate_report.md,
 * scaling_report.md), then "Reproduction": each claim of the two studies rnnscale
 * reproduces (the Sunway TaihuLight study of scaling RNN training, the GPU study of
 * large RNN language models) beside this run's figure, and a verdict: met, NOT met, or
 * not reproducible here.  A claim whose files the run lacks names the make target that
 * measures it.  Where several rows could speak for a claim, the largest (nodes,
 * speedup, ratio) does, ties going to the row whose text sorts last. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "json.h"
#include "report.h"
#include "simulate.h"
#include "study_def.h"

typedef struct {
    char **s;
    int n;
} lines;

static void __attribute__((format(printf, 2, 3))) add(lines *l, const char *fmt, ...)
{
    char buf[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    l->s = realloc(l->s, sizeof *l->s * (size_t)(l->n + 1));
    RS_ASSERT(l->s != NULL);
    l->s[l->n++] = strdup(buf);
}

static void drop(lines *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->s[i]);
    free(l->s);
    *l = (lines){0};
}

/* How the claims order their rows: by the number a line starts with, either a plain
 * decimal (sort -n) or any strtod number (sort -g, after the first ':' with colon) */
static int general, after_colon;

static long double key_of(const char *s, int *none)
{
    if (after_colon)
        s = strchr(s, ':') ? strchr(s, ':') + 1 : s + strlen(s);
    char *end;
    if (general) {
        long double v = strtold(s, &end);
        *none = end == s;
        return v;
    }
    const char *p = s + strspn(s, " \t"), *q = p + (*p == '-');
    q += strspn(q, "0123456789");
    if (*q == '.')
        q += 1 + strspn(q + 1, "0123456789");
    char num[128];
    snprintf(num, sizeof num, "%.*s", (int)(q - p < 127 ? q - p : 127), p);
    *none = 0;
    return strtold(num, &end);   /* "" and "-" read as 0, as sort -n has them */
}

static int by_key(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    int nx, ny;
    long double u = key_of(x, &nx), v = key_of(y, &ny);
    int c = nx || ny ? ny - nx : u < v ? -1 : u > v ? 1 : isnan(v) - isnan(u);
    return c ? c : strcmp(x, y);
}

static void sort_lines(lines *l, int g, int colon)
{
    general = g;
    after_colon = colon;
    if (l->n > 1)
        qsort(l->s, (size_t)l->n, sizeof *l->s, by_key);
}

static int by_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The distinct lines in order, each followed by a space: "binomial hier ring ". */
static void distinct(lines *l, char *out, size_t len)
{
    size_t k = 0;
    out[0] = 0;
    if (l->n > 1)
        qsort(l->s, (size_t)l->n, sizeof *l->s, by_text);
    for (int i = 0; i < l->n; i++)
        if ((i == 0 || strcmp(l->s[i], l->s[i - 1]) != 0) && k < len)
            k += (size_t)snprintf(out + k, len - k, "%s ", l->s[i]);
}

/* The words of the lines, all of them, as one list (W[k] "" where there are fewer). */
static int words(char *buf, size_t len, const lines *const *ls, int nls, char **w, int max)
{
    size_t k = 0;
    buf[0] = 0;
    for (int j = 0; j < nls; j++)
        for (int i = 0; i < ls[j]->n && k < len; i++)
            k += (size_t)snprintf(buf + k, len - k, "%s\n", ls[j]->s[i]);
    int n = rp_words(buf, w, max);
    for (int i = n; i < max; i++)
        w[i] = "";
    return n;
}

static void claim(report_ctx *r, const char *c, const char *study, const char *run, const char *verdict)
{
    fprintf(r->out, "- **%s** (claimed: %s). This run: %s — %s\n", c, study, run, verdict);
}

static void missing(report_ctx *r, const char *c, const char *study, const char *target)
{
    fprintf(r->out, "- **%s** (claimed: %s). Not in this run: `%s` measures it.\n", c, study, target);
}

/* exp + softmax, the Sunway TaihuLight study's two hot spots: "an overall acceleration
 * of 12.63x", met when every shape reaches it. */
static void claim_softmax(report_ctx *r)
{
    const char *c = "exp and softmax optimised: 12.63x";
    char **ls = rp_lines(r, "softmax.txt"), *l = NULL;
    for (char **p = ls; p && *p && !l; p++)
        if (strstr(*p, "in L2, 1 thread: best speedup over naive"))
            l = *p;
    if (!l) {
        missing(r, c, "12.63x over the original", "make bench");
        rp_lines_free(ls);
        return;
    }
    char got[2][32] = {"0", "0"}, text[4096];
    for (const char *p = l + strlen(l); p-- > l;)   /* the last ">= 12.63x on A of B shapes" */
        if (strncmp(p, ">= 12", 5) == 0 && p[5] && strncmp(p + 6, "63x on ", 7) == 0) {
            const char *a = p + 13, *b = a + strspn(a, "0123456789");
            if (strncmp(b, " of ", 4) != 0)
                continue;
            const char *e = b + 4 + strspn(b + 4, "0123456789");
            if (strncmp(e, " shapes", 7) != 0)
                continue;
            char k[64], *w[2];
            snprintf(k, sizeof k, "%.*s %.*s", (int)(b - a), a, (int)(e - b - 4), b + 4);
            int n = rp_words(k, w, 2);
            for (int i = 0; i < n; i++)
                snprintf(got[i], sizeof got[i], "%s", w[i]);
            break;
        }
    long long reached = atoll(got[0]), shapes = atoll(got[1]);
    const char *s = l + strspn(l, " ");
    snprintf(text, sizeof text, "softmax, %.*s; reached on %s of %s shapes", (int)strcspn(s, ";"), s, got[0], got[1]);
    claim(r, c, "12.63x over the original", text, reached > 0 && reached == shapes ? "met" : "NOT met");
    rp_lines_free(ls);
}

/* communication: redundant exchanges removed + a topology-mapped allreduce, "20 times" */
static void claim_caffe(report_ctx *r)
{
    const char *c = "redundant communication removed and MPI_Allreduce mapped to the topology: 20x";
    rs_table *t = rp_csv(r, "caffe.csv");
    lines l = {0};
    for (int i = 0; t && i < rs_table_nrows(t); i++)
        if (strcmp(rp_cell(t, i, "algo"), "fused_hier") == 0 && *rp_cell(t, i, "improvement"))
            add(&l, "%s %s", rp_cell(t, i, "p"), rp_cell(t, i, "improvement"));
    if (l.n) {
        sort_lines(&l, 0, 0);
        char buf[4096], *w[2], text[4096];
        lines last = {l.s + l.n - 1, 1};
        const lines *ls[] = {&last};
        words(buf, sizeof buf, ls, 1, w, 2);
        double lo[2], hi[2];
        char band[128] = "";
        if (sim_caffe_band(r->run, rp_num(w[0]), lo, hi))
            snprintf(band, sizeof band, " (%.1fx-%.1fx with the platform off by 2x each way)", lo[0], hi[0]);
        snprintf(text, sizeof text, "one fused hier allreduce against Caffe-style per-tensor, per-step exchanges, "
                 "LSTM-512, %s simulated TaihuLight nodes: %.1fx%s", w[0], rp_num(w[1]), band);
        claim(r, c, "20x", text, rp_cmp(w[1], 20) >= 0 ? "met" : "NOT met");
    } else
        missing(r, c, "20x", "make simulate");
    drop(&l);
    rs_table_free(t);
}

/* the distributed testing module: evaluation hidden behind training */
static void claim_eval(report_ctx *r)
{
    const char *c = "model testing hidden in high-frequency evaluation";
    rs_table *t = rp_csv(r, "train_eval.csv");
    lines a = {0}, s = {0};
    int sa = 0, ss = 0;   /* some text besides blanks */
    for (int i = 0; t && i < rs_table_nrows(t); i++) {
        const char *mode = rp_cell(t, i, "eval_mode"), *x = rp_cell(t, i, "eval_exposed_fraction");
        if (strcmp(mode, "async") == 0 && *x) {
            add(&a, "%s %s %s", x, rp_cell(t, i, "eval_every"), rp_cell(t, i, "eval_ms"));
            sa = 1;
        } else if (strcmp(mode, "serial") == 0) {
            add(&s, "%s", x);
            ss = ss || *x;
        }
    }
    if (sa && ss) {
        char buf[8192], *w[4], text[4096];
        const lines *ls[] = {&a, &s};
        words(buf, sizeof buf, ls, 2, w, 4);
        snprintf(text, sizeof text, "evaluation every %s steps (%.0f ms each): %.1f%% of it exposed with "
                 "--eval-async, %.1f%% serial (target <= 10%%)", w[1], rp_num(w[2]), 100 * rp_num(w[0]),
                 100 * rp_num(w[3]));
        claim(r, c, "completely hidden", text, rp_cmp(w[0], 0.10) <= 0 ? "met" : "NOT met");
    } else
        missing(r, c, "completely hidden", "make bench");
    drop(&a);
    drop(&s);
    rs_table_free(t);
}

/* The ratios of the convergence study's fits (scaling_fit.json: each fitted b's
 * steps(N = 1) / steps(N = 100)) as "b:ratio ...", the largest into *best: how many. */
static int moby_ratios(report_ctx *r, char *all, size_t len, char *best, size_t blen)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/scaling_fit.json", r->run);
    rs_json *j = access(path, R_OK) == 0 ? rs_json_load(path) : NULL;
    const rs_json *fits = j ? rs_json_get(j, "fits") : NULL;
    lines l = {0};
    size_t k = 0;
    all[0] = best[0] = 0;
    for (int i = 0; fits && fits->type == RS_JARR && i < fits->n; i++) {
        const rs_json *g = fits->items[i], *b = rs_json_get(g, "b");
        const rs_json *ratio = rs_json_path(g, "claim.ratio");
        if (rs_json_get(g, "no_fit") || !b || b->type != RS_JNUM || !ratio || ratio->type != RS_JNUM)
            continue;
        add(&l, "%g:%.4g", b->num, ratio->num);
        if (k < len)
            k += (size_t)snprintf(all + k, len - k, "%s%s", k ? " " : "", l.s[l.n - 1]);
    }
    if (l.n) {
        sort_lines(&l, 1, 1);
        snprintf(best, blen, "%s", strchr(l.s[l.n - 1], ':') + 1);
    }
    int n = l.n;
    drop(&l);
    rs_json_free(j);
    return n;
}

/* The regime study's verdicts (regime_fit.json, the best optimizer at each N: "any"),
 * one clause per target: 0 where the run has none.  *holds, *fails: how many targets
 * hold, do not hold. */
static int regime_clauses(report_ctx *r, char *text, size_t len, int *holds, int *fails)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/regime_fit.json", r->run);
    rs_json *j = access(path, R_OK) == 0 ? rs_json_load(path) : NULL;
    const rs_json *fits = j ? rs_json_get(j, "fits") : NULL;
    size_t k = 0;
    int n = 0;
    *holds = *fails = 0;
    text[0] = 0;
    for (int i = 0; fits && fits->type == RS_JARR && i < fits->n; i++) {
        const rs_json *g = fits->items[i], *o = rs_json_get(g, "optimizer"), *t = rs_json_get(g, "target");
        const rs_json *v = rs_json_path(g, "claim.verdict"), *iv = rs_json_path(g, "claim.ratio_interval");
        if (!o || o->type != RS_JSTR || strcmp(o->str, "any") != 0 || !t || t->type != RS_JSTR || !v ||
            v->type != RS_JSTR || !iv || iv->type != RS_JARR || iv->n != 2)
            continue;
        double ratio = rs_json_num(g, "claim.ratio", NAN), lo = iv->items[0]->num, hi = iv->items[1]->num;
        double bc = rs_json_num(g, "b_crit", NAN);
        const rs_json *bi = rs_json_get(g, "b_crit_95"), *fits_form = rs_json_get(g, "form_describes_points");
        char bct[160] = "no fit of S = S_min + E_min / B";
        if (isfinite(bc) && bi && bi->type == RS_JARR && bi->n == 2 && fits_form && fits_form->type == RS_JBOOL &&
            fits_form->num != 0)
            snprintf(bct, sizeof bct, "B_crit %.4g [%.4g - %.4g]", bc, bi->items[0]->num, bi->items[1]->num);
        else if (isfinite(bc))
            snprintf(bct, sizeof bct, "S = S_min + E_min / B does not describe the counts");
        if (k < len)
            k += (size_t)snprintf(text + k, len - k, "%sTo %s (ppl %.2f) the ratio is %s%.3g, %.3g - %.3g from the "
                                  "counts alone: it %s; %s.", n ? " " : "", t->str, rs_json_num(g, "target_ppl", NAN),
                                  isfinite(ratio) ? "" : "at most ", isfinite(ratio) ? ratio : hi, lo, hi,
                                  strcmp(v->str, "inconclusive") == 0 ? "is inconclusive" : v->str, bct);
        *holds += strcmp(v->str, "holds") == 0;
        *fails += strcmp(v->str, "does not hold") == 0;
        n++;
    }
    rs_json_free(j);
    return n;
}

/* convergence: "100 training nodes reduce the iterations to converge by roughly 100
 * times": in the regime study where it ran (b = 80, per target, with its interval and
 * verdict), the convergence study's b = 1, 4, 16 beside it */
static void claim_convergence(report_ctx *r)
{
    const char *c = "100 nodes need ~100x fewer iterations than one";
    char moby[4096], best[64], reg[8192], text[16384], settings[4096];
    int nm = moby_ratios(r, moby, sizeof moby, best, sizeof best), holds, fails;
    int nr = regime_clauses(r, reg, sizeof reg, &holds, &fails);
    if (nr > 0) {
        snprintf(settings, sizeof settings, "%s/regime_settings.txt", r->run);
        char *model = study_saved_value(settings, "MODEL"), *corpus = study_saved_value(settings, "CORPUS");
        char *b = study_saved_value(settings, "B"), *claim_n = study_saved_value(settings, "CLAIM_N");
        char *opts = study_saved_value(settings, "OPT_LIST");
        snprintf(text, sizeof text, "in the regime (`rnn-train %s` on `--corpus %s`, b = %s sequences a worker, "
                 "S(N = 1) / S(N = %s), the best of %s, each tuned at every N). %s%s%s%s", model ? model : "?",
                 corpus ? corpus : "?", b ? b : "?", claim_n ? claim_n : "?", opts ? opts : "?", reg,
                 nm ? " Moby Dick, momentum, b:ratio " : "", nm ? moby : "", nm ? "." : "");
        free(model), free(corpus), free(b), free(claim_n), free(opts);
        claim(r, c, "~100x", text, holds == nr ? "met" : fails == nr ? "NOT met" : holds ? "met at some targets only"
                                                                                           : "inconclusive");
    } else if (nm > 0) {
        snprintf(text, sizeof text, "steps(N = 1) / steps(N = 100) per per-worker batch b (b:ratio) %s; where it "
                 "stops: B_crit in the convergence section (target >= 80x)", moby);
        claim(r, c, "~100x", text, rp_cmp(best, 80) >= 0 ? "met" : "NOT met");
    } else if (rp_has(r, "scaling_fit.json"))
        fprintf(r->out, "- **%s** (claimed: ~100x). Not in this run: its grid has no point at N = 1 and N = 100 that "
                        "reached the target (`make scaling` without QUICK has both).\n", c);
    else
        missing(r, c, "~100x", "make scaling");
}

/* scale: "expanded to 800 nodes" (simulated: the allreduce in simulate.csv, and the
 * training step train-sim ran in the composition's checks, scaling_compose_check.csv) */
static void claim_800(report_ctx *r)
{
    const char *c = "training carried to 800 nodes";
    rs_table *sim = rp_csv(r, "simulate.csv"), *train = rp_csv(r, "scaling_compose_check.csv");
    lines a = {0}, t = {0};
    for (int i = 0; sim && i < rs_table_nrows(sim); i++)
        if (rp_cmp(rp_cell(sim, i, "p"), 800) == 0)
            add(&a, "%s", rp_cell(sim, i, "algo"));
    for (int i = 0; train && i < rs_table_nrows(train); i++)
        if (rp_cmp(rp_cell(train, i, "nodes"), 800) == 0)
            add(&t, "%s", rp_cell(train, i, "scheme"));
    char as[4096], ts[4096], text[8400] = "";
    distinct(&a, as, sizeof as);
    distinct(&t, ts, sizeof ts);
    if (*as || *ts) {
        size_t k = 0;
        if (*as)
            k += (size_t)snprintf(text, sizeof text, "allreduce at 800 simulated nodes (%s)", as);
        if (*ts)
            snprintf(text + k, sizeof text - k, "%straining steps at 800 simulated nodes (%s)", k ? "; " : "", ts);
        strncat(text, ", simulated under SMPI on the TaihuLight model (no 800-node machine here)",
                sizeof text - strlen(text) - 1);
        claim(r, c, "800 nodes", text, "met");
    } else
        missing(r, c, "800 nodes", "make simulate");
    drop(&a);
    drop(&t);
    rs_table_free(sim);
    rs_table_free(train);
}

/* the GPU study's two-stage pipeline: "2-11x over the CPU implementation with MKL" */
static void claim_pipeline(report_ctx *r)
{
    const char *c = "two-stage pipeline on a GPU: 2-11x over MKL on the CPU";
    rs_table *t = rp_csv(r, "train_pipeline.csv");
    lines l = {0};
    for (int i = 0; t && i < rs_table_nrows(t); i++)
        if (strcmp(rp_cell(t, i, "mode"), "pipelined") == 0)
            add(&l, "%s %s", rp_cell(t, i, "speedup_vs_sequential"), rp_cell(t, i, "bit_identical"));
    if (l.n) {
        sort_lines(&l, 1, 0);
        char buf[4096], *w[2], text[4096];
        lines last = {l.s + l.n - 1, 1};
        const lines *ls[] = {&last};
        words(buf, sizeof buf, ls, 1, w, 2);
        snprintf(text, sizeof text, "the same pipeline on CPU threads: %.2fx over the sequential order "
                 "(bit-identical: %s)", rp_num(w[0]), w[1]);
        claim(r, c, "2-11x", text, "not reproducible here (no GPU)");
    } else
        missing(r, c, "2-11x", "make bench");
    drop(&l);
    rs_table_free(t);
}

/* the second word of a line as awk compares it with 0: a missing one is 0 */
static int second_cmp0(const char *line)
{
    char buf[1024], *w[2];
    snprintf(buf, sizeof buf, "%s", line);
    return rp_words(buf, w, 2) < 2 ? 0 : rp_cmp(w[1], 0);
}

/* the GPU study's comparison: a large model without a class layer beats a modest
 * class-based one (47% on the MSR sentence-completion challenge) */
static void claim_models(report_ctx *r)
{
    const char *c = "a large model without a class layer beats a modest class-based one";
    rs_table *t = rp_csv(r, "scaling_models.csv");
    lines modest = {0}, large = {0};
    for (int i = 0; t && i < rs_table_nrows(t); i++)
        if (*rp_cell(t, i, "valid_ppl")) {
            char line[1024];
            snprintf(line, sizeof line, "%s %s %s %s", rp_cell(t, i, "hidden"), rp_cell(t, i, "classes"),
                     rp_cell(t, i, "valid_ppl"), rp_cell(t, i, "completion_accuracy"));
            if (second_cmp0(line) > 0)
                add(&modest, "%s", line);
            else if (second_cmp0(line) == 0)
                add(&large, "%s", line);
        }
    if (modest.n && large.n) {
        sort_lines(&modest, 0, 0);
        sort_lines(&large, 0, 0);
        char buf[4096], *w[8], text[4096];
        lines m = {modest.s, 1}, l = {large.s + large.n - 1, 1};
        const lines *ls[] = {&m, &l};
        words(buf, sizeof buf, ls, 2, w, 8);
        const char *verdict = rp_cmp2(w[6], w[2]) < 0 ? "met" : "NOT met";
        char **md = rp_lines(r, "scaling_models.md"), cells[1024] = "";
        int holds = 0, fails = 0, n = 0;
        size_t k = 0;
        /* the study's own verdicts where it wrote them, one per cell ("**Verdict (CELL): ..."), or
         * a folder's from before cells ("**Verdict: ...") */
        for (char **p = md; md && *p; p++) {
            if (strncmp(*p, "**Verdict", 9) != 0 || !strstr(*p, "**"))
                continue;
            const char *what = strstr(*p, "holds here") && !strstr(*p, "not hold") ? "holds"
                               : strstr(*p, "does not hold") ? "does not hold" : strstr(*p, "inconclusive") ? "inconclusive"
                                                                                                     : NULL;
            if (!what)
                continue;
            holds += strcmp(what, "holds") == 0;
            fails += strcmp(what, "does not hold") == 0;
            n++;
            const char *open = strchr(*p, '('), *close = open ? strchr(open, ')') : NULL;
            if (k < sizeof cells)
                k += (size_t)snprintf(cells + k, sizeof cells - k, "%s%.*s%s%s", k ? "; " : "",
                                      open && close && close < strstr(*p, ":") ? (int)(close - open - 1) : 0,
                                      open ? open + 1 : "", open && close ? ": " : "", what);
        }
        rp_lines_free(md);
        if (n)
            verdict = holds == n ? "met" : fails == n ? "NOT met" : "inconclusive";
        snprintf(text, sizeof text, "class-based hidden %s: valid ppl %s, completion %s; full softmax hidden %s: "
                 "valid ppl %s, completion %s (not the MSR set: questions built from this corpus)%s%s", w[0], w[2],
                 w[3], w[4], w[6], w[7], n ? "; the study's verdict over its seeds: " : "", cells);
        claim(r, c, "47% completion, the best single RNN", text, verdict);
    } else
        missing(r, c, "47% completion", "make scaling");
    drop(&modest);
    drop(&large);
    rs_table_free(t);
}

void report_scaling(report_ctx *r)
{
    static const char *const parts[] = {"simulate_report.md", "scaling_report.md"};
    for (int i = 0; i < 2; i++)
        if (rp_has(r, parts[i])) {
            fprintf(r->out, "\n");
            if (rp_copy(r, parts[i]) != 0) {
                fprintf(stderr, "study report: cannot read %s/%s (left out of the report)\n", r->run, parts[i]);
                r->unreadable++;
            }
        }
    rs_table *t = rp_has(r, "took.csv") ? rp_csv(r, "took.csv") : NULL;
    if (t) {
        fprintf(r->out, "\n## What the studies took (`study took`)\n\n"
                        "Wall hours are those of the stretches the run's jobs ran in (a stop between sessions\n"
                        "splits them and is not counted); job hours sum the points' run times; CPU hours are\n"
                        "their user and system time.\n\n");
        rp_md_table(r, t, NULL, NULL);
        rs_table_free(t);
    }
}

void report_reproduction(report_ctx *r)
{
    fprintf(r->out, "\n## Reproduction\n\n"
                    "The claims of the two studies this suite reproduces, each beside this run's figure.\n"
                    "Sunway: \"Scaling the training of recurrent neural networks on Sunway TaihuLight\";\n"
                    "GPU: \"Large scale recurrent neural network on GPU\" (two-stage pipeline, no class layer).\n\n");
    claim_softmax(r);
    claim_caffe(r);
    claim_eval(r);
    claim_convergence(r);
    claim_800(r);
    claim_pipeline(r);
    claim_models(r);
}
