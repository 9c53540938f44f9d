/* conv_fit.h — steps-to-target against the global batch: the least-squares fit of
 * S = S_min + E_min / B (McCandlish et al.), B_crit = E_min / S_min, and the regime of
 * each point.  build/bin/scaling-fit (scaling_fit.c) applies it to a study's best points;
 * the tests call it on synthetic points. */
#ifndef RS_SCALING_CONV_FIT_H
#define RS_SCALING_CONV_FIT_H

/* B at or below B_crit / CONV_REGIME_SPAN: perfect scaling (steps within 10% of
 * E_min / B); at or above B_crit x CONV_REGIME_SPAN: maximal data parallelism (within
 * 10% of S_min); between: diminishing returns. */
#define CONV_REGIME_SPAN 10.0

typedef struct {
    int n;                 /* points fitted */
    double s_min, e_min;   /* steps at infinite batch; sequences (examples) at batch 1 */
    double b_crit;         /* E_min / S_min (inf when S_min <= 0) */
    double r2;             /* of S (not of log S) */
} conv_fit;

/* Fits n points (batch[i], steps[i]), every batch and step count > 0, at least two
 * distinct batches: 0, or -1 (rs_lasterr) on bad points. */
int conv_fit_points(const double *batch, const double *steps, int n, conv_fit *out);

double conv_fit_steps(const conv_fit *f, double batch);   /* S_min + E_min / B */

/* "perfect", "diminishing" or "maximal" for a global batch under the fit. */
const char *conv_fit_regime(const conv_fit *f, double batch);

#endif
