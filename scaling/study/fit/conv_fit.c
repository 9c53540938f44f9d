/* conv_fit.c — the fit of S = S_min + E_min / B: weighted least squares of S on x = 1/B
 * (the model is linear in x; weights 1 / S^2, so relative residuals are minimised),
 * R^2 against the mean of S, relative residuals, the regimes around B_crit, a residual
 * bootstrap and leave-one-out for the intervals, the claim's verdict. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "conv_fit.h"

/* The weighted fit alone: 0, or -1 when the batches do not differ enough. */
static int solve(const double *batch, const double *steps, int n, double *s_min, double *e_min)
{
    double sw = 0, sx = 0, sy = 0;
    for (int i = 0; i < n; i++) {
        double w = 1 / (steps[i] * steps[i]);
        sw += w;
        sx += w / batch[i];
        sy += w * steps[i];
    }
    double mx = sx / sw, my = sy / sw, sxx = 0, sxy = 0;
    for (int i = 0; i < n; i++) {
        double w = 1 / (steps[i] * steps[i]), dx = 1 / batch[i] - mx;
        sxx += w * dx * dx;
        sxy += w * dx * (steps[i] - my);
    }
    if (!(sxx > 1e-12 * mx * mx * sw))
        return -1;
    *e_min = sxy / sxx;
    *s_min = my - *e_min * mx;
    return 0;
}

static double bcrit_of(double s_min, double e_min) { return s_min > 0 ? e_min / s_min : INFINITY; }

int conv_fit_points(const double *batch, const double *steps, int n, conv_fit *out)
{
    int distinct = 0;
    for (int i = 0; i < n; i++) {
        RS_CHECK(batch[i] > 0 && isfinite(batch[i]), "point %d: global batch %g is not > 0", i + 1, batch[i]);
        RS_CHECK(steps[i] > 0 && isfinite(steps[i]), "point %d: steps %g is not > 0", i + 1, steps[i]);
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= batch[j] == batch[i];
        distinct += !seen;
    }
    RS_CHECK(distinct >= 3, "%d global batch%s to fit: the fit's two parameters need three or more", distinct,
             distinct == 1 ? "" : "es");
    RS_CHECK(solve(batch, steps, n, &out->s_min, &out->e_min) == 0,
             "the global batches are too close together to fit");
    out->n = n;
    out->b_crit = bcrit_of(out->s_min, out->e_min);
    double my = 0, syy = 0, sse = 0, rr = 0;
    for (int i = 0; i < n; i++)
        my += steps[i] / n;
    out->rel_max = 0;
    for (int i = 0; i < n; i++) {
        double fit = conv_fit_steps(out, batch[i]), r = steps[i] - fit, rel = fit > 0 ? r / fit : INFINITY;
        sse += r * r;
        syy += (steps[i] - my) * (steps[i] - my);
        rr += rel * rel;
        out->rel_max = fabs(rel) > out->rel_max ? fabs(rel) : out->rel_max;
    }
    out->r2 = syy > 0 ? 1.0 - sse / syy : 1.0;
    out->rel_rms = sqrt(rr / n);
    /* a floor and a cost falling with B: S_min or E_min <= 0 is not that form */
    out->describes = out->rel_max <= CONV_FORM_TOL && out->s_min > 0 && out->e_min > 0;
    return 0;
}

double conv_fit_steps(const conv_fit *f, double batch) { return f->s_min + f->e_min / batch; }

const char *conv_fit_regime(const conv_fit *f, double batch)
{
    if (!isfinite(f->b_crit) || batch <= f->b_crit / CONV_REGIME_SPAN)
        return "perfect";
    return batch >= f->b_crit * CONV_REGIME_SPAN ? "maximal" : "diminishing";
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The p-quantile of v[0..n) (sorted in place), inf counting as the largest. */
static double quantile(double *v, int n, double p)
{
    qsort(v, (size_t)n, sizeof *v, cmp_dbl);
    double at = p * (n - 1);
    int k = (int)at;
    if (k + 1 >= n)
        return v[n - 1];
    return isinf(v[k + 1]) ? v[k + 1] : v[k] + (at - k) * (v[k + 1] - v[k]);
}

static double ratio_of(double s_min, double e_min, double small, double big)
{
    return (s_min + e_min / small) / (s_min + e_min / big);
}

void conv_fit_interval(const double *batch, const double *steps, int n, const conv_fit *f, double small,
                       double big, conv_fit_ci *ci)
{
    double *rel = malloc(sizeof *rel * (size_t)n * 4), *s = rel + n, *xb = s + n, *xs = xb + n;
    double *bc = malloc(sizeof *bc * CONV_BOOTSTRAP * 2), *ra = bc + CONV_BOOTSTRAP;
    RS_ASSERT(rel && bc);
    /* residuals shrink by sqrt((n - 2) / n) in a two-parameter fit: grown back */
    double grow = n > 2 ? sqrt((double)n / (n - 2)) : 1;
    for (int i = 0; i < n; i++)
        rel[i] = grow * (steps[i] / conv_fit_steps(f, batch[i]) - 1);
    uint64_t seed = 27;
    int m = 0;
    for (int k = 0; k < CONV_BOOTSTRAP; k++) {
        int ok = 1;
        for (int i = 0; i < n; i++) {
            s[i] = conv_fit_steps(f, batch[i]) * (1 + rel[splitmix(&seed) % (uint64_t)n]);
            ok &= s[i] > 0;   /* a step count <= 0 is no resample of step counts */
        }
        double s_min, e_min;
        if (!ok || solve(batch, s, n, &s_min, &e_min) != 0 || !(s_min + e_min / big > 0) ||
            !(s_min + e_min / small > 0))
            continue;
        bc[m] = bcrit_of(s_min, e_min);
        ra[m++] = ratio_of(s_min, e_min, small, big);
    }
    ci->b_crit = m ? (conv_range){quantile(bc, m, 0.025), quantile(bc, m, 0.975)} : (conv_range){NAN, NAN};
    ci->ratio = m ? (conv_range){quantile(ra, m, 0.025), quantile(ra, m, 0.975)} : (conv_range){NAN, NAN};
    ci->b_crit_loo = (conv_range){NAN, NAN};
    for (int skip = 0; n >= 4 && skip < n; skip++) {
        double s_min, e_min;
        int k = 0, distinct = 0;
        for (int i = 0; i < n; i++)
            if (i != skip) {
                int seen = 0;
                for (int j = 0; j < k; j++)
                    seen |= xb[j] == batch[i];
                distinct += !seen;
                xb[k] = batch[i];
                xs[k++] = steps[i];
            }
        if (distinct < 3 || solve(xb, xs, k, &s_min, &e_min) != 0)   /* no fit of two batches */
            continue;
        double b = bcrit_of(s_min, e_min);
        ci->b_crit_loo.lo = isnan(ci->b_crit_loo.lo) || b < ci->b_crit_loo.lo ? b : ci->b_crit_loo.lo;
        ci->b_crit_loo.hi = isnan(ci->b_crit_loo.hi) || b > ci->b_crit_loo.hi ? b : ci->b_crit_loo.hi;
    }
    free(rel);
    free(bc);
}

double conv_bcrit_for_ratio(double small, double big, double ratio)
{
    /* (1 + Bc / small) / (1 + Bc / big) = q  <=>  Bc (1 / small - q / big) = q - 1 */
    double d = 1 / small - ratio / big;
    return d > 0 ? (ratio - 1) / d : INFINITY;
}

const char *conv_claim_verdict(conv_range ratio, double small, double big)
{
    double need = CONV_CLAIM_FRACTION * big / small;
    if (!(ratio.lo == ratio.lo) || !(ratio.hi == ratio.hi))
        return "inconclusive";
    return ratio.lo >= need ? "holds" : ratio.hi < need ? "does not hold" : "inconclusive";
}

void conv_range_write(rs_jw *w, const char *key, conv_range r)
{
    rs_jw_key(w, key);
    rs_jw_arr_begin(w);
    rs_jw_dbl(w, r.lo);
    rs_jw_dbl(w, r.hi);
    rs_jw_arr_end(w);
}
