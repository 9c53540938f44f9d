/* regime_advise.c — `study advise`'s model held against the regime study's counts: for
 * each target and optimizer, S(B) / S(B0) predicted from B_simple alone (logged at the
 * crossing in the cheapest run that has it, advise_model.h) beside the measured ratio
 * of the mean counts over its seeds, and whether the prediction is within 2x. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise_model.h"
#include "regime_collect.h"

void regime_advise_table(FILE *out, const regime_results *R)
{
    int within = 0, total = 0;
    double b0 = atof(study_value(R->r, "B"));
    fprintf(out, "\n**`study advise` against the counts.** S(B) / S(%g) predicted as (1 + B_simple / B) / (1 + "
                 "B_simple / %g), with B_simple logged at the crossing in the cheapest run that has it, against the "
                 "measured ratio of the mean counts over seeds (predicted / measured; within 2x where 0.5 - 2):\n\n"
                 "| target | optimizer | B_simple (N) |", b0, b0);
    for (int i = 1; i < R->nN; i++)
        fprintf(out, " N = %ld |", R->N[i]);
    fprintf(out, "\n|---|---|---|");
    for (int i = 1; i < R->nN; i++)
        fprintf(out, "---|");
    fprintf(out, "\n");
    for (int k = 0; k < R->t.n; k++)
        for (int o = 0; o < R->nopt; o++) {
            if (strcmp(R->opt[o], "any") == 0)
                continue;
            regime_fit F;
            regime_fit_of(R, k, R->opt[o], &F);
            bs_counts c[64];
            regime_counts(R, k, R->opt[o], c);
            fprintf(out, "| %s | %s | ", R->t.name[k], R->opt[o]);
            if (!(F.bsimple_at > 0)) {
                fprintf(out, "- |");
                for (int i = 1; i < R->nN; i++)
                    fprintf(out, " |");
                fprintf(out, "\n");
                continue;
            }
            fprintf(out, "%.4g (%d) |", F.bsimple_at, F.bsimple_N);
            for (int i = 1; i < R->nN; i++) {
                double meas = c[i].n && c[0].n ? c[i].mean / c[0].mean : NAN;
                double pred = adv_steps_ratio(c[i].batch, b0, F.bsimple_at), q = pred / meas;
                if (isfinite(q)) {
                    int ok = q >= 0.5 && q <= 2;
                    within += ok, total++;
                    fprintf(out, " %.3g / %.3g = %s%.2f%s |", pred, meas, ok ? "" : "**", q, ok ? "" : "**");
                } else
                    fprintf(out, " - |");
            }
            fprintf(out, "\n");
        }
    fprintf(out, "\nWithin 2x in %d of %d.\n", within, total);
}
