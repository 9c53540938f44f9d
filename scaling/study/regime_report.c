/* regime_report.c — the Sunway regime study's report section (regime_report.md, also in
 * scaling_report.md): the regime, the verdict per target and optimizer with its
 * intervals, B_simple against B_crit, and the steps per N. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "regime_collect.h"

#define V(name) study_value(R->r, name)

static void num(FILE *out, double v, const char *fmt)
{
    if (isfinite(v))
        fprintf(out, fmt, v);
    else
        fprintf(out, isinf(v) ? (v < 0 ? "-inf" : "inf") : "-");
}

static void range(FILE *out, conv_range r)
{
    num(out, r.lo, "%.3g");
    fprintf(out, " - ");
    num(out, r.hi, "%.3g");
}

/* The answer in words, over every target and optimizer (not "any", their best): how
 * many verdicts of each kind, the largest B_crit fitted against the claim's need, and
 * how often B_simple came within 2x of B_crit. */
static void answer(FILE *out, const regime_results *R, double need)
{
    int holds = 0, fails = 0, open = 0, fits = 0, within = 0;
    double top = 0, lo = INFINITY, hi = 0;
    char at[96] = "";
    for (int k = 0; k < R->t.n; k++)
        for (int o = 0; o < R->nopt; o++) {
            if (strcmp(R->opt[o], "any") == 0)
                continue;
            regime_fit F;
            regime_fit_of(R, k, R->opt[o], &F);
            holds += strcmp(F.verdict, "holds") == 0;
            fails += strcmp(F.verdict, "does not hold") == 0;
            open += strcmp(F.verdict, "inconclusive") == 0;
            if (!F.fitted || !F.fit.describes)
                continue;
            if (F.fit.b_crit > top)
                top = F.fit.b_crit, snprintf(at, sizeof at, "%s, %s", R->opt[o], R->t.name[k]);
            double q = F.bsimple / F.fit.b_crit;
            if (isfinite(q)) {
                fits++, within += q >= 0.5 && q <= 2;
                lo = q < lo ? q : lo, hi = q > hi ? q : hi;
            }
        }
    fprintf(out, "\n**The answer.** Over the %d targets x %d optimizers: the claim holds %d time(s), does not hold %d, "
                 "inconclusive %d. ", R->t.n, R->nopt - 1, holds, fails, open);
    if (top > 0)
        fprintf(out, "The largest B_crit of a fit whose form describes its points is %.4g sequences (%s), against "
                     "the %.0f the claim needs. ", top, at, need);
    if (fits)
        fprintf(out, "B_simple came within 2x of B_crit in %d of those %d fits (B_simple / B_crit %.2f - %.2f).\n",
                within, fits, lo, hi);
    else
        fprintf(out, "No fit whose form describes its points to set B_simple against.\n");
}

static void verdict_table(FILE *out, const regime_results *R)
{
    fprintf(out, "| target (valid ppl) | optimizer | S(N=1), seed 1 | S(N=%s), seed 1 | ratio (seeds' means) | interval "
                 "(the counts alone) | verdict | B_crit, where the form fits | its interval | form fits | B_simple: "
                 "mean to the crossing (N) | at the crossing | mean / B_crit |\n"
                 "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n", V("CLAIM_N"));
    for (int k = 0; k < R->t.n; k++)
        for (int o = 0; o < R->nopt; o++) {
            regime_fit F;
            regime_fit_of(R, k, R->opt[o], &F);
            regime_cell cells[64];
            int n = regime_cells(R, k, R->opt[o], cells);
            double s1 = NAN, sn = NAN;
            for (int i = 0; i < n; i++) {
                if (cells[i].N == 1 && cells[i].n && cells[i].steps[0] > 0)
                    s1 = cells[i].steps[0];
                if (cells[i].N == atol(V("CLAIM_N")) && cells[i].n && cells[i].steps[0] > 0)
                    sn = cells[i].steps[0];
            }
            fprintf(out, "| %s (%.2f) | %s | ", R->t.name[k], R->t.ppl[k], R->opt[o]);
            num(out, s1, "%.0f");
            fprintf(out, " | ");
            if (isnan(sn) && F.claim_cap > 0)
                fprintf(out, "> %.0f", F.claim_cap);
            else
                num(out, sn, "%.0f");
            fprintf(out, " | ");
            num(out, F.ratio, "%.3g");
            fprintf(out, " | ");
            range(out, F.hull);
            fprintf(out, " | %s | ", F.verdict);
            if (F.fitted && F.fit.describes) {
                num(out, F.fit.b_crit, "%.4g");
                fprintf(out, " | ");
                range(out, F.ci.b_crit);
                fprintf(out, " | yes (worst %+.0f%%) | ", 100 * F.fit.rel_max);
            } else if (F.fitted)
                fprintf(out, "- | - | **no** (worst %+.0f%%) | ", 100 * F.fit.rel_max);
            else
                fprintf(out, "no fit: %s | | | ", F.why);
            num(out, F.bsimple, "%.4g");
            fprintf(out, F.bsimple_N ? " (%d) | " : " | ", F.bsimple_N);
            num(out, F.bsimple_at, "%.4g");
            fprintf(out, " | ");
            num(out, F.fitted && F.fit.describes ? F.bsimple / F.fit.b_crit : NAN, "%.2f");
            fprintf(out, " |\n");
        }
}

/* B_crit three ways per target and optimizer: the fit's (where its form describes the
 * points), where the local exponent passes 1/2 (no model: the form puts B_noise there),
 * and B_simple, averaged to the crossing and at it. */
static void bcrit_table(FILE *out, const regime_results *R)
{
    fprintf(out, "\n**B_crit three ways.** The fit's B_crit where its form describes the counts; the batch where "
                 "the local exponent passes 1/2, read from the counts alone (under S = S_min (1 + B_noise / B) the "
                 "exponent at B is B_noise / (B + B_noise), 1/2 at B_noise); and B_simple, the gradient noise "
                 "scale that should predict it:\n\n| target | optimizer | fit | exponent 1/2 at | B_simple, mean "
                 "to the crossing | at the crossing |\n|---|---|---|---|---|---|\n");
    for (int k = 0; k < R->t.n; k++)
        for (int o = 0; o < R->nopt; o++) {
            regime_fit F;
            regime_fit_of(R, k, R->opt[o], &F);
            bs_counts c[64];
            int side;
            regime_counts(R, k, R->opt[o], c);
            double bend = bs_bend(c, R->nN, &side);
            fprintf(out, "| %s | %s | ", R->t.name[k], R->opt[o]);
            num(out, F.fitted && F.fit.describes ? F.fit.b_crit : NAN, "%.4g");
            fprintf(out, " | %s", side < 0 ? "< " : side > 0 ? "> " : "");
            num(out, bend, "%.4g");
            fprintf(out, " | ");
            num(out, F.bsimple, "%.4g");
            fprintf(out, " | ");
            num(out, F.bsimple_at, "%.4g");
            fprintf(out, " |\n");
        }
}

/* Per target: each N's data cost E(B) / E(80) and the local exponent to the next N,
 * from the counts alone (batch_stats.h), for every optimizer. */
static void cost_table(FILE *out, const regime_results *R, int k)
{
    fprintf(out, "\n%s (valid ppl %.2f): data cost E(B) / E(%s) and the local exponent -d ln S / d ln B to the "
                 "next B (1: perfect scaling, 0: none), with their intervals from the counts\n\n| N | B |",
            R->t.name[k], R->t.ppl[k], V("B"));
    for (int o = 0; o < R->nopt; o++)
        fprintf(out, " %s: E / E(%s) | exponent |", R->opt[o], V("B"));
    fprintf(out, "\n|---|---|");
    for (int o = 0; o < R->nopt; o++)
        fprintf(out, "---|---|");
    fprintf(out, "\n");
    bs_counts c[8][64];
    for (int o = 0; o < R->nopt; o++)
        regime_counts(R, k, R->opt[o], c[o]);
    for (int i = 0; i < R->nN; i++) {
        fprintf(out, "| %ld | %ld |", R->N[i], R->N[i] * atol(V("B")));
        for (int o = 0; o < R->nopt; o++) {
            conv_range r;
            double x = bs_data_cost(&c[o][i], &c[o][0], &r);
            fprintf(out, " ");
            num(out, x, "%.3g");
            fprintf(out, " [");
            range(out, r);
            fprintf(out, "] | ");
            if (i + 1 < R->nN) {
                x = bs_exponent(&c[o][i], &c[o][i + 1], &r);
                num(out, x, "%.2f");
                fprintf(out, " [");
                num(out, r.lo, "%.2f");
                fprintf(out, " - ");
                num(out, r.hi, "%.2f");
                fprintf(out, "]");
            }
            fprintf(out, " |");
        }
        fprintf(out, "\n");
    }
}

/* A cell with no best: " not run", or the rates tried if every one diverged. */
static void no_best(FILE *out, const regime_results *R, long N, const char *opt)
{
    double lo = INFINITY, hi = -INFINITY;
    for (int i = 0; i < R->g->n; i++) {
        const regime_point *p = &R->g->p[i];
        if (p->N == N && p->ran && (strcmp(opt, "any") == 0 || strcmp(p->opt, opt) == 0))
            lo = p->lr < lo ? p->lr : lo, hi = p->lr > hi ? p->lr : hi;
    }
    if (lo > hi)
        fprintf(out, " not run |");
    else
        fprintf(out, " diverged (%.4g - %.4g) |", lo, hi);
}


/* --eval-gate's evidence: an evaluation scores each stream's first window first and stops
 * there while that ppl is above EVAL_GATE x the easiest target.  No crossing hides behind a
 * gated row while first-window / full stays under that factor; the full rows measure it. */
static void gate_check(FILE *out, const regime_results *R)
{
    double gate = atof(V("EVAL_GATE")), most = 0;
    const char *at = NULL;
    if (gate <= 0 || R->t.n == 0)
        return;
    for (int i = 0; i < R->g->n; i++)
        if (R->g->p[i].gate_ratio > most)   /* NaN: no full evaluation in that point */
            most = R->g->p[i].gate_ratio, at = R->g->p[i].point;
    fprintf(out, "Evaluations during training first score each evaluation stream's first window (`--eval-gate`); "
                 "they score the whole prefix only when that ppl is at most EVAL_GATE = %s x the easiest target "
                 "(%.2f), so far from every target an evaluation costs one window. ",
            V("EVAL_GATE"), gate * R->t.ppl[0]);
    if (!at)
        fprintf(out, "No evaluation has been gated and then scored in full yet.\n\n");
    else
        fprintf(out, "At the first full evaluation after gated ones, first-window ppl / full ppl is at most %.3f "
                     "(%s): %s.\n\n", most, at,
                most < gate ? "under the gate's factor, so no gated evaluation hid a crossing"
                            : "**NOT under the gate's factor: a gated evaluation may have hidden a crossing; rerun "
                              "with EVAL_GATE=0 or a larger factor**");
}

static void steps_table(FILE *out, const regime_results *R, int k)
{
    fprintf(out, "\n%s (valid ppl %.2f): steps of seed 1 at the best rate (rate; other seeds)\n\n| N | B |",
            R->t.name[k], R->t.ppl[k]);
    for (int o = 0; o < R->nopt; o++)
        fprintf(out, " %s |", R->opt[o]);
    fprintf(out, "\n|---|---|");
    for (int o = 0; o < R->nopt; o++)
        fprintf(out, "---|");
    fprintf(out, "\n");
    regime_cell cells[8][64];
    for (int o = 0; o < R->nopt; o++)
        regime_cells(R, k, R->opt[o], cells[o]);
    for (int i = 0; i < R->nN; i++) {
        fprintf(out, "| %ld | %ld |", R->N[i], R->N[i] * atol(V("B")));
        for (int o = 0; o < R->nopt; o++) {
            const regime_cell *c = &cells[o][i];
            if (!c->best || c->n == 0) {
                no_best(out, R, R->N[i], R->opt[o]);
                continue;
            }
            if (c->steps[0] > 0)
                fprintf(out, " %.0f", c->steps[0]);
            else
                fprintf(out, " > %ld", c->cap);
            fprintf(out, " (%s %.3g", strcmp(R->opt[o], "any") == 0 ? c->best->opt : c->best->rule, c->best->lr);
            for (int s = 1; s < c->n; s++)
                fprintf(out, c->steps[s] > 0 ? "; %.0f" : "; > cap", c->steps[s]);
            fprintf(out, ") |");
        }
        fprintf(out, "\n");
    }
}

/* RUN/figures/NAME.png, where it was drawn. */
static void figure(FILE *out, const regime_results *R, const char *name, const char *what)
{
    char path[2700];
    snprintf(path, sizeof path, "%s/figures/%s.png", R->r->dir, name);
    if (access(path, F_OK) == 0)
        fprintf(out, "\n![%s](figures/%s.png)\n", what, name);
}

int regime_report(const regime_results *R, FILE *out)
{
    int ran = 0;
    for (int i = 0; i < R->g->n; i++)
        ran += R->g->p[i].ran;
    fprintf(out, "## Steps to target in the Sunway TaihuLight study's regime\n\n"
                 "Regime: `rnn-train %s --vocab %s` on `--corpus %s` (%.0f training tokens), b = %s sequences a "
                 "worker, N = %s (`--workers`, groups of up to %s streams run as one), global batch B = N b; "
                 "optimizers %s, tuned at every B: N = 1 over %s x a centre for %s epoch(s); at N > 1 Adam and "
                 "LAMB from N = 1's best rate by the square-root rule x the same factors, momentum at the square-root "
                 "rule, the linear rule and between; each grid widened (EXTEND = %s rounds, at most %d) while its best "
                 "rate is at an edge, and where every rate at a B diverged the next one down was tried; a run "
                 "diverged where it gave NaN or a valid ppl above the vocabulary size (worse than a uniform guess) "
                 "at any evaluation (`--diverge-ppl` ends it there). %s warmup steps at N > 1, a constant rate, the "
                 "gradient norm clipped at %s (momentum: %s; 0 is none); the tuning below tries more at TUNE_N. "
                 "Seeds %s at the best setting for the hard target at N = %s and, at every N, for the optimizer that "
                 "did best there; at N >= %s those seeds run to the hard target or %s epochs. Valid scored on its "
                 "first %s tokens as %s streams, at evaluations every 5%% of the step (each count within 5%%). "
                 "Kneser-Ney trigram: valid ppl %.2f (%.2f on that prefix). Targets: TARGETS_X = %s x kn3 and the "
                 "hard one, %.3g%% above the lowest valid ppl a seed-1 N = 1 grid run reached without diverging. N = 1 "
                 "runs (every seed) run their epoch(s) with no target; a run at N > 1 stops at the hard target or "
                 "after %s epochs, and a rate tried after the best so far is stopped at the best's steps to the hard "
                 "target (it cannot win). Points run: %d of %d.\n\n",
            V("MODEL"), V("VOCAB"), V("CORPUS"), R->t.ntrain, V("B"), V("N_LIST"), V("GROUP_MAX"), V("OPT_LIST"),
            V("LR_FACTORS"), V("REF_EPOCHS"), V("EXTEND"), REGIME_MAX_WIDEN, V("WARMUP"), V("CLIP"),
            V("MOMENTUM_CLIP"), V("SEEDS"), V("SEED_N"), V("LONG_N"), V("LONG_EPOCHS"), V("EVAL_TOKENS"),
            V("EVAL_STREAMS"), R->t.kn3, R->t.kn3_eval, V("TARGETS_X"), 100 * atof(V("BEST_WITHIN")),
            V("CAP_EPOCHS"), ran, R->g->n);
    fprintf(out, "Targets (valid ppl on the prefix):");
    for (int k = 0; k < R->t.n; k++)
        fprintf(out, "%s %s %.2f", k ? "," : "", R->t.name[k], R->t.ppl[k]);
    fprintf(out, "%s.\n\n", R->t.have_hard ? "" : " (the hard one is set once the N = 1 runs ran)");
    figure(out, R, "regime_scaling", "steps to target against the global batch, per target and optimizer");
    fprintf(out, "\n");
    gate_check(out, R);
    regime_tuning_table(out, R);
    double need = conv_bcrit_for_ratio(atof(V("B")), atof(V("B")) * atof(V("CLAIM_N")),
                                       CONV_CLAIM_FRACTION * atof(V("CLAIM_N")));
    fprintf(out, "The claim: %s times the batch gives %s times fewer steps, S(B = %s) / S(B = %ld). It *holds* "
                 "where the whole interval is at least %.0f%% of the ideal %s, *does not hold* where all of it is "
                 "under, and is *inconclusive* otherwise. The interval is the counts' alone, no model: every seed's "
                 "crossing lies between the evaluation before its count and its count, and a seed past its cap "
                 "leaves that side open. Under S = S_min + E_min / B (McCandlish et al.) the claim needs "
                 "B_crit >= %.0f sequences; that fit (least squares on relative residuals) is shown only where its "
                 "form describes every point within %.0f%%, with a percentile bootstrap interval (%d resamples of "
                 "the relative residuals; n points, n - 2 degrees of freedom).\n\n",
            V("CLAIM_N"), V("CLAIM_N"), V("B"), atol(V("B")) * atol(V("CLAIM_N")), 100 * CONV_CLAIM_FRACTION,
            V("CLAIM_N"), need, 100 * CONV_FORM_TOL, CONV_BOOTSTRAP);
    verdict_table(out, R);
    answer(out, R, need);
    bcrit_table(out, R);
    figure(out, R, "regime_bsimple", "B_simple over training against where the exponent passes 1/2");
    fprintf(out, "\nB_simple, the gradient noise scale (McCandlish et al.), is the mean of the evaluations' "
                 "estimates up to the crossing, and the one logged at the crossing, in the cheapest run that has one (the first N > 1 of N_LIST that "
                 "reached the target; small batch = a group's streams, big = B); a seed past its cap leaves the "
                 "interval open on one side (S(N=%s) > cap: no floor; S(N=1) > cap: no ceiling); it predicts B_crit where B_simple / B_crit is within 0.5 - 2.\n", V("CLAIM_N"));
    for (int k = 0; k < R->t.n; k++) {
        steps_table(out, R, k);
        cost_table(out, R, k);
    }
    figure(out, R, "regime_scaling_cost", "data cost and local exponent against the global batch");
    regime_advise_table(out, R);
    return ferror(out) ? -1 : 0;
}
