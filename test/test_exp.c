/* test_exp.c — Criterion tests of kernels/exp/: every expf variant against what it
 * declares, the ULP measure itself, tails, and the AVX-512 poly arithmetic.
 *
 * Variants whose ISA this CPU lacks are skipped (Criterion's skip, naming the ISA).
 * exp_poly_w16_avx2 is the AVX-512 poly's twin with vscalefps replaced by a generic
 * equivalent (exp_poly_core.h): it is checked everywhere, the equivalence is tested
 * against ldexpf, and on a CPU with AVX-512 the variant itself must equal its twin bit
 * for bit — the test that proves the AVX-512 code on the first machine that has it. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "exp.h"
#include "exp_accuracy.h"
#include "exp_kernels.h"

/* The generic pieces of the poly core, at 4 lanes (SSE2 here): only the clamp and
 * the exact scaling are tested through it, neither of which involves FMA. */
#define EXP_POLY_W 4
#include "exp_poly_core.h"

static int test_threads(void) { return 2; }

static uint32_t bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static float from_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static int same(float a, float b) { return (isnan(a) && isnan(b)) || bits(a) == bits(b); }

/* All lanes x (adding to a zero vector would turn -0 into +0). */
static exp_vf splat(float x) { return (exp_vf){x, x, x, x}; }

/* ---- the registry ---------------------------------------------------------------- */

Test(exp_registry, names_follow_the_contract_and_libm_comes_first)
{
    static const char *names[] = {"libm", "libmvec", "sleef", "poly", "table", "schraudolph"};
    cr_assert_gt(exp_nvariants, 0);
    cr_assert_str_eq(exp_variants[0].variant, "libm", "the scalar libm loop must be first");
    for (int k = 0; k < exp_nvariants; k++) {
        const exp_variant *v = &exp_variants[k];
        int known = 0;
        for (int i = 0; i < RS_ARRAY_LEN(names); i++)
            known |= strcmp(v->variant, names[i]) == 0;
        cr_expect(known, "variant name \"%s\" is not one of the contract's", v->variant);
        cr_expect(v->run && v->impl && v->ulp_bound > 0 && v->domain_lo < v->domain_hi,
                  "%s %s: incomplete row", v->variant, rs_isa_name(v->isa));
        cr_expect_eq(exp_find(v->variant, v->isa), v, "exp_find(%s, %s)", v->variant,
                     rs_isa_name(v->isa));
    }
    cr_expect_null(exp_find("nosuch", RS_ISA_PORTABLE));
    cr_expect_not_null(exp_find("poly", RS_ISA_AVX512));
    cr_expect_not_null(exp_find("poly", RS_ISA_PORTABLE));
}

/* ---- the ULP measure ------------------------------------------------------------- */

Test(exp_ulp, hand_computed_cases)
{
    cr_expect_eq(exp_ulp_error(1.0f, 1.0), 0.0, "exact");
    cr_expect_eq(exp_ulp_error(1.5f + 0x1p-23f, 1.5), 1.0, "one ULP above in [1,2)");
    cr_expect_eq(exp_ulp_error(1.5f - 0x1p-23f, 1.5), 1.0, "one ULP below in [1,2)");
    /* the ULP is taken at the reference: below 1.0 the spacing halves */
    cr_expect_eq(exp_ulp_error(1.0f - 0x1p-24f, 1.0), 0.5);
    cr_expect_eq(exp_ulp_error(1.0f, 1.0 + 0x1p-24), 0.5, "half an ULP");
    cr_expect_eq(exp_ulp_error(0.75f + 0x1p-24f, 0.75), 1.0, "one ULP in [0.5,1)");
    cr_expect_eq(exp_ulp_error(0x1p100f * 1.5f, 0x1p100 * 1.5 + 0x1p77), 1.0, "large binade");
    /* subnormal results: the spacing is 2^-149 */
    cr_expect_eq(exp_ulp_error(0x1p-148f, 3 * 0x1p-149), 1.0, "subnormal, one ULP");
    cr_expect_eq(exp_ulp_error(0.0f, 0x1p-150), 0.5, "zero for half the smallest subnormal");
    cr_expect_eq(exp_ulp_error(0x1p-130f + 0x1p-149f, 0x1p-130), 1.0, "subnormal binade");
    cr_expect_eq(exp_ulp_error(FLT_MIN, 0x1p-126 - 0x1p-149), 1.0, "across the normal boundary");
    /* infinities and NaN */
    cr_expect_eq(exp_ulp_error(INFINITY, 1e300), 0.0, "overflow gives +inf: right");
    cr_expect(isinf(exp_ulp_error(FLT_MAX, 1e300)), "finite where the result overflows");
    cr_expect(isinf(exp_ulp_error(INFINITY, 1.0)), "inf where the result is finite");
    cr_expect(isinf(exp_ulp_error(INFINITY, (double)FLT_MAX)), "inf where FLT_MAX is right");
    cr_expect_eq(exp_ulp_error(FLT_MAX, (double)FLT_MAX + 0x1p102), 0.25,
                 "just above FLT_MAX but rounding to it");
    cr_expect(isinf(exp_ulp_error(NAN, 1.0)), "NaN for a number");
    cr_expect(isinf(exp_ulp_error(1.0f, NAN)), "a number for NaN");
    cr_expect_eq(exp_ulp_error(NAN, NAN), 0.0, "NaN for NaN");
    cr_expect_eq(exp_ulp_error(0.0f, 0.0), 0.0, "exp(-inf) = 0");
}

/* ---- every variant against its declaration ---------------------------------------- */

static int *variant_index_array(void)
{
    int *idx = cr_malloc(sizeof(int) * (size_t)exp_nvariants);
    for (int k = 0; k < exp_nvariants; k++)
        idx[k] = k;
    return idx;
}

static void free_params(struct criterion_test_params *p) { cr_free(p->params); }

static const exp_variant *supported_or_skip(int k)
{
    const exp_variant *v = &exp_variants[k];
    if (!rs_isa_supported(v->isa))
        cr_skip_test("%s %s (%s): this CPU lacks %s", v->variant, rs_isa_name(v->isa),
                     v->impl, rs_isa_name(v->isa));
    return v;
}

static void check_declared(const exp_variant *v, exp_inputs in, const char *set)
{
    exp_acc a;
    cr_assert_eq(exp_accuracy(&v, 1, in, test_threads(), 0, &a), 0, "%s", rs_lasterr());
    cr_assert_gt(a.n, 0, "%s %s: no inputs checked on %s", v->variant, rs_isa_name(v->isa), set);
    cr_log_info("%s %s on %s: max %.4f ULP (bound %g), rms %.4f, worst exp(%a) = %a, n = %lld",
                v->variant, rs_isa_name(v->isa), set, a.max_ulp, v->ulp_bound, a.rms_ulp,
                (double)a.worst_x, (double)a.worst_y, a.n);
    if (v->specials)
        cr_expect(a.specials_ok, "%s %s declares exact specials, but on %s: %s", v->variant,
                  rs_isa_name(v->isa), set, a.specials_msg);
    cr_expect(a.max_ulp <= v->ulp_bound,
              "%s %s on %s: max %.4f ULP at x = %a (gave %a), declared %g", v->variant,
              rs_isa_name(v->isa), set, a.max_ulp, (double)a.worst_x, (double)a.worst_y,
              v->ulp_bound);
}

ParameterizedTestParameters(exp_variants, meet_bound_on_specials)
{
    return cr_make_param_array(int, variant_index_array(), (size_t)exp_nvariants, free_params);
}

ParameterizedTest(int *k, exp_variants, meet_bound_on_specials)
{
    check_declared(supported_or_skip(*k), EXP_SPECIALS, "the specials");
}

ParameterizedTestParameters(exp_variants, meet_bound_on_sample)
{
    return cr_make_param_array(int, variant_index_array(), (size_t)exp_nvariants, free_params);
}

ParameterizedTest(int *k, exp_variants, meet_bound_on_sample)
{
    check_declared(supported_or_skip(*k), EXP_SAMPLE, "the sample");
}

/* n = 0, 1, 15, 17, 33 at two offsets give the bits of the full-array run and
 * write nothing past y[n-1]. */
ParameterizedTestParameters(exp_variants, tails_match_full_vectors)
{
    return cr_make_param_array(int, variant_index_array(), (size_t)exp_nvariants, free_params);
}

ParameterizedTest(int *k, exp_variants, tails_match_full_vectors)
{
    const exp_variant *v = supported_or_skip(*k);
    enum { N = 72 };
    float x[N], full[N], y[N + 8];
    for (int i = 0; i < N; i++) /* in every domain, spread over [-86, 86] */
        x[i] = -86.0f + 172.0f * (float)((i * 37) % N) / (float)N + 0x1p-7f * (float)i;
    if (v->specials) { /* lanes that send AVX2 vectors to their full path */
        x[5] = NAN;
        x[20] = INFINITY;
        x[40] = -100.0f;
        x[41] = 95.0f;
    }
    v->run(x, full, N);
    static const size_t ns[] = {0, 1, 15, 17, 33};
    for (int off = 0; off <= 3; off += 3)
        for (int t = 0; t < RS_ARRAY_LEN(ns); t++) {
            size_t n = ns[t];
            for (int i = 0; i < N + 8; i++)
                y[i] = 12345.0f;
            v->run(x + off, y, n);
            for (size_t i = 0; i < n; i++)
                cr_assert(same(y[i], full[off + i]),
                          "%s %s n=%zu off=%d: y[%zu] = %a, full run gave %a (x = %a)",
                          v->variant, rs_isa_name(v->isa), n, off, i, (double)y[i],
                          (double)full[off + i], (double)x[off + i]);
            for (size_t i = n; i < N + 8; i++)
                cr_assert_eq(y[i], 12345.0f, "%s %s n=%zu: wrote y[%zu]", v->variant,
                             rs_isa_name(v->isa), n, i);
        }
}

/* ---- the AVX-512 poly, verified without AVX-512 ------------------------------------ */

static const exp_variant poly_w16 = {
    "poly", RS_ISA_AVX2, "AVX-512 poly arithmetic built for AVX2", 1.0, 1,
    -INFINITY, INFINITY, exp_poly_w16_avx2,
};

static void need_avx2(void)
{
    if (!rs_isa_supported(RS_ISA_AVX2))
        cr_skip_test("exp_poly_w16_avx2 needs avx2, which this CPU lacks");
}

Test(exp_poly_avx512_arith, within_1ulp_with_exact_specials)
{
    need_avx2();
    const exp_variant *v = &poly_w16;
    exp_acc a[2];
    cr_assert_eq(exp_accuracy(&v, 1, EXP_SPECIALS, test_threads(), 0, &a[0]), 0, "%s", rs_lasterr());
    cr_assert_eq(exp_accuracy(&v, 1, EXP_SAMPLE, test_threads(), 0, &a[1]), 0, "%s", rs_lasterr());
    for (int s = 0; s < 2; s++) {
        cr_expect(a[s].specials_ok, "%s", a[s].specials_msg);
        cr_expect(a[s].max_ulp <= 1.0, "max %.4f ULP at x = %a", a[s].max_ulp, (double)a[s].worst_x);
    }
    cr_log_info("AVX-512 poly arithmetic (built for AVX2): sample max %.4f ULP, rms %.4f",
                a[1].max_ulp, a[1].rms_ulp);
}

/* 8-lane and 16-lane builds of the same source must agree bit for bit everywhere:
 * it shows GCC compiled the same operations (FMA contraction included) at both
 * widths, and that the AVX2 variant's fast path equals the full path. */
Test(exp_poly_avx512_arith, w16_and_avx2_builds_agree_bitwise)
{
    need_avx2();
    enum { N = 1 << 16 };
    float *x = malloc(N * sizeof *x), *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    for (uint64_t base = 0; base < (1ull << 32); base += (uint64_t)N * 61) {
        for (int i = 0; i < N; i++)
            x[i] = from_bits((uint32_t)(base + (uint64_t)i * 61));
        exp_poly_avx2(x, a, N);
        exp_poly_w16_avx2(x, b, N);
        for (int i = 0; i < N; i++)
            if (!same(a[i], b[i]))
                cr_assert_fail("exp(%a): avx2 gave %a, the 16-lane build %a", (double)x[i],
                               (double)a[i], (double)b[i]);
    }
    free(x);
    free(a);
    free(b);
}

/* vscalefps(p, k) = p * 2^floor(k) rounded once (Intel SDM); exp_poly_scale_exact
 * must give that for the p and k the algorithm produces.  ldexpf rounds once. */
Test(exp_poly_avx512_arith, exact_scaling_equals_a_single_rounding)
{
    for (int k = -160; k <= 160; k++) {
        exp_vf y = splat(EXP_POLY_SHIFT + (float)k); /* what exp_poly_eval sets */
        for (uint32_t pb = bits(0.5f); pb < bits(2.0f); pb += 997) {
            exp_vf p = splat(from_bits(pb));
            float got = exp_poly_scale_exact(p, y)[0];
            float want = ldexpf(from_bits(pb), k);
            if (!same(got, want))
                cr_assert_fail("%a * 2^%d: got %a, want %a", (double)from_bits(pb), k,
                               (double)got, (double)want);
        }
    }
    exp_vf nan_p = splat(NAN), nan_y = splat(NAN);
    cr_expect(isnan(exp_poly_scale_exact(nan_p, nan_y)[0]), "NaN stays NaN");
}

/* The clamp: min(C, max(-C, x)) with NaN (either sign, quiet or signaling) kept as
 * NaN — vrangeps, tried on a Zen 5 before, turned a quiet NaN into 104.5. */
Test(exp_poly_avx512_arith, clamp_keeps_nan_and_clamps_the_rest)
{
    const float c = EXP_POLY_CLAMP;
    for (uint64_t b = 0; b < (1ull << 32); b += 4093) {
        float x = from_bits((uint32_t)b);
        float want = isnan(x) ? x : x < -c ? -c : x > c ? c : x;
        float got = exp_poly_clamp(splat(x))[0];
        if (isnan(x) ? !isnan(got) : !same(got, want))
            cr_assert_fail("clamp(%a) = %a, want %a", (double)x, (double)got, (double)want);
    }
    const float edge[] = {c, -c, nextafterf(c, INFINITY), -nextafterf(c, INFINITY), 0.0f,
                          -0.0f, INFINITY, -INFINITY, NAN, -NAN, from_bits(0x7fa00000u),
                          from_bits(0xffa00000u)};
    for (int i = 0; i < RS_ARRAY_LEN(edge); i++) {
        float x = edge[i], got = exp_poly_clamp(splat(x))[0];
        float want = isnan(x) ? x : copysignf(fabsf(x) <= c ? fabsf(x) : c, x);
        cr_expect(isnan(x) ? isnan(got) : same(got, want), "clamp(%a) = %a", (double)x, (double)got);
    }
}

/* The AVX-512 variant against its twin, bit for bit: every 61st bit pattern (all
 * signs, NaNs, infinities, subnormals and both ends of the range) plus the specials. */
Test(exp_poly_avx512_arith, avx512_variant_equals_its_twin_bitwise)
{
    if (!rs_isa_supported(RS_ISA_AVX512))
        cr_skip_test("exp_poly_avx512 not run: this CPU lacks avx512 (its twin is checked)");
    enum { N = 1 << 16 };
    float *x = malloc(N * sizeof *x), *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    cr_assert(x && a && b);
    const float extra[] = {NAN, -NAN, from_bits(0x7fa00000u), from_bits(0xffa00000u), INFINITY,
                           -INFINITY, 0.0f, -0.0f, 104.5f, -104.5f, 88.72284f, 88.72285f,
                           -103.97208f, -87.33655f, 0x1p-149f, FLT_MAX, -FLT_MAX};
    long checked = 0;
    for (uint64_t base = 0; base < (1ull << 32); base += (uint64_t)N * 61) {
        int n = 0;
        for (; n < N - RS_ARRAY_LEN(extra) && base + (uint64_t)n * 61 < (1ull << 32); n++)
            x[n] = from_bits((uint32_t)(base + (uint64_t)n * 61));
        for (int i = 0; i < RS_ARRAY_LEN(extra); i++)
            x[n++] = extra[i];
        exp_poly_avx512(x, a, (size_t)n);
        exp_poly_w16_avx2(x, b, (size_t)n);
        for (int i = 0; i < n; i++)
            if (!same(a[i], b[i]))
                cr_assert_fail("exp(%a): avx512 gave %a, its twin %a", (double)x[i],
                               (double)a[i], (double)b[i]);
        checked += n;
    }
    cr_log_info("exp_poly_avx512 equals its twin on %ld inputs", checked);
    free(x);
    free(a);
    free(b);
}

/* ---- the accuracy driver ------------------------------------------------------------ */

Test(exp_accuracy, results_do_not_depend_on_the_thread_count)
{
    const exp_variant *v = exp_find("poly", RS_ISA_PORTABLE);
    cr_assert_not_null(v);
    exp_acc a1, a2;
    cr_assert_eq(exp_accuracy(&v, 1, EXP_SAMPLE, 1, 0, &a1), 0, "%s", rs_lasterr());
    cr_assert_eq(exp_accuracy(&v, 1, EXP_SAMPLE, 2, 0, &a2), 0, "%s", rs_lasterr());
    cr_expect_eq(a1.max_ulp, a2.max_ulp);
    cr_expect_eq(a1.rms_ulp, a2.rms_ulp);
    cr_expect_eq(bits(a1.worst_x), bits(a2.worst_x));
    cr_expect_eq(a1.n, a2.n);
    cr_expect_gt(a1.n, 4000000, "the sample is ~2^22 inputs, got %lld", a1.n);
}

static void exp_wrong_specials(const float *x, float *y, size_t n)
{
    exp_poly_portable(x, y, n);
    for (size_t i = 0; i < n; i++)
        if (x[i] == -INFINITY)
            y[i] = NAN;
}

Test(exp_accuracy, a_wrong_special_is_reported)
{
    const exp_variant bad = {"poly", RS_ISA_PORTABLE, "broken", 1.0, 1, -INFINITY, INFINITY,
                             exp_wrong_specials};
    const exp_variant *v = &bad;
    exp_acc a;
    cr_assert_eq(exp_accuracy(&v, 1, EXP_SPECIALS, 1, 0, &a), 0, "%s", rs_lasterr());
    cr_expect_not(a.specials_ok);
    cr_expect(isinf(a.max_ulp));
    cr_expect_str_eq(a.specials_msg, "exp(-inf) gave nan, want +0");
}
