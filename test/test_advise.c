/* test_advise.c — `study advise`'s arithmetic (scaling/study/fit/advise_model.c) on
 * planted values: S(B) / S(b) under a known noise scale, the ring allreduce's cost, the
 * time to target and where returns diminish, the trend of B_simple. */
#include <criterion/criterion.h>
#include <math.h>

#include "advise_model.h"

/* B_noise 800: S(B) = S_min (1 + 800 / B), twice S_min at B = B_noise */
Test(advise, steps_follow_the_noise_scale)
{
    double r = adv_steps_ratio(800, 80, 800);   /* (1 + 1) / (1 + 10) */
    cr_expect(fabs(r - 2.0 / 11) < 1e-12, "S(800) / S(80) = %g", r);
    cr_expect(fabs(adv_steps_ratio(80, 80, 800) - 1) < 1e-15);
    /* far below the noise scale: perfect scaling, 10x the batch gives ~10x fewer steps */
    cr_expect(fabs(adv_steps_ratio(10, 1, 1e6) - 0.1) < 1e-4);
    /* far above it: no gain */
    cr_expect(fabs(adv_steps_ratio(1e6, 1e5, 1) - 1) < 1e-4);
}

Test(advise, ring_allreduce_cost)
{
    cr_expect_eq(adv_allreduce_s(1, 1e6, 1e-6, 1e9), 0);
    /* N = 2: 2 alpha + bytes / beta */
    cr_expect(fabs(adv_allreduce_s(2, 1e6, 1e-6, 1e9) - (2e-6 + 1e-3)) < 1e-15);
    /* large N: bandwidth term tends to 2 bytes / beta */
    double t = adv_allreduce_s(1000, 1e6, 0, 1e9);
    cr_expect(fabs(t - 2e-3 * 999 / 1000) < 1e-12, "%g", t);
}

/* Compute 1 s a step, a free network: time falls as the steps do, and stops paying where
 * doubling N gains under 10%: from N = 64 (B = 5120) to 128 the steps fall by 7%. */
Test(advise, where_returns_diminish)
{
    adv_in in = {.b = 80, .bnoise = 800, .compute_s = 1, .bytes = 0, .alpha_s = 0, .beta_Bps = 1};
    adv_row one = adv_at(&in, 1), ten = adv_at(&in, 10);
    cr_expect(fabs(one.time_ratio - 1) < 1e-15 && fabs(one.efficiency - 1) < 1e-15);
    cr_expect(fabs(ten.speedup - 1 / adv_steps_ratio(800, 80, 800)) < 1e-12, "speedup %g", ten.speedup);
    long w = adv_worth(&in, 1024, 0.1);
    double now = adv_at(&in, w).time_ratio, next = adv_at(&in, 2 * w).time_ratio;
    cr_expect(next > 0.9 * now && adv_at(&in, w / 2).time_ratio * 0.9 >= now, "worth %ld: %g -> %g", w, now, next);
    cr_expect(w == 64, "worth %ld, want 64", w);
    /* a 10 ms link: the latency term, 2 (N - 1) alpha, overtakes the steps saved: 16
     * (to 32 the time grows by 0.7%) */
    in.alpha_s = 1e-2;
    cr_expect(adv_worth(&in, 1024, 0.1) == 16, "a slow link: worth %ld, want 16", adv_worth(&in, 1024, 0.1));
}

/* B_simple = 5 tokens^0.5 planted: the slope is 0.5 whatever the noise-free points */
Test(advise, trend_of_the_noise_scale)
{
    double x[8], y[8];
    for (int i = 0; i < 8; i++)
        x[i] = 1000.0 * (i + 1), y[i] = 5 * sqrt(x[i]);
    cr_expect(fabs(adv_log_slope(x, y, 4, 8) - 0.5) < 1e-12);
    y[6] = NAN;
    cr_expect(fabs(adv_log_slope(x, y, 0, 8) - 0.5) < 1e-12, "a missing value is skipped");
    cr_expect(isnan(adv_log_slope(x, y, 7, 8)), "one point: no slope");
}
