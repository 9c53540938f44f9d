/* test_batch_stats.c — the model-free batch statistics (scaling/study/fit/batch_stats.c)
 * on planted curves read as a study reads them: a count is the first evaluation (steps
 * growing 5% at a time) at or past the true crossing.  The intervals hold the planted
 * ratio, data cost and local exponent; the point values are within the evaluations'
 * resolution; a count past its cap opens the bound on its side. */
#include <criterion/criterion.h>
#include <math.h>

#include "batch_stats.h"

/* The evaluation steps of --eval-every 1 --eval-growth 0.05: the first at or past the
 * true crossing t, and the one before it. */
static void read_count(double t, double *s, double *prev)
{
    double e = 1, before = 0;
    while (e < t) {
        double grow = floor(0.05 * e);
        before = e;
        e += grow > 1 ? grow : 1;
    }
    *s = e, *prev = before;
}

static double planted(double B, double s_min, double e_min) { return s_min + e_min / B; }

static void counts_at(bs_counts *c, double B, const double *truth, int seeds)
{
    bs_counts_init(c, B);
    for (int i = 0; i < seeds; i++) {
        double s, prev;
        read_count(truth[i], &s, &prev);
        bs_counts_add(c, s, prev, 0);
    }
}

#define IN(x, r) ((r).lo <= (x) && (x) <= (r).hi)

/* S = 100 + 8,000 / B (B_crit 80), two seeds 8% apart: every planted quantity is in its
 * interval, and the point values are within the counts' 5% of it. */
Test(batch_stats, planted_curve_within_its_intervals)
{
    const double B[] = {80, 160, 320, 640, 1280, 2560, 8000};
    bs_counts c[7];
    for (int i = 0; i < 7; i++) {
        double t[2] = {planted(B[i], 100, 8000), 1.08 * planted(B[i], 100, 8000)};
        counts_at(&c[i], B[i], t, 2);
        cr_assert_eq(c[i].n, 2);
    }
    conv_range r;
    double truth = planted(80, 100, 8000) / planted(8000, 100, 8000);   /* 1.98 */
    double x = bs_ratio(&c[0], &c[6], &r);
    cr_expect(IN(truth, r), "S(80) / S(8000): planted %g, interval %g - %g", truth, r.lo, r.hi);
    cr_expect(IN(truth * 1.08, r) && IN(truth / 1.08, r), "a seed's own ratio outside %g - %g", r.lo, r.hi);
    cr_expect(fabs(x / truth - 1) < 0.1, "ratio of means %g, planted %g", x, truth);
    for (int i = 1; i < 7; i++) {
        double cost = B[i] / 80 * planted(B[i], 100, 8000) / planted(80, 100, 8000);
        double y = bs_data_cost(&c[i], &c[0], &r);
        cr_expect(IN(cost, r) && fabs(y / cost - 1) < 0.1, "E(%g) / E(80): planted %g, got %g in %g - %g", B[i],
                  cost, y, r.lo, r.hi);
        double a = log(planted(B[i - 1], 100, 8000) / planted(B[i], 100, 8000)) / log(B[i] / B[i - 1]);
        double z = bs_exponent(&c[i - 1], &c[i], &r);
        cr_expect(IN(a, r) && r.lo < r.hi, "exponent %g-%g: planted %g, interval %g - %g", B[i - 1], B[i], a,
                  r.lo, r.hi);
        cr_expect(fabs(z - a) < 0.15, "exponent %g-%g: %g, planted %g", B[i - 1], B[i], z, a);
    }
    /* the exponent bends where the form says: near 1 well below B_crit, near 0 far above */
    bs_exponent(&c[5], &c[6], &r);
    cr_expect(r.hi < 0.3, "2560-8000: interval %g - %g, planted ~0.06", r.lo, r.hi);
}

/* S = 10 + 8000 / B (B_noise 800): the exponent passes 1/2 near B = 800; with a larger
 * B_noise than the grid spans, every exponent is over 1/2 and the bend is past the last. */
Test(batch_stats, the_bend_finds_the_noise_scale)
{
    const double B[] = {80, 160, 320, 640, 1280, 2560, 8000};
    bs_counts c[7];
    for (int i = 0; i < 7; i++) {
        double t = 10 * (1 + 800 / B[i]) * 10;   /* x10: counts coarse enough to be read */
        counts_at(&c[i], B[i], &t, 1);
    }
    int side;
    double bend = bs_bend(c, 7, &side);
    cr_expect(side == 0 && fabs(bend / 800 - 1) < 0.15, "bend %g (side %d), planted 800", bend, side);
    for (int i = 0; i < 7; i++) {
        double t = 100 * (1 + 1e6 / B[i]);
        counts_at(&c[i], B[i], &t, 1);
    }
    bend = bs_bend(c, 7, &side);
    cr_expect(side == 1 && fabs(bend - sqrt(2560.0 * 8000)) < 1e-6, "past the grid: %g, side %d", bend, side);
}

/* Perfect scaling, S = 100,000 / B: exponent 1 in every interval, data cost 1. */
Test(batch_stats, perfect_scaling)
{
    bs_counts a, b;
    double t1 = 100000.0 / 100, t2 = 100000.0 / 400;
    counts_at(&a, 100, &t1, 1);
    counts_at(&b, 400, &t2, 1);
    conv_range r;
    double z = bs_exponent(&a, &b, &r), y = bs_data_cost(&b, &a, &r);
    cr_expect(fabs(z - 1) < 0.05, "exponent %g", z);
    cr_expect(fabs(y - 1) < 0.05 && IN(1, r), "data cost %g in %g - %g", y, r.lo, r.hi);
}

/* A seed past its cap: S > cap, so at the big batch the ratio has no floor, at the small
 * one no ceiling; a batch with no count at all gives no interval. */
Test(batch_stats, censored_counts_open_their_side)
{
    bs_counts small, big, none;
    bs_counts_init(&small, 80), bs_counts_init(&big, 8000), bs_counts_init(&none, 1600);
    bs_counts_add(&small, 1000, 950, 0);
    bs_counts_add(&big, 30, 28, 0);
    bs_counts_add(&big, 0, 0, 71);   /* seed 2 not within 71 steps */
    conv_range r;
    double x = bs_ratio(&small, &big, &r);
    cr_expect(r.lo == 0 && fabs(r.hi - 1000 / 28.0) < 1e-9, "interval %g - %g", r.lo, r.hi);
    cr_expect(fabs(x - 1000 / 30.0) < 1e-9, "the reached seed's ratio %g", x);
    bs_ratio(&big, &small, &r);
    cr_expect(isinf(r.hi) && fabs(r.lo - 28 / 1000.0) < 1e-12, "swapped: %g - %g", r.lo, r.hi);
    bs_ratio(&small, &none, &r);
    cr_expect(isnan(r.lo) && isnan(r.hi), "no count: %g - %g", r.lo, r.hi);
}
