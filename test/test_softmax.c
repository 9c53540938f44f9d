/* test_softmax.c — every softmax variant and the fused cross-entropy against the
 * double-precision reference: random, huge (|x| to 1e4 and 3e38), masked (-inf) and
 * NaN inputs, odd row lengths (tails), every internal path of the vectorized kernels,
 * the special-row contract of softmax.h, the cross-entropy gradient against centred
 * finite differences of the loss, and bad command lines (exit 2, one line).
 * Each check is one test per variant, the AVX-512 variants' 16-lane code compiled for
 * AVX2 (softmax_w16_avx2.c) included; a variant whose ISA this CPU lacks is skipped by
 * name.  Run from the repository root (`make test`). */
#include <criterion/criterion.h>
#include <criterion/logging.h>
#include <criterion/parameterized.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_support.h"
#include "softmax.h"
#include "softmax_check.h"

enum { SEED = 7 };

/* ---- the variants under test: the registry plus the 16-lane code built for AVX2 ---- */

void softmax_fast_w16_avx2(const float *x, float *y, int rows, int cols);
void softmax_xent_w16_avx2(const float *x, const int *targets, float *dlogits, float *loss,
                           int rows, int cols);

static const softmax_variant w16[2] = {
    {"fast", RS_ISA_AVX2, "16-lane code on AVX2", 1, softmax_fast_w16_avx2, NULL, NULL,
     softmax_fast_w16_avx2_path, NULL},
    {"xent", RS_ISA_AVX2, "16-lane code on AVX2", 1, NULL, softmax_xent_w16_avx2,
     softmax_xent_loss_w16_avx2, NULL, softmax_xent_w16_avx2_path},
};

/* Variant i of registry + w16 (returns NULL past the end); *label names it. */
static const softmax_variant *variant_at(int i, char *label, size_t len)
{
    const softmax_variant *v = i < softmax_nvariants ? &softmax_variants[i]
                               : i < softmax_nvariants + 2 ? &w16[i - softmax_nvariants] : NULL;
    if (v)
        snprintf(label, len, "%s %s%s", v->variant, rs_isa_name(v->isa),
                 i >= softmax_nvariants ? " (w16)" : "");
    return v;
}

/* The variants a check applies to, one test each: every one (VARIANTS_ALL), the
 * softmax ones (VARIANTS_RUN) or the cross-entropy ones (VARIANTS_XENT). */
enum { VARIANTS_ALL, VARIANTS_RUN, VARIANTS_XENT };

static void free_params(struct criterion_test_params *p) { cr_free(p->params); }

static struct criterion_test_params variant_params(int kind)
{
    int *idx = cr_malloc(sizeof(int) * (size_t)(softmax_nvariants + 2)), n = 0;
    char label[64];
    const softmax_variant *v;
    for (int i = 0; (v = variant_at(i, label, sizeof label)); i++)
        if (kind == VARIANTS_ALL || (kind == VARIANTS_XENT) == (v->xent != NULL))
            idx[n++] = i;
    return cr_make_param_array(int, idx, (size_t)n, free_params);
}

#define VARIANT_TEST(name, kind)                                                         \
    ParameterizedTestParameters(softmax_variants, name) { return variant_params(kind); } \
    ParameterizedTest(int *vi, softmax_variants, name)

/* Variant *vi and its label; skips the test (by name) where this CPU lacks its ISA. */
static const softmax_variant *variant_or_skip(int i, char *label, size_t len)
{
    const softmax_variant *v = variant_at(i, label, len);
    if (!rs_isa_supported(v->isa))
        cr_skip_test("%s: this CPU lacks %s", label, rs_isa_name(v->isa));
    return v;
}

/* ---- the registry ---- */

Test(softmax, registry_names_and_order)
{
    static const char *const names[] = {"naive", "safe", "online", "fast", "xent"};
    cr_assert_gt(softmax_nvariants, 0);
    cr_expect_str_eq(softmax_variants[0].variant, "naive", "naive must come first (the baseline)");
    for (int k = 0; k < softmax_nvariants; k++) {
        const softmax_variant *v = &softmax_variants[k];
        int known = 0;
        for (int i = 0; i < 5; i++)
            known |= strcmp(v->variant, names[i]) == 0;
        cr_expect(known, "unknown variant name '%s'", v->variant);
        cr_expect((v->run != NULL) != (v->xent != NULL), "%s: exactly one of run/xent", v->variant);
        cr_expect(!v->xent || v->xent_loss, "%s: xent without a forward-only loss", v->variant);
        cr_expect(softmax_find(v->variant, v->isa) == v, "softmax_find(%s, %s)", v->variant,
                  rs_isa_name(v->isa));
    }
    for (int isa = 0; isa < RS_ISA_COUNT; isa++) {
        cr_expect(softmax_find("fast", (rs_isa)isa), "no fast %s", rs_isa_name((rs_isa)isa));
        cr_expect(softmax_find("xent", (rs_isa)isa), "no xent %s", rs_isa_name((rs_isa)isa));
    }
    cr_expect_null(softmax_find("fastest", RS_ISA_AVX2));
}

/* ---- every variant x input set x odd cols x path, against the reference ---- */

static const int odd_cols[] = {1, 7, 17, 32, 33, 64, 128, 1000, 1057, 3000};   /* 32, 64, 128: SM_SHORT at 4, 8, 16 lanes */
enum { ROWS = 19, GUARD = 32 };   /* 19: full and partial groups of 16 and 8 rows (short rows) */

/* Runs variant vi on input set k for every cols and path; checks tolerance and that
 * nothing outside y (rows, cols) is written (guards before and after, y off alignment). */
static void check_inputs(int vi, softmax_inputs k)
{
    int maxc = 3000;
    float *x = malloc(sizeof(float) * ROWS * maxc);
    float *buf = malloc(sizeof(float) * (ROWS * maxc + 2 * GUARD + 16));
    float loss[ROWS];
    int targets[ROWS];
    double m[ROWS], s[ROWS];
    cr_assert(x && buf);
    char label[64];
    const softmax_variant *v = variant_or_skip(vi, label, sizeof label);
    if (k == SOFTMAX_IN_HUGE && !v->overflow_safe)
        cr_skip_test("%s: huge inputs not applicable (declared not overflow-safe)", label);
    {
        int npaths = v->run_path || v->xent_path ? SOFTMAX_NPATHS : 1;
        for (int ci = 0; ci < (int)(sizeof odd_cols / sizeof odd_cols[0]); ci++) {
            int cols = odd_cols[ci];
            size_t n = (size_t)ROWS * cols;
            softmax_fill(x, 0, ROWS, cols, k, SEED);
            softmax_fill_targets(targets, 0, ROWS, cols, SEED);
            softmax_ref_norms(x, ROWS, cols, m, s);
            for (int p = 0; p < npaths; p++) {
                float *y = buf + GUARD + (cols + 3 * p) % 16;
                for (size_t j = 0; j < n + 2 * GUARD; j++)
                    (y - GUARD)[j] = 12345.0f;
                softmax_run(v, (softmax_path)p, x, targets, y, loss, ROWS, cols);
                softmax_err e;
                softmax_compare(x, targets, y, loss, ROWS, cols, v->xent != NULL, 1, m, s, &e);
                cr_expect(e.max_rel_err <= SOFTMAX_MAX_REL_ERR,
                          "%s %s cols=%d path=%d: max_rel_err %.3g at row %ld col %ld (got %.9g, want %.9g)",
                          label, softmax_inputs_name(k), cols, p, e.max_rel_err, e.worst_row,
                          e.worst_col, (double)e.worst_y, e.worst_ref);
                cr_expect(e.row_sum_err <= SOFTMAX_MAX_REL_ERR, "%s %s cols=%d path=%d: row sums off by %.3g",
                          label, softmax_inputs_name(k), cols, p, e.row_sum_err);
                cr_expect(e.loss_err <= SOFTMAX_LOSS_TOL, "%s %s cols=%d path=%d: loss off by %.3g",
                          label, softmax_inputs_name(k), cols, p, e.loss_err);
                for (int g = 0; g < GUARD; g++) {
                    cr_expect(y[-1 - g] == 12345.0f, "%s cols=%d path=%d: wrote before y", label, cols, p);
                    cr_expect(y[n + g] == 12345.0f, "%s cols=%d path=%d: wrote after y", label, cols, p);
                }
            }
            if (v->xent_loss) {   /* the forward-only loss: the same numbers */
                softmax_err e;
                float loss2[ROWS];
                v->xent_loss(x, targets, loss2, ROWS, cols);
                softmax_compare(x, targets, buf + GUARD, loss2, ROWS, cols, 1, n + 1, m, s, &e);
                cr_expect(e.loss_err <= SOFTMAX_LOSS_TOL, "%s %s cols=%d: forward-only loss off by %.3g",
                          label, softmax_inputs_name(k), cols, e.loss_err);
            }
        }
    }
    free(x);
    free(buf);
}

VARIANT_TEST(random_inputs, VARIANTS_ALL) { check_inputs(*vi, SOFTMAX_IN_RANDOM); }
VARIANT_TEST(huge_inputs, VARIANTS_ALL) { check_inputs(*vi, SOFTMAX_IN_HUGE); }
VARIANT_TEST(masked_inputs, VARIANTS_ALL) { check_inputs(*vi, SOFTMAX_IN_MASKED); }
VARIANT_TEST(nan_inputs, VARIANTS_ALL) { check_inputs(*vi, SOFTMAX_IN_NAN); }

/* The suite `microbench softmax` runs before timing agrees with the tests above. */
VARIANT_TEST(check_suite_passes, VARIANTS_ALL)
{
    char label[64], what[400];
    const softmax_variant *v = variant_or_skip(*vi, label, sizeof label);
    {
        softmax_err e;
        cr_expect(softmax_check_variant(v, &e, what, sizeof what), "%s: %s", label, what);
    }
}

/* ---- the special-row contract of softmax.h, spelled out ---- */

VARIANT_TEST(special_rows, VARIANTS_RUN)
{
    enum { C = 37 };
    float x[6 * C], y[6 * C];
    for (int c = 0; c < C; c++) {
        x[0 * C + c] = -INFINITY;                        /* fully masked: NaN row */
        x[1 * C + c] = c == 5 ? 2.0f : -INFINITY;        /* one unmasked: exactly 1 */
        x[2 * C + c] = c == 9 ? NAN : (float)c;          /* a NaN: NaN row */
        x[3 * C + c] = (float)(c % 3);                   /* clean next to the NaN row */
        x[4 * C + c] = 1e4f - (float)c;                  /* huge: finite, no overflow */
        x[5 * C + c] = c == 3 ? INFINITY : 0.0f;         /* +inf: NaN row */
    }
    char label[64];
    const softmax_variant *v = variant_or_skip(*vi, label, sizeof label);
    {
        int npaths = v->run_path ? SOFTMAX_NPATHS : 1;
        for (int p = 0; p < npaths; p++) {
            softmax_run(v, (softmax_path)p, x, NULL, y, NULL, 6, C);
            double sum3 = 0;
            for (int c = 0; c < C; c++) {
                cr_expect(isnan(y[0 * C + c]), "%s path %d: all -inf row must be NaN", label, p);
                cr_expect(y[1 * C + c] == (c == 5 ? 1.0f : 0.0f), "%s path %d: one-hot row col %d = %g",
                          label, p, c, (double)y[1 * C + c]);
                cr_expect(isnan(y[2 * C + c]), "%s path %d: NaN must fill its row", label, p);
                cr_expect(!isnan(y[3 * C + c]), "%s path %d: NaN leaked into the next row", label, p);
                sum3 += y[3 * C + c];
                if (v->overflow_safe) {
                    cr_expect(isfinite(y[4 * C + c]), "%s path %d: huge row overflowed", label, p);
                    cr_expect(isnan(y[5 * C + c]), "%s path %d: +inf row must be NaN", label, p);
                }
            }
            cr_expect(fabs(sum3 - 1) < 1e-5, "%s path %d: clean row sums to %.9g", label, p, sum3);
        }
    }
}

VARIANT_TEST(xent_ignored_and_masked_targets, VARIANTS_XENT)
{
    enum { C = 19 };
    float x[3 * C], d[3 * C], loss[3];
    int targets[3] = {-1, 4, 7};
    for (int c = 0; c < C; c++) {
        x[c] = NAN;                                      /* ignored: even NaN gives 0 */
        x[C + c] = c == 4 ? -INFINITY : (float)c / 4;    /* target masked: loss +inf */
        x[2 * C + c] = (float)c / 4;
    }
    char label[64];
    const softmax_variant *v = variant_or_skip(*vi, label, sizeof label);
    {
        for (int p = 0; p < SOFTMAX_NPATHS; p++) {
            softmax_run(v, (softmax_path)p, x, targets, d, loss, 3, C);
            cr_expect(loss[0] == 0, "%s path %d: ignored row loss %g", label, p, (double)loss[0]);
            for (int c = 0; c < C; c++)
                cr_expect(d[c] == 0, "%s path %d: ignored row gradient %g", label, p, (double)d[c]);
            cr_expect(loss[1] == INFINITY, "%s path %d: masked target loss %g", label, p, (double)loss[1]);
            cr_expect(d[C + 4] == -1.0f, "%s path %d: masked target gradient %g", label, p, (double)d[C + 4]);
            cr_expect(isfinite(loss[2]) && loss[2] > 0, "%s path %d: loss %g", label, p, (double)loss[2]);
        }
    }
}

/* ---- the cross-entropy gradient against centred finite differences ----
 * L(x) = sum_r loss_r.  dL/dx[r][c] by (L(x + h e) - L(x - h e)) / (x+ - x-), with the
 * perturbed values as floats actually represent them; once with the variant's own
 * forward loss (float: h = 1e-2, tolerance 2e-3 from the loss's rounding) and once with
 * the double reference loss (h = 1e-3, truncation ~1e-7, tolerance 1e-4). */
static double loss_sum_ref(const float *x, const int *t, int rows, int cols)
{
    double loss[8], s = 0;
    softmax_xent_ref(x, t, NULL, loss, rows, cols);
    for (int r = 0; r < rows; r++)
        s += loss[r];
    return s;
}

static double loss_sum_variant(const softmax_variant *v, const float *x, const int *t, int rows,
                               int cols)
{
    float loss[8];
    double s = 0;
    v->xent_loss(x, t, loss, rows, cols);
    for (int r = 0; r < rows; r++)
        s += loss[r];
    return s;
}

VARIANT_TEST(xent_gradient_vs_finite_differences, VARIANTS_XENT)
{
    static const int cols_list[] = {1, 7, 17, 33};
    enum { R = 3 };
    char label[64];
    const softmax_variant *v = variant_or_skip(*vi, label, sizeof label);
    {
        for (int ci = 0; ci < 4; ci++) {
            int C = cols_list[ci];
            float x[R * 33], g[R * 33], loss[R];
            int t[R] = {0, C / 2, C - 1};
            for (int j = 0; j < R * C; j++)   /* moderate logits: smooth loss */
                x[j] = 3 * softmax_input(SEED, SOFTMAX_IN_RANDOM, 1, j, R * C);
            for (int p = 0; p < SOFTMAX_NPATHS; p++) {
                softmax_run(v, (softmax_path)p, x, t, g, loss, R, C);
                for (int j = 0; j < R * C; j++) {
                    float keep = x[j];
                    for (int pass = 0; pass < 2; pass++) {
                        float h = pass == 0 ? 1e-2f : 1e-3f;
                        x[j] = keep + h;
                        float xp = x[j];
                        double lp = pass == 0 ? loss_sum_variant(v, x, t, R, C) : loss_sum_ref(x, t, R, C);
                        x[j] = keep - h;
                        float xm = x[j];
                        double lm = pass == 0 ? loss_sum_variant(v, x, t, R, C) : loss_sum_ref(x, t, R, C);
                        x[j] = keep;
                        double fd = (lp - lm) / ((double)xp - xm);
                        double tol = pass == 0 ? 2e-3 : 1e-4;
                        cr_expect(fabs(fd - g[j]) <= tol,
                                  "%s cols=%d path=%d: dlogits[%d][%d] = %.7g, finite difference of the %s loss %.7g",
                                  label, C, p, j / C, j % C, (double)g[j], pass == 0 ? "variant's" : "reference",
                                  fd);
                    }
                }
            }
        }
    }
}

/* The forward loss of every xent variant against the double reference on huge inputs. */
VARIANT_TEST(xent_loss_vs_reference, VARIANTS_XENT)
{
    enum { R = 20, C = 1000 };
    float *x = malloc(sizeof(float) * R * C), *d = malloc(sizeof(float) * R * C), loss[R];
    double ref[R];
    int t[R];
    softmax_fill(x, 0, R, C, SOFTMAX_IN_HUGE, SEED);
    softmax_fill_targets(t, 0, R, C, SEED);
    softmax_xent_ref(x, t, NULL, ref, R, C);
    char label[64];
    const softmax_variant *v = variant_or_skip(*vi, label, sizeof label);
    {
        v->xent(x, t, d, loss, R, C);
        for (int r = 0; r < R; r++) {
            double want = (float)ref[r];
            int same = (isnan(want) && isnan(loss[r])) || loss[r] == want ||
                       fabs(loss[r] - want) <= SOFTMAX_LOSS_TOL * fmax(1, fabs(want));
            cr_expect(same, "%s row %d: loss %.9g, reference %.9g", label, r, (double)loss[r], ref[r]);
        }
    }
    free(x);
    free(d);
}

/* ---- the command line: bad input is exit 2 with one line on stderr ---- */

extern char **environ;
static void expect_usage_error(const char *const *args, const char *fragment)
{
    cli_expect_usage_error("build/bin/microbench", (const char *[]){"softmax", NULL}, args, fragment);
}

Test(softmax_cli, unknown_variant) { expect_usage_error((const char *[]){"--variant", "fastest", NULL}, "unknown variant 'fastest'"); }
Test(softmax_cli, unknown_isa) { expect_usage_error((const char *[]){"--isa", "neon", NULL}, "unknown ISA 'neon'"); }
Test(softmax_cli, zero_rows) { expect_usage_error((const char *[]){"--rows", "0", NULL}, "--rows: '0'"); }
Test(softmax_cli, negative_cols) { expect_usage_error((const char *[]){"--cols", "-5", NULL}, "--cols: '-5'"); }
Test(softmax_cli, non_numeric_cols) { expect_usage_error((const char *[]){"--cols", "vocab", NULL}, "--cols: 'vocab'"); }
Test(softmax_cli, too_large_for_memory) { expect_usage_error((const char *[]){"--rows", "1M", "--cols", "1M", NULL}, "memory"); }
Test(softmax_cli, cols_over_int) { expect_usage_error((const char *[]){"--cols", "4G", NULL}, "too large"); }
Test(softmax_cli, bad_threads) { expect_usage_error((const char *[]){"--threads", "0", NULL}, "--threads"); }
Test(softmax_cli, unwritable_csv) { expect_usage_error((const char *[]){"--csv", "/nonexistent-dir/s.csv", NULL}, "does not exist"); }
