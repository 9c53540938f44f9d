/* advise_model.c — the arithmetic of `study advise` (advise_model.h). */
#include <math.h>

#include "advise_model.h"

double adv_steps_ratio(double B, double b, double bnoise)
{
    return (1 + bnoise / B) / (1 + bnoise / b);
}

double adv_allreduce_s(long N, double bytes, double alpha_s, double beta_Bps)
{
    if (N <= 1)
        return 0;
    return 2.0 * (double)(N - 1) * alpha_s + 2.0 * (double)(N - 1) / (double)N * bytes / beta_Bps;
}

adv_row adv_at(const adv_in *in, long N)
{
    adv_row r = {.N = N, .B = (double)N * in->b};
    r.steps_ratio = adv_steps_ratio(r.B, in->b, in->bnoise);
    r.exchange_s = adv_allreduce_s(N, in->bytes, in->alpha_s, in->beta_Bps);
    r.step_s = in->compute_s + r.exchange_s;
    r.time_ratio = r.steps_ratio * r.step_s / in->compute_s;
    r.speedup = 1 / r.time_ratio;
    r.efficiency = r.speedup / (double)N;
    return r;
}

long adv_worth(const adv_in *in, long most, double gain)
{
    long N = 1;
    while (2 * N <= most && adv_at(in, 2 * N).time_ratio <= (1 - gain) * adv_at(in, N).time_ratio)
        N *= 2;
    return N;
}

double adv_log_slope(const double *x, const double *y, int from, int n)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int k = 0;
    for (int i = from < 0 ? 0 : from; i < n; i++) {
        if (!(x[i] > 0) || !(y[i] > 0))
            continue;
        double u = log(x[i]), v = log(y[i]);
        sx += u, sy += v, sxx += u * u, sxy += u * v, k++;
    }
    double d = k * sxx - sx * sx;
    return k >= 2 && d > 0 ? (k * sxy - sx * sy) / d : NAN;
}
