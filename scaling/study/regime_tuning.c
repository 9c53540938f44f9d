/* regime_tuning.c — the regime report's tuning table: per N and optimizer, the rates the
 * grid tried, the one it chose and where it sits (inside the rates that trained, at a
 * divergence boundary, or at an edge of the grid), and at TUNE_N the tuning variants'
 * steps to the hard target beside the chosen rate's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regime_collect.h"

static int grid_role(const regime_point *p)
{
    return strcmp(p->role, "grid") == 0 || strncmp(p->role, "widen", 5) == 0;
}

/* Where the chosen rate sits among the grid's rates of (N, opt), seed 1. */
static const char *edge(const regime_grid *g, const regime_point *best, int *tried, int *diverged)
{
    int above = 0, above_ok = 0, below = 0, below_ok = 0;
    *tried = *diverged = 0;
    for (int i = 0; i < g->n; i++) {
        const regime_point *p = &g->p[i];
        if (p->N != best->N || p->seed != 1 || !p->ran || !grid_role(p) || strcmp(p->opt, best->opt) != 0)
            continue;
        ++*tried, *diverged += p->diverged;
        above |= p->lr > best->lr, above_ok |= p->lr > best->lr && !p->diverged;
        below |= p->lr < best->lr, below_ok |= p->lr < best->lr && !p->diverged;
    }
    if (above_ok && below_ok)
        return "interior";
    if (!above || !below)
        return !above ? "**top of the grid**" : "**bottom of the grid**";
    return !above_ok ? "below a divergence boundary" : "above a divergence boundary";
}

/* A variant's steps to the hard target, or its lowest ppl when it did not reach it. */
static void steps_or_ppl(FILE *out, const regime_point *p, int hard)
{
    if (!p)
        fprintf(out, " - |");
    else if (p->diverged)
        fprintf(out, " diverged |");
    else if (hard >= 0 && p->steps[hard] > 0)
        fprintf(out, " %.0f |", p->steps[hard]);
    else
        fprintf(out, " > %ld (ppl %.2f) |", p->cap, p->min_ppl);
}

/* The tuning point of (N, opt) at the chosen rate whose setting differs in `what`. */
static const regime_point *variant(const regime_grid *g, const regime_point *best, char what)
{
    for (int i = 0; i < g->n; i++) {
        const regime_point *p = &g->p[i];
        if (p->N != best->N || p->seed != 1 || strcmp(p->role, "tune") != 0 || strcmp(p->opt, best->opt) != 0 ||
            p->lr != best->lr)
            continue;
        if ((what == 's' && strcmp(p->sched, best->sched) != 0) || (what == 'w' && p->warmup != best->warmup) ||
            (what == 'c' && p->clip != best->clip))
            return p;
    }
    return NULL;
}

void regime_tuning_table(FILE *out, const regime_results *R)
{
    int hard = R->t.have_hard ? R->t.n - 1 : -1;
    const char *tune_n = study_value(R->r, "TUNE_N");
    fprintf(out, "**Tuning.** The rate grid at each N widens (EXTEND = %s rounds) while the rate with the fewest "
                 "steps to the hard target is at an edge; \"below a divergence boundary\" means every larger rate "
                 "tried diverged. ", study_value(R->r, "EXTEND"));
    if (tune_n[0])
        fprintf(out, "At TUNE_N = %s the chosen rate runs again with a cosine schedule to its cap, with a long "
                     "warmup (%s of its cap) and with the other clip (CLIP = %s, MOMENTUM_CLIP = %s). ",
                tune_n, study_value(R->r, "TUNE_WARMUP"), study_value(R->r, "CLIP"), study_value(R->r, "MOMENTUM_CLIP"));
    else
        fprintf(out, "Schedule, warmup and clip were not tuned (TUNE_N is empty). ");
    fprintf(out, "Steps to the hard target, or the lowest ppl within the cap:\n\n| N | optimizer | rates tried "
                 "(diverged) | chosen rate | where it sits | steps | cosine | long warmup | other clip |\n"
                 "|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < R->nN; i++)
        for (int o = 0; o < R->nopt; o++) {
            if (strcmp(R->opt[o], "any") == 0)
                continue;
            const regime_point *best = regime_best_rate(R->g, R->N[i], R->opt[o], hard);
            fprintf(out, "| %ld | %s |", R->N[i], R->opt[o]);
            if (!best) {
                fprintf(out, " none trained | | | | | | |\n");
                continue;
            }
            int tried, diverged;
            const char *where = edge(R->g, best, &tried, &diverged);
            fprintf(out, " %d (%d) | %.4g | %s |", tried, diverged, best->lr, where);
            steps_or_ppl(out, best, hard);
            const regime_point *v[3] = {variant(R->g, best, 's'), variant(R->g, best, 'w'), variant(R->g, best, 'c')};
            for (int k = 0; k < 3; k++)
                if (v[k])
                    steps_or_ppl(out, v[k], hard);
                else
                    fprintf(out, " |");
            fprintf(out, "\n");
        }
    fprintf(out, "\n");
}
