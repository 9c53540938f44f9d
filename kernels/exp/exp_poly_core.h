/* exp_poly_core.h — the project's own polynomial expf, written once on GCC generic
 * vectors and instantiated per width: exp_poly_avx512.c (16 lanes), exp_poly_avx2.c
 * (8 lanes) and exp_poly_w16_avx2.c — the 16-lane arithmetic compiled for AVX2, the
 * AVX-512 variant's twin that the tests hold it to (see "Verification" below).  exp_poly_portable.c runs the
 * same algorithm in double precision instead: it cannot count on FMA.
 *
 * Define EXP_POLY_W (lanes) before including.  Every function is static inline and
 * works on whole vectors; callers loop with EXP_VEC_LOOP (exp_loop.h).
 *
 * Algorithm (per lane):
 *   k  = round(x * log2(e))      by adding 1.5*2^23: one FMA rounds x*log2e (exact
 *                                product) to an integer, kept in the low mantissa bits
 *   r  = x - k*LN2_HI - k*LN2_LO Cephes' split of ln 2: k*LN2_HI is exact (LN2_HI has
 *                                9 significant bits, |k| <= 151), so the first step is
 *                                exact; |r| <= ln2/2
 *   p  = 1 + r + c2 r^2 + ... + c6 r^6   Horner, 6 FMAs (degree 6: degree 5 cannot
 *                                reach 1 ULP, its minimax error alone is 1.26 ULP)
 *   y  = p * 2^k                 scalef on AVX-512; elsewhere an integer add to the
 *                                exponent (fast path) or two exact multiplies (all
 *                                inputs, correctly rounded subnormals and overflow).
 * Out of range inputs are clamped to [-104.5, 104.5] first (NaN passes through):
 * exp(104.5) overflows to +inf and exp(-104.5) underflows to +0 after rounding, so the
 * clamp changes no result and keeps |x*log2e| far inside the rounding trick's range.
 *
 * Error: the final FMA rounds once (0.5 ULP); r's rounding (<= 0.19), the rounding of
 * the inner Horner value times r (<= 0.35) and the polynomial (0.05) add to it.
 * Measured over every float in [-104, 89]: max 0.901 ULP, RMS 0.146.  FMA matters:
 * with a*b+c rounded twice the same code measured 1.13 ULP.
 *
 * Coefficients: c0 = c1 = 1 exactly (exp(0) = 1 exactly, and a c1 rounded to float
 * would cost 0.3 ULP); c2..c6 are a relative-error minimax fit on |r| <= 1.0005*ln2/2
 * (the margin covers a k off by one where x*log2e is rounded before the shift is
 * added, as in a build without FMA), computed for this project by Lawson's
 * iteratively reweighted least squares in double precision, then rounded to float
 * one coefficient at a time with the remaining ones refitted.
 * Max relative error of the float polynomial in exact arithmetic: 3.13e-9 (0.05 ULP).
 *
 * Verification: the AVX-512 build differs from the generic code in one operation,
 *   vscalefps(p, k) = p * 2^floor(k) rounded once; NaN p or k gives NaN
 *                   == exp_poly_scale_exact(): p*2^k1 is exact, the second multiply by
 *                      2^k2 rounds once (the test checks it against ldexpf).
 * Everything else is the same source compiled to the same IEEE operations (GCC
 * contracts a*b+c to one FMA in every build that has FMA).  The tests compare the
 * 16-lane AVX2 build with the 8-lane one bit for bit everywhere, and with the AVX-512
 * variant itself wherever AVX-512 runs: that comparison, not this argument, is what
 * proves the AVX-512 code on a given CPU. */
#ifndef EXP_POLY_W
#error "define EXP_POLY_W (lanes per vector) before including exp_poly_core.h"
#endif

#include <stdint.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "exp_loop.h"

/* Forced inline: a vector passed to an out-of-line function goes through memory. */
#define EXP_POLY_INLINE static inline __attribute__((always_inline))

/* 64-byte vectors built without AVX-512 (exp_poly_w16_avx2.c): GCC warns that
 * returning them would follow another ABI (-Wpsabi) — nothing here crosses an ABI
 * boundary, every function is inlined — so that warning is off.  (GCC 12 still
 * prints one "note: the ABI for passing parameters with 64-byte alignment has
 * changed"; only -Wno-psabi on the command line silences it.) */
#if EXP_POLY_W == 16 && !defined(__AVX512F__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

typedef float exp_vf __attribute__((vector_size(4 * EXP_POLY_W)));
typedef int32_t exp_vi __attribute__((vector_size(4 * EXP_POLY_W)));
typedef uint32_t exp_vu __attribute__((vector_size(4 * EXP_POLY_W)));

#define EXP_POLY_LOG2E  0x1.715476p+0f  /* log2(e) rounded to float */
#define EXP_POLY_SHIFT  0x1.8p23f       /* 1.5*2^23: x + SHIFT rounds x to an integer */
#define EXP_POLY_SHIFT_BITS 0x4b400000  /* its bit pattern; integer k sits in the low bits */
#define EXP_POLY_LN2_HI 0x1.63p-1f      /* 0.693359375 (Cephes C1), 9 significant bits */
#define EXP_POLY_LN2_LO -0x1.bd0106p-13f /* ln 2 - LN2_HI rounded to float (Cephes C2) */
#define EXP_POLY_CLAMP  104.5f          /* |x| beyond this: exp is +inf or +0 anyway */
#define EXP_POLY_C2 0x1.fffffcp-2f
#define EXP_POLY_C3 0x1.555492p-3f
#define EXP_POLY_C4 0x1.5558b0p-5f
#define EXP_POLY_C5 0x1.12399cp-7f
#define EXP_POLY_C6 0x1.6a4ed0p-10f

/* max(a, b) and min(a, b) as x86's maxps and minps define them: b whenever the
 * comparison is false, as it is when either is NaN.  One instruction each where the
 * ISA has the width (intrinsics keep the operand order); otherwise a compare and a
 * select, bit for bit the same. */
EXP_POLY_INLINE exp_vf exp_poly_vmax(exp_vf a, exp_vf b)
{
#if EXP_POLY_W == 16 && defined(__AVX512F__)
    return (exp_vf)_mm512_max_ps((__m512)a, (__m512)b);
#elif EXP_POLY_W == 8 && defined(__AVX__)
    return (exp_vf)_mm256_max_ps((__m256)a, (__m256)b);
#elif EXP_POLY_W == 4 && defined(__SSE2__)
    return (exp_vf)_mm_max_ps((__m128)a, (__m128)b);
#else
    exp_vi gt = a > b;
    return (exp_vf)(((exp_vi)a & gt) | ((exp_vi)b & ~gt));
#endif
}

EXP_POLY_INLINE exp_vf exp_poly_vmin(exp_vf a, exp_vf b)
{
#if EXP_POLY_W == 16 && defined(__AVX512F__)
    return (exp_vf)_mm512_min_ps((__m512)a, (__m512)b);
#elif EXP_POLY_W == 8 && defined(__AVX__)
    return (exp_vf)_mm256_min_ps((__m256)a, (__m256)b);
#elif EXP_POLY_W == 4 && defined(__SSE2__)
    return (exp_vf)_mm_min_ps((__m128)a, (__m128)b);
#else
    exp_vi lt = a < b;
    return (exp_vf)(((exp_vi)a & lt) | ((exp_vi)b & ~lt));
#endif
}

/* min(CLAMP, max(-CLAMP, x)): x is the second operand of both, so NaN stays NaN. */
EXP_POLY_INLINE exp_vf exp_poly_clamp(exp_vf x)
{
    const exp_vf cl = (exp_vf){0} + EXP_POLY_CLAMP;   /* broadcast */
    return exp_poly_vmin(cl, exp_poly_vmax(-cl, x));
}

/* The range reduction: x = k ln2 + r, |r| <= ln2/2; returns r and sets *y to
 * x*log2e + SHIFT, whose bit pattern is SHIFT_BITS + k (and *k to k as a float).
 * Needs |x| < 2^21 or NaN (true after exp_poly_clamp, or on the fast path).  Shared
 * with softmax's exp where there is no FMA (softmax_fast_core.h). */
EXP_POLY_INLINE exp_vf exp_poly_reduce(exp_vf x, exp_vf *y, exp_vf *k)
{
    exp_vf t = x * EXP_POLY_LOG2E + EXP_POLY_SHIFT; /* FMA: rounds the exact product */
    exp_vf kf = t - EXP_POLY_SHIFT;                 /* exact */
    exp_vf r = x - kf * EXP_POLY_LN2_HI;            /* exact */
    *y = t;
    *k = kf;
    return r - kf * EXP_POLY_LN2_LO;
}

/* The shared arithmetic: returns p = e^r in [0.70, 1.42], *y and *k as
 * exp_poly_reduce sets them. */
EXP_POLY_INLINE exp_vf exp_poly_eval(exp_vf x, exp_vf *y, exp_vf *k)
{
    exp_vf r = exp_poly_reduce(x, y, k);
    exp_vf p = r * EXP_POLY_C6 + EXP_POLY_C5;
    p = p * r + EXP_POLY_C4;
    p = p * r + EXP_POLY_C3;
    p = p * r + EXP_POLY_C2;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    return p;
}

/* p * 2^k by adding k to the exponent field: exact, but only valid where the result
 * is a normal float, i.e. -125 <= k <= 127 (|x| <= 86.5 guarantees it).  The low 9
 * bits of y's pattern hold SHIFT_BITS + k; shifted left by 23 the SHIFT bits fall
 * off the word and k << 23 remains (mod 2^32). */
EXP_POLY_INLINE exp_vf exp_poly_scale_fast(exp_vf p, exp_vf y)
{
    return (exp_vf)((exp_vu)p + ((exp_vu)y << 23));
}

/* p * 2^k rounded once, for -252 <= k <= 254 and p in [0.5, 2): k = k1 + k2 with
 * k1 = floor(k/2); p * 2^k1 is an exact normal float, so the multiply by 2^k2 is
 * the only rounding — gradual underflow and overflow to +inf come out right.
 * NaN p stays NaN (whatever garbage k a NaN y yields).  Same result as vscalefps. */
EXP_POLY_INLINE exp_vf exp_poly_scale_exact(exp_vf p, exp_vf y)
{
    exp_vi k = (exp_vi)((exp_vu)y - EXP_POLY_SHIFT_BITS);
    exp_vi k1 = k >> 1;   /* arithmetic shift: floor(k/2) */
    exp_vi k2 = k - k1;
    exp_vf s1 = (exp_vf)(((exp_vu)k1 + 127) << 23);
    exp_vf s2 = (exp_vf)(((exp_vu)k2 + 127) << 23);
    return p * s1 * s2;
}

/* Every input: specials exact, subnormal results correctly scaled. */
EXP_POLY_INLINE exp_vf exp_poly_exact(exp_vf x)
{
    exp_vf y, k;
    exp_vf p = exp_poly_eval(exp_poly_clamp(x), &y, &k);
    (void)k;
    return exp_poly_scale_exact(p, y);
}
