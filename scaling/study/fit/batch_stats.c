/* batch_stats.c — model-free bounds on batch scaling from step counts (batch_stats.h). */
#include <math.h>

#include "batch_stats.h"

void bs_counts_init(bs_counts *c, double batch)
{
    *c = (bs_counts){.batch = batch, .lo = INFINITY, .hi = 0, .mean = NAN};
}

void bs_counts_add(bs_counts *c, double s, double prev, double cap)
{
    if (!(s > 0)) {   /* S > cap: the crossing is past the cap, anywhere */
        c->censored++;
        c->lo = cap < c->lo ? cap : c->lo;
        c->hi = INFINITY;
        return;
    }
    c->mean = c->n ? (c->mean * c->n + s) / (c->n + 1) : s;
    c->n++;
    c->lo = prev < c->lo ? prev : c->lo;
    c->hi = s > c->hi ? s : c->hi;
}

/* a / b over the bounds, an open bound where a lower one is 0 or an upper one inf */
static double div_or(double a, double b, double if_zero)
{
    return b > 0 ? a / b : if_zero;
}

double bs_ratio(const bs_counts *small, const bs_counts *big, conv_range *interval)
{
    int known = (small->n || small->censored) && (big->n || big->censored);
    *interval = known ? (conv_range){div_or(small->lo, big->hi, 0), div_or(small->hi, big->lo, INFINITY)}
                      : (conv_range){NAN, NAN};
    if (isinf(big->hi))
        interval->lo = 0;
    return small->n && big->n ? small->mean / big->mean : NAN;
}

double bs_data_cost(const bs_counts *b, const bs_counts *b0, conv_range *interval)
{
    conv_range r;
    double x = bs_ratio(b, b0, &r), k = b->batch / b0->batch;
    *interval = (conv_range){k * r.lo, k * r.hi};
    return k * x;
}

double bs_bend(const bs_counts *c, int n, int *side)
{
    double prev_a = NAN, prev_m = NAN;
    *side = 0;
    for (int i = 0; i + 1 < n; i++) {
        conv_range r;
        double a = bs_exponent(&c[i], &c[i + 1], &r), m = log(sqrt(c[i].batch * c[i + 1].batch));
        if (!isfinite(a))
            continue;
        if (a < 0.5) {
            if (isnan(prev_a)) {
                *side = -1;
                return exp(m);
            }
            return exp(prev_m + (prev_a - 0.5) / (prev_a - a) * (m - prev_m));
        }
        prev_a = a, prev_m = m;
    }
    *side = isnan(prev_a) ? 0 : 1;
    return isnan(prev_a) ? NAN : exp(prev_m);
}

double bs_exponent(const bs_counts *b1, const bs_counts *b2, conv_range *interval)
{
    conv_range r;
    double x = bs_ratio(b1, b2, &r), span = log(b2->batch / b1->batch);
    *interval = (conv_range){r.lo > 0 ? log(r.lo) / span : -INFINITY, log(r.hi) / span};
    if (isnan(r.lo))
        *interval = (conv_range){NAN, NAN};
    return log(x) / span;
}
