/* test_scaling_fit.c — the fit of steps-to-target against the global batch
 * (scaling/study/fit/conv_fit.c) and build/bin/scaling-fit: S_min and E_min recovered from exact
 * synthetic points, a planted curve with noise recovered within its interval and the
 * claim's verdict on it, a curve the form does not describe flagged, the regimes, the
 * JSON, and bad input refused with exit 2. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "cli_support.h"
#include "conv_fit.h"
#include "json.h"

#define FIT_BIN "build/bin/scaling-fit"

static char dir[256];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/rnnscale-fit-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

TestSuite(scaling_fit, .init = make_dir, .fini = remove_dir);

Test(scaling_fit, recovers_s_min_and_e_min)
{
    const double s_min = 37.5, e_min = 9100;
    double B[] = {1, 4, 16, 64, 256, 1024, 3200}, S[7];
    for (int i = 0; i < 7; i++)
        S[i] = s_min + e_min / B[i];
    conv_fit f;
    cr_assert_eq(conv_fit_points(B, S, 7, &f), 0, "%s", rs_lasterr());
    cr_expect(fabs(f.s_min - s_min) <= 1e-6 * s_min, "S_min %.9g", f.s_min);
    cr_expect(fabs(f.e_min - e_min) <= 1e-6 * e_min, "E_min %.9g", f.e_min);
    cr_expect(fabs(f.b_crit - e_min / s_min) <= 1e-6 * e_min / s_min, "B_crit %.9g", f.b_crit);
    cr_expect(fabs(f.r2 - 1) <= 1e-9, "R^2 %.12g", f.r2);
    cr_expect_str_eq(conv_fit_regime(&f, 4), "perfect");
    cr_expect_str_eq(conv_fit_regime(&f, 256), "diminishing");
    cr_expect_str_eq(conv_fit_regime(&f, 3200), "maximal");
}

Test(scaling_fit, noisy_points_lower_r2)
{
    double B[] = {1, 4, 16, 64}, S[] = {1000, 300, 60, 80};
    conv_fit f;
    cr_assert_eq(conv_fit_points(B, S, 4, &f), 0, "%s", rs_lasterr());
    cr_expect(f.r2 < 0.999 && f.r2 > 0, "R^2 %.6g", f.r2);
}

/* A planted curve, S = S_min + E_min / B at b = 80, N = 1 .. 100, two seeds a batch off
 * the curve by fixed factors within +-6%: the fit, its 95% interval and leave-one-out
 * range hold the planted B_crit, and the form describes the points. */
static const double planted_N[] = {1, 2, 4, 8, 16, 32, 64, 100};
static const double planted_noise[] = {1.04, 0.97, 0.95, 1.05, 1.02, 0.96, 0.94, 1.06,
                                       1.03, 0.98, 0.99, 1.01, 0.97, 1.04, 1.05, 0.95};

static void plant(double s_min, double e_min, double *B, double *S)
{
    for (int i = 0; i < 16; i++) {
        B[i] = 80 * planted_N[i / 2];
        S[i] = (s_min + e_min / B[i]) * planted_noise[i];
    }
}

Test(scaling_fit, planted_curve_within_its_interval)
{
    double B[16], S[16];
    plant(120, 120.0 * 2000, B, S);   /* B_crit 2000 */
    conv_fit f;
    conv_fit_ci ci;
    cr_assert_eq(conv_fit_points(B, S, 16, &f), 0, "%s", rs_lasterr());
    conv_fit_interval(B, S, 16, &f, 80, 8000, &ci);
    cr_expect(fabs(f.b_crit / 2000 - 1) < 0.25, "B_crit %g, planted 2000", f.b_crit);
    cr_expect(ci.b_crit.lo < 2000 && 2000 < ci.b_crit.hi, "95%% interval %g-%g misses 2000", ci.b_crit.lo,
              ci.b_crit.hi);
    cr_expect(ci.b_crit.hi / ci.b_crit.lo < 3, "interval %g-%g: wider than the noise makes it", ci.b_crit.lo,
              ci.b_crit.hi);
    cr_expect(ci.b_crit_loo.lo <= f.b_crit && f.b_crit <= ci.b_crit_loo.hi, "leave-one-out %g-%g",
              ci.b_crit_loo.lo, ci.b_crit_loo.hi);
    cr_expect(f.describes && f.rel_max < 0.1, "largest relative residual %g", f.rel_max);
    double truth = (120 + 240000.0 / 80) / (120 + 240000.0 / 8000);   /* 20.8 */
    cr_expect(ci.ratio.lo < truth && truth < ci.ratio.hi, "ratio interval %g-%g misses %g", ci.ratio.lo,
              ci.ratio.hi, truth);
    cr_expect_str_eq(conv_claim_verdict(ci.ratio, 80, 8000), "does not hold");
    /* the same points give the same interval (the resampling is seeded) */
    conv_fit_ci again;
    conv_fit_interval(B, S, 16, &f, 80, 8000, &again);
    cr_expect(again.b_crit.lo == ci.b_crit.lo && again.b_crit.hi == ci.b_crit.hi);
}

/* The claim's verdict: 100x at 8000 against 80 needs B_crit ~ 31,600 for 80x; a planted
 * B_crit of 200,000 holds it, one at the edge is inconclusive. */
Test(scaling_fit, claim_verdict_follows_b_crit)
{
    double need = conv_bcrit_for_ratio(80, 8000, 80);
    cr_expect(fabs(need - 31600) < 1, "B_crit for 80x: %g", need);
    cr_expect(isinf(conv_bcrit_for_ratio(80, 8000, 100)), "100x needs an infinite B_crit");
    double B[16], S[16];
    plant(5, 5.0 * 200000, B, S);
    conv_fit f;
    conv_fit_ci ci;
    cr_assert_eq(conv_fit_points(B, S, 16, &f), 0, "%s", rs_lasterr());
    conv_fit_interval(B, S, 16, &f, 80, 8000, &ci);
    cr_expect_str_eq(conv_claim_verdict(ci.ratio, 80, 8000), "holds", "ratio %g-%g", ci.ratio.lo, ci.ratio.hi);
    cr_expect_str_eq(conv_claim_verdict((conv_range){70, 90}, 80, 8000), "inconclusive");
    cr_expect_str_eq(conv_claim_verdict((conv_range){NAN, NAN}, 80, 8000), "inconclusive");
}

/* S proportional to B^-1/2 is no S_min + E_min / B: the form is flagged as not
 * describing the points. */
Test(scaling_fit, flags_a_curve_the_form_misses)
{
    double B[8], S[8];
    for (int i = 0; i < 8; i++) {
        B[i] = 80 * planted_N[i];
        S[i] = 30000 / sqrt(B[i]);
    }
    conv_fit f;
    cr_assert_eq(conv_fit_points(B, S, 8, &f), 0, "%s", rs_lasterr());
    cr_expect(!f.describes && f.rel_max > CONV_FORM_TOL, "largest relative residual %g", f.rel_max);
}

/* Steps that grow with the batch: the least-squares line has E_min < 0, which the form
 * S_min + E_min / B (a floor plus a cost that falls with B) cannot mean, even where the
 * residuals are small. */
Test(scaling_fit, a_negative_e_min_does_not_describe_the_points)
{
    double B[] = {80, 160, 320, 640}, S[4];
    for (int i = 0; i < 4; i++)
        S[i] = 100 - 2000 / B[i];   /* S_min 100, E_min -2000: exact, residuals 0 */
    conv_fit f;
    cr_assert_eq(conv_fit_points(B, S, 4, &f), 0, "%s", rs_lasterr());
    cr_expect(f.e_min < 0 && f.rel_max < 1e-9, "e_min %g, rel_max %g", f.e_min, f.rel_max);
    cr_expect(!f.describes, "a fit with E_min = %g was said to describe the points", f.e_min);
}

Test(scaling_fit, refuses_too_few_or_bad_points)
{
    double B[] = {4, 4}, S[] = {10, 12};
    conv_fit f;
    cr_expect_eq(conv_fit_points(B, S, 2, &f), -1, "one batch fitted");
    cr_expect_eq(conv_fit_points(B, S, 1, &f), -1, "one point fitted");
    double Bt[] = {4, 8, 8, 4}, St[] = {10, 6, 7, 11};
    cr_expect_eq(conv_fit_points(Bt, St, 4, &f), -1, "two batches (as many as parameters) fitted");
    double B2[] = {4, 0}, S2[] = {10, 12};
    cr_expect_eq(conv_fit_points(B2, S2, 2, &f), -1, "a batch of 0 fitted");
    double B3[] = {4, 8}, S3[] = {10, -1};
    cr_expect_eq(conv_fit_points(B3, S3, 2, &f), -1, "negative steps fitted");
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert(f);
    fputs(text, f);
    fclose(f);
}

/* The tool on a study's rows: best rows only, one fit per b, the claim's ratio. */
Test(scaling_fit, tool_fits_the_best_rows)
{
    char rows[300], out[300], text[4096];
    snprintf(rows, sizeof rows, "%s/rows.csv", dir);
    snprintf(out, sizeof out, "%s/fit.json", dir);
    int n = snprintf(text, sizeof text, "N,b,global_batch,optimizer,steps_to_target,best\n");
    const int Ns[] = {1, 4, 16, 100, 400};
    for (int i = 0; i < 5; i++) {
        double B = 4.0 * Ns[i];
        n += snprintf(text + n, sizeof text - (size_t)n, "%d,4,%g,momentum,%.10g,1\n", Ns[i], B,
                      20 + 4000 / B);
        n += snprintf(text + n, sizeof text - (size_t)n, "%d,4,%g,adam,%.10g,0\n", Ns[i], B,
                      5 + 4000 / B);
    }
    n += snprintf(text + n, sizeof text - (size_t)n, "800,4,3200,momentum,,1\n");
    write_text(rows, text);
    char err[1024];
    const char *args[] = {"--rows", rows, "--json", out, NULL};
    cr_assert_eq(cli_run(FIT_BIN, NULL, args, err, sizeof err), 0, "%s", err);
    rs_json *j = rs_json_load(out);
    cr_assert(j, "%s", rs_lasterr());
    const rs_json *fits = rs_json_get(j, "fits");
    cr_assert(fits && fits->n == 1);
    const rs_json *g = fits->items[0];
    cr_expect(fabs(rs_json_num(g, "s_min", 0) - 20) < 1e-6);
    cr_expect(fabs(rs_json_num(g, "e_min", 0) - 4000) < 1e-6);
    cr_expect(fabs(rs_json_num(g, "b_crit", 0) - 200) < 1e-6);
    cr_expect_eq(rs_json_num(g, "points", 0), 5);
    cr_expect(fabs(rs_json_num(g, "claim.ratio", 0) - 1020.0 / 30) < 1e-9);
    const rs_json *verdict = rs_json_path(g, "claim.verdict"), *ci = rs_json_get(g, "b_crit_95");
    cr_expect(verdict && verdict->type == RS_JSTR && strcmp(verdict->str, "does not hold") == 0);
    cr_expect(ci && ci->n == 2 && ci->items[0]->num <= 200 && ci->items[1]->num >= 200);
    rs_json_free(j);
    cr_expect_eq(cli_run(FIT_BIN, NULL, args, err, sizeof err), 2, "overwrote %s", out);
    /* --optimizer with --best-col: adam's rows, flagged by another column */
    snprintf(out, sizeof out, "%s/fit_adam.json", dir);
    const char *adam[] = {"--rows", rows, "--json", out, "--optimizer", "adam", "--best-col", "steps_to_target", NULL};
    cr_assert_eq(cli_run(FIT_BIN, NULL, adam, err, sizeof err), 2, "a non-flag column fitted");
    write_text(rows, "N,b,global_batch,optimizer,steps_to_target,best,mine\n1,4,4,adam,1005,0,1\n"
                     "4,4,16,adam,255,0,1\n16,4,64,adam,67.5,0,1\n4,4,16,momentum,1,1,1\n");
    const char *adam2[] = {"--rows", rows, "--json", out, "--optimizer", "adam", "--best-col", "mine", NULL};
    cr_assert_eq(cli_run(FIT_BIN, NULL, adam2, err, sizeof err), 0, "%s", err);
    j = rs_json_load(out);
    cr_assert(j, "%s", rs_lasterr());
    g = rs_json_get(j, "fits")->items[0];
    cr_expect(fabs(rs_json_num(g, "s_min", 0) - 5) < 1e-6, "s_min %g", rs_json_num(g, "s_min", 0));
    cr_expect(fabs(rs_json_num(g, "e_min", 0) - 4000) < 1e-6);
    rs_json_free(j);
}

Test(scaling_fit, tool_rejects_bad_input)
{
    char rows[300];
    snprintf(rows, sizeof rows, "%s/bad.csv", dir);
    write_text(rows, "N,b,global_batch,steps_to_target\n1,4,4,100\n2,4,8,60\n");
    const char *nobest[] = {"--rows", rows, NULL};
    cli_expect_usage_error(FIT_BIN, NULL, nobest, "best");
    write_text(rows, "N,b,global_batch,steps_to_target,best\n1,4,4,100,1\n");
    cli_expect_usage_error(FIT_BIN, NULL, nobest, "three or more");
    write_text(rows, "N,b,global_batch,steps_to_target,best\n1,4,4,-3,1\n2,4,8,60,1\n");
    cli_expect_usage_error(FIT_BIN, NULL, nobest, "> 0");
    const char *missing[] = {"--rows", "/nonexistent/rows.csv", NULL};
    cli_expect_usage_error(FIT_BIN, NULL, missing, "/nonexistent/rows.csv");
    const char *none[] = {NULL};
    cli_expect_usage_error(FIT_BIN, NULL, none, "--rows");
}
