/* conv_fit.h — steps-to-target against the global batch: the fit of
 * S = S_min + E_min / B (McCandlish et al., "An empirical model of large-batch training"),
 * B_crit = E_min / S_min, its intervals, whether the form describes the points, and the
 * verdict on a claimed speed-up S(B_small) / S(B_big).  build/bin/scaling-fit
 * (scaling_fit.c) applies it to a study's best points; the tests call it on synthetic
 * points with a known curve. */
#ifndef RS_SCALING_CONV_FIT_H
#define RS_SCALING_CONV_FIT_H

#include "json.h"

/* B at or below B_crit / CONV_REGIME_SPAN: perfect scaling (steps within 10% of
 * E_min / B); at or above B_crit x CONV_REGIME_SPAN: maximal data parallelism (within
 * 10% of S_min); between: diminishing returns. */
#define CONV_REGIME_SPAN 10.0
/* The form describes the points when every point is within this fraction of the fit:
 * a step count read at evaluations ~1/20 of the steps apart, and a second seed, move a
 * point by ~5-10%; a curve the form misses (the +39% / -17% of a 1/B fit through an
 * S(B) that flattens early) leaves a point further out. */
#define CONV_FORM_TOL 0.20
/* A claimed speed-up "holds" when the measured ratio is at least this fraction of the
 * ideal B_big / B_small (perfect scaling), over the whole interval. */
#define CONV_CLAIM_FRACTION 0.80
#define CONV_BOOTSTRAP 2000   /* resamples */

typedef struct {
    int n;                 /* points fitted */
    double s_min, e_min;   /* steps at infinite batch; sequences (examples) at batch 1 */
    double b_crit;         /* E_min / S_min (inf when S_min <= 0) */
    double r2;             /* of S (not of log S) */
    double rel_rms, rel_max;   /* relative residuals (S - fit) / fit: RMS and largest |.| */
    int describes;         /* rel_max <= CONV_FORM_TOL, S_min > 0 and E_min > 0 */
} conv_fit;

typedef struct {
    double lo, hi;
} conv_range;

typedef struct {
    conv_range b_crit;       /* 95% bootstrap (relative residuals resampled) */
    conv_range b_crit_loo;   /* min..max over the leave-one-out fits of three or more batches
                                (NAN where none is) */
    conv_range ratio;        /* S(small) / S(big) under the fit, 95% bootstrap */
} conv_fit_ci;

/* Fits n points (batch[i], steps[i]), every batch and step count > 0, at least three
 * distinct batches (more points than the two parameters), by least squares on the
 * relative residuals (weights 1 / S^2: the noise of a step count grows with it):
 * 0, or -1 (rs_lasterr) on bad points. */
int conv_fit_points(const double *batch, const double *steps, int n, conv_fit *out);

double conv_fit_steps(const conv_fit *f, double batch);   /* S_min + E_min / B */

/* "perfect", "diminishing" or "maximal" for a global batch under the fit. */
const char *conv_fit_regime(const conv_fit *f, double batch);

/* The intervals of fit f of those points; small, big: the ratio's two batches.  The
 * resampling is seeded, so the same points give the same intervals. */
void conv_fit_interval(const double *batch, const double *steps, int n, const conv_fit *f, double small,
                       double big, conv_fit_ci *ci);

/* The B_crit at which S(small) / S(big) = ratio under the form (inf when no finite one
 * reaches it: ratio >= big / small). */
double conv_bcrit_for_ratio(double small, double big, double ratio);

/* "holds", "does not hold" or "inconclusive": the ratio's interval against
 * CONV_CLAIM_FRACTION x big / small. */
const char *conv_claim_verdict(conv_range ratio, double small, double big);

/* A range as the JSON pair "key": [lo, hi] (null for a bound not finite). */
void conv_range_write(rs_jw *w, const char *key, conv_range r);

#endif
