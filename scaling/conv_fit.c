/* conv_fit.c — the fit of S = S_min + E_min / B: ordinary least squares of S on x = 1/B
 * (the model is linear in x), R^2 against the mean of S, the regimes around B_crit. */
#include <math.h>

#include "check.h"
#include "conv_fit.h"

int conv_fit_points(const double *batch, const double *steps, int n, conv_fit *out)
{
    RS_CHECK(n >= 2, "%d point%s to fit: the fit needs two or more global batches", n,
             n == 1 ? "" : "s");
    double sx = 0, sy = 0;
    for (int i = 0; i < n; i++) {
        RS_CHECK(batch[i] > 0 && isfinite(batch[i]), "point %d: global batch %g is not > 0", i + 1,
                 batch[i]);
        RS_CHECK(steps[i] > 0 && isfinite(steps[i]), "point %d: steps %g is not > 0", i + 1,
                 steps[i]);
        sx += 1.0 / batch[i];
        sy += steps[i];
    }
    double mx = sx / n, my = sy / n, sxx = 0, sxy = 0, syy = 0;
    for (int i = 0; i < n; i++) {
        double dx = 1.0 / batch[i] - mx, dy = steps[i] - my;
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    RS_CHECK(sxx > 1e-12 * mx * mx, "every point has the same global batch: the fit needs two "
             "or more batches");
    out->n = n;
    out->e_min = sxy / sxx;
    out->s_min = my - out->e_min * mx;
    out->b_crit = out->s_min > 0 ? out->e_min / out->s_min : INFINITY;
    double sse = 0;
    for (int i = 0; i < n; i++) {
        double r = steps[i] - conv_fit_steps(out, batch[i]);
        sse += r * r;
    }
    out->r2 = syy > 0 ? 1.0 - sse / syy : 1.0;
    return 0;
}

double conv_fit_steps(const conv_fit *f, double batch)
{
    return f->s_min + f->e_min / batch;
}

const char *conv_fit_regime(const conv_fit *f, double batch)
{
    if (!isfinite(f->b_crit) || batch <= f->b_crit / CONV_REGIME_SPAN)
        return "perfect";
    return batch >= f->b_crit * CONV_REGIME_SPAN ? "maximal" : "diminishing";
}
