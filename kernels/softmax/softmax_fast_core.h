/* softmax_fast_core.h — the `fast` softmax and the fused cross-entropy (`xent`), written
 * once on GCC generic vectors with the project's polynomial exp (exp_poly_core.h) and
 * instantiated per vector width.
 *
 * Use: define EXP_POLY_W (lanes: 16, 8, 4), include this file, then expand
 * SOFTMAX_FAST_DEFINE(name) and XENT_FAST_DEFINE(name) for the exported kernels.
 * softmax_fast_{avx512,avx2,portable}.c and softmax_xent_{avx512,avx2,portable}.c do so;
 * softmax_w16_avx2.c builds the 16-lane code for AVX2, so the AVX-512 arithmetic is
 * tested on machines without AVX-512.
 *
 * Contract (softmax.h): every output within SOFTMAX_MAX_REL_ERR of the double
 * reference; a row with a NaN or +inf gives NaN, an all -inf row gives NaN; the tail of
 * a row goes through a vector padded with -inf, so every element sees the same
 * arithmetic; sums go per block of SM_BLOCK vectors into a double, so their error does
 * not grow with the row.
 *
 * Row paths (softmax_path): STORE, one exp per element into y and a scale pass (the
 * exps taken against an optimistic reference, checked afterwards); STORE_NT, the same
 * with the exps stored non-temporally; ONLINE, two passes with a running max per block
 * (also the forward-only loss); STREAM, ONLINE with non-temporal stores of y.
 * SOFTMAX_PATH_AUTO takes STORE while a row fits in L2 or the call's x and y fit in half
 * the LLC, else STORE_NT.  Non-temporal stores end with an sfence. */
#ifndef EXP_POLY_W
#error "define EXP_POLY_W (lanes per vector) before including softmax_fast_core.h"
#endif

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "exp_poly_core.h"
#include "softmax.h"

#if defined(__SSE2__)
#include <immintrin.h>
#endif

/* Rows up to this many columns always take STORE: x and y of a row (512 KiB) fit in the
 * L2 of Zen 3 (512 KiB) and of Intel server cores (1-2 MiB). */
#ifndef SOFTMAX_STORE_MAX_COLS
#define SOFTMAX_STORE_MAX_COLS 65536
#endif
/* d below this gives 0: exp(-86.5) = 2.7e-38 is the smallest power scale_fast keeps
 * normal (exp_poly_core.h: valid for |x| <= 86.5). */
#define SOFTMAX_EXP_FLUSH (-86.5f)

/* Forced inline, as in exp_poly_core.h: a vector passed out of line goes through memory. */
#define SM_INLINE static inline __attribute__((always_inline))

#define SM_W EXP_POLY_W
typedef exp_vf sm_vf;
typedef exp_vi sm_vi;

SM_INLINE sm_vf sm_splat(float a) { return (sm_vf){0} + a; }

/* Unaligned whole-vector load and store (memcpy compiles to one instruction). */
SM_INLINE sm_vf sm_load(const float *p)
{
    sm_vf v;
    memcpy(&v, p, sizeof v);
    return v;
}

SM_INLINE void sm_store(float *p, sm_vf v) { memcpy(p, &v, sizeof v); }

/* A non-temporal store of a whole vector; p is 64-byte aligned. */
SM_INLINE void sm_store_nt(float *p, sm_vf v)
{
#if SM_W == 16 && defined(__AVX512F__)
    _mm512_stream_ps(p, (__m512)v);
#elif SM_W == 16 && defined(__AVX__)
    __m256 lo, hi;
    memcpy(&lo, &v, sizeof lo);
    memcpy(&hi, (const char *)&v + sizeof lo, sizeof hi);
    _mm256_stream_ps(p, lo);
    _mm256_stream_ps(p + 8, hi);
#elif SM_W == 8 && defined(__AVX__)
    _mm256_stream_ps(p, (__m256)v);
#elif SM_W == 4 && defined(__SSE2__)
    _mm_stream_ps(p, (__m128)v);
#else
    sm_store(p, v);
#endif
}

SM_INLINE void sm_sfence(void)
{
#if defined(__SSE2__)
    _mm_sfence();
#endif
}

/* The first n < W elements of p, the other lanes pad. */
SM_INLINE sm_vf sm_load_tail(const float *p, long n, float pad)
{
    float t[SM_W];
    for (int i = 0; i < SM_W; i++)
        t[i] = i < n ? p[i] : pad;
    return sm_load(t);
}

SM_INLINE void sm_store_tail(float *p, sm_vf v, long n)
{
    float t[SM_W];
    sm_store(t, v);
    memcpy(p, t, (size_t)n * sizeof(float));
}

/* v with lane i taken from lane i ^ h (h a power of two below W); constant masks, so
 * each is one in-register shuffle. */
#define SM_X(i, h) ((i) ^ (h))
#if SM_W == 16
#define SM_XMASK(h) (sm_vi){SM_X(0, h), SM_X(1, h), SM_X(2, h), SM_X(3, h), SM_X(4, h), SM_X(5, h), \
                            SM_X(6, h), SM_X(7, h), SM_X(8, h), SM_X(9, h), SM_X(10, h), SM_X(11, h), \
                            SM_X(12, h), SM_X(13, h), SM_X(14, h), SM_X(15, h)}
#elif SM_W == 8
#define SM_XMASK(h) (sm_vi){SM_X(0, h), SM_X(1, h), SM_X(2, h), SM_X(3, h), SM_X(4, h), SM_X(5, h), \
                            SM_X(6, h), SM_X(7, h)}
#else
#define SM_XMASK(h) (sm_vi){SM_X(0, h), SM_X(1, h), SM_X(2, h), SM_X(3, h)}
#endif
#define sm_xor_lanes(v, h) __builtin_shuffle((v), SM_XMASK(h))

/* Horizontal max and sum by halving: log2(W) shuffles and operations in registers.  A
 * loop over the lanes compiles to a store and W-1 dependent scalar operations (~30
 * cycles of latency), and a row takes several reductions: on 64-column rows they were
 * most of the cost per row.  Inputs hold no NaN for sm_hmax (sm_max skips them); the
 * sums' order is fixed by W, the same in every build of one width. */
SM_INLINE float sm_hmax(sm_vf v)
{
#if SM_W == 16
    v = exp_poly_vmax(v, sm_xor_lanes(v, 8));
#endif
#if SM_W >= 8
    v = exp_poly_vmax(v, sm_xor_lanes(v, 4));
#endif
    v = exp_poly_vmax(v, sm_xor_lanes(v, 2));
    v = exp_poly_vmax(v, sm_xor_lanes(v, 1));
    return v[0];
}

SM_INLINE float sm_hsum(sm_vf v)
{
#if SM_W == 16
    v = v + sm_xor_lanes(v, 8);
#endif
#if SM_W >= 8
    v = v + sm_xor_lanes(v, 4);
#endif
    v = v + sm_xor_lanes(v, 2);
    v = v + sm_xor_lanes(v, 1);
    return v[0];
}

/* e^x for softmax's d = x - max (|x| <= 86.5 or -inf/NaN), in two short chains: the
 * exp is bound by its dependency chain more than by ports, so what counts is latency.
 *  - Range reduction x = k ln2 + r with ONE constant: r = x - k ln2f, one FMA (exact
 *    product, one rounding; without FMA, exp_poly_reduce's exact split).  ln2f is
 *    1.9e-9 off ln 2, so r is off by at most 126 * 1.9e-9 = 2.4e-7: a relative error
 *    of 2.4e-7 in e^x, against softmax's 1e-5 budget (softmax.h).  exp_poly_reduce's
 *    two-constant Cody-Waite split, which the 1-ULP exp needs, costs one more FMA in
 *    the chain.
 *  - e^r = 1 + r + r^2 (C2 + C3 r + C4 r^2 + C5 r^3) by Estrin's scheme: (C2 + C3 r)
 *    and (C4 + C5 r) and r^2 at once, then two FMAs: 3 FMA latencies instead of
 *    Horner's 5, one operation more.
 * Coefficients fitted for this project: minimax of the relative error by
 * Lawson-weighted least squares on 400 Chebyshev nodes, 1.05e-7 in exact arithmetic.
 * With FMA the error over every float in [-87, 0] is at most 3.9e-7, near -86.4 where
 * k ln2f is furthest off.
 * *y is x*log2e + SHIFT, whose low bits hold k (exp_poly_scale_fast). */
#define SM_EXP_C2 0x1.fffdfcp-2f
#define SM_EXP_C3 0x1.5557aep-3f
#define SM_EXP_C4 0x1.5729f0p-5f
#define SM_EXP_C5 0x1.106288p-7f
#define SM_EXP_LN2 0x1.62e430p-1f   /* ln 2 rounded to float */
SM_INLINE sm_vf sm_exp_poly5(sm_vf x, sm_vf *y)
{
#if defined(__FMA__)
    sm_vf t = x * EXP_POLY_LOG2E + EXP_POLY_SHIFT;   /* FMA: k + SHIFT */
    sm_vf r = x - (t - EXP_POLY_SHIFT) * SM_EXP_LN2;   /* k exact; FMA */
    *y = t;
#else   /* no FMA: k ln2f would be rounded (up to 4e-6), so the exact two-constant split */
    sm_vf kf, r = exp_poly_reduce(x, y, &kf);
#endif
    sm_vf r2 = r * r;
    sm_vf lo = r * SM_EXP_C3 + SM_EXP_C2;
    sm_vf hi = r * SM_EXP_C5 + SM_EXP_C4;
    return (hi * r2 + lo) * r2 + (r + 1.0f);
}

/* e^d for d <= 0; with flush, 0 where d < SOFTMAX_EXP_FLUSH (and for -inf).  Rows whose
 * range (max - min) is at most -SOFTMAX_EXP_FLUSH need no flush: two operations saved
 * per vector (flush is a constant after inlining). */
SM_INLINE sm_vf sm_exp_le0(sm_vf d, int flush)
{
    sm_vf t;
    sm_vf p = sm_exp_poly5(d, &t);
    sm_vf e = exp_poly_scale_fast(p, t);
    if (!flush)
        return e;
    sm_vi under = d < sm_splat(SOFTMAX_EXP_FLUSH);
    return (sm_vf)((sm_vi)e & ~under);
}

/* ---- the passes over x[0..n) ---- */
#define SM_BLOCK (64 * SM_W)

/* max of x (NaN skipped; -inf if none), *mn = min of x (NaN skipped; +inf if none),
 * and *nan = x holds a NaN (or +inf and -inf).  The NaN test sums x * 2^-100 per lane
 * (one FMA per vector): scaled so that no finite input can overflow the sum, it is NaN
 * exactly when x holds a NaN or both infinities. */
SM_INLINE float sm_max(const float *x, long n, float *mn, int *nan)
{
    const sm_vf ninf = sm_splat(-INFINITY), tiny = sm_splat(0x1p-100f);
    sm_vf m0 = ninf, m1 = ninf, l0 = -ninf, l1 = -ninf;
    sm_vf s0 = {0}, s1 = {0};
    long i = 0;
    for (; i + 2 * SM_W <= n; i += 2 * SM_W) {
        sm_vf a = sm_load(x + i), b = sm_load(x + i + SM_W);
        m0 = exp_poly_vmax(a, m0);
        m1 = exp_poly_vmax(b, m1);
        l0 = exp_poly_vmin(a, l0);
        l1 = exp_poly_vmin(b, l1);
        s0 = a * tiny + s0;
        s1 = b * tiny + s1;
    }
    if (i + SM_W <= n) {
        sm_vf a = sm_load(x + i);
        m0 = exp_poly_vmax(a, m0);
        l0 = exp_poly_vmin(a, l0);
        s0 = a * tiny + s0;
        i += SM_W;
    }
    if (i < n) {   /* padded with -inf for the max, +inf for the min */
        sm_vf a = sm_load_tail(x + i, n - i, -INFINITY);
        m0 = exp_poly_vmax(a, m0);
        s0 = a * tiny + s0;
        l0 = exp_poly_vmin(sm_load_tail(x + i, n - i, INFINITY), l0);
    }
    *nan = isnan(sm_hsum(s0 + s1));
    *mn = -sm_hmax(-exp_poly_vmin(l0, l1));
    return sm_hmax(exp_poly_vmax(m0, m1));
}

/* sum of e^(x - m) in float; with y != NULL also y = e^(x - m).  n <= SM_BLOCK.
 * With yp != NULL, also yp *= inv: the previous row's last pass, software-pipelined into
 * this exp loop (exp is bound by its dependency chain, not by ports, so a load, a
 * multiply and a store per vector ride along almost free). */
SM_INLINE float sm_expsum(const float *x, float *y, long n, float m, int flush, float *yp,
                          float inv, int nt)
{
    const sm_vf vm = sm_splat(m), vi = sm_splat(inv);
    sm_vf s = {0};
    long i = 0;
    for (; i + SM_W <= n; i += SM_W) {
        sm_vf e = sm_exp_le0(sm_load(x + i) - vm, flush);
        if (y && nt)
            sm_store_nt(y + i, e);
        else if (y)
            sm_store(y + i, e);
        if (yp)
            sm_store(yp + i, sm_load(yp + i) * vi);
        s += e;
    }
    if (i < n) {
        sm_vf e = sm_exp_le0(sm_load_tail(x + i, n - i, -INFINITY) - vm, 1);
        if (y)
            sm_store_tail(y + i, e, n - i);
        for (long j = i; yp && j < n; j++)
            yp[j] *= inv;
        s += e;
    }
    return sm_hsum(s);
}

/* The optimistic STORE pass: y = e^(x - m) and their sum, without the flush, while
 * taking the max, min and NaN test of x from the same loads into st (three operations
 * per vector instead of a separate max pass; reduced once per row, by the caller).  The
 * caller checks afterwards that x stayed within [m - 86.5, m + SM_OPT_ABOVE] and held no
 * NaN; if not, these exps are void and the row is redone by the checked path.
 * yp/inv: as in sm_expsum. */
#define SM_OPT_ABOVE 64.0f   /* e^64 = 6e27: no sum of a row can overflow a float */
#define SM_PROBE (8 * SM_W)  /* elements whose max is the optimistic reference */
#define SM_SHORT SM_PROBE    /* rows this short take sm_rows_short */

typedef struct {
    sm_vf max, min, nan;   /* per lane: max, min, sum of x * 2^-100 (sm_max) */
} sm_stats;

/* One vector of the optimistic pass: y = e^(x - m) (non-temporal if nt), the pending
 * row's scale (yp), the sum, and the stats of x (the NaN test only if nantest). */
SM_INLINE void sm_opt_step(const float *x, float *y, long i, sm_vf vm, sm_vf *s, sm_stats *st,
                           float *yp, sm_vf vi, int nt, int nantest)
{
    sm_vf a = sm_load(x + i);
    sm_vf e = sm_exp_le0(a - vm, 0);
    if (nt)
        sm_store_nt(y + i, e);
    else
        sm_store(y + i, e);
    if (yp)
        sm_store(yp + i, sm_load(yp + i) * vi);
    *s += e;
    st->max = exp_poly_vmax(a, st->max);
    st->min = exp_poly_vmin(a, st->min);
    if (nantest)
        st->nan = a * sm_splat(0x1p-100f) + st->nan;
}

/* The optimistic pass over x[0..n), n <= SM_BLOCK: returns the per-lane sum.  nantest
 * (a constant): keep the NaN test; short rows find NaN from their sums instead.
 * unroll (a constant): n is SM_SHORT and the loop is unrolled completely, which pays
 * for groups of short rows (sm_rows_short) but not for a lone one (sm_row_short_lone). */
SM_INLINE sm_vf sm_expsum_opt_v(const float *x, float *y, long n, float m, float *yp, float inv,
                                sm_stats *st, int nt, int nantest, int unroll)
{
    const sm_vf vm = sm_splat(m), vi = sm_splat(inv);
    sm_vf s = {0};
    sm_stats acc = *st;   /* a local copy, kept in registers */
    long i = 0;
    if (unroll) {
#pragma GCC unroll 16
        for (i = 0; i < SM_SHORT; i += SM_W)
            sm_opt_step(x, y, i, vm, &s, &acc, yp, vi, nt, nantest);
    } else
        for (; i + SM_W <= n; i += SM_W)
            sm_opt_step(x, y, i, vm, &s, &acc, yp, vi, nt, nantest);
    if (i < n) {
        sm_vf a = sm_load_tail(x + i, n - i, -INFINITY);
        sm_vf e = sm_exp_le0(a - vm, 1);
        sm_store_tail(y + i, e, n - i);
        for (long j = i; yp && j < n; j++)
            yp[j] *= inv;
        s += e;
        acc.max = exp_poly_vmax(a, acc.max);
        if (nantest)
            acc.nan = a * sm_splat(0x1p-100f) + acc.nan;
        acc.min = exp_poly_vmin(sm_load_tail(x + i, n - i, INFINITY), acc.min);
    }
    *st = acc;
    return s;
}

SM_INLINE float sm_expsum_opt(const float *x, float *y, long n, float m, float *yp, float inv,
                              sm_stats *st, int nt)
{
    return sm_hsum(sm_expsum_opt_v(x, y, n, m, yp, inv, st, nt, 1, 0));
}

/* y = e^(x - m) * scale; stream: non-temporal stores on the 64-byte aligned body. */
SM_INLINE void sm_expscale(const float *x, float *y, long n, float m, float scale, int flush,
                           int stream)
{
    const sm_vf vm = sm_splat(m), vs = sm_splat(scale);
    long i = 0;
    if (stream) {   /* the head up to a 64-byte boundary of y, then aligned NT stores */
        long head = (long)(((64 - ((uintptr_t)y & 63)) & 63) / sizeof(float));
        head = head < n ? head : n;
        for (; i < head; i += SM_W) {
            long k = head - i < SM_W ? head - i : SM_W;
            sm_store_tail(y + i, sm_exp_le0(sm_load_tail(x + i, k, -INFINITY) - vm, 1) * vs, k);
        }
        i = head;
        for (; i + SM_W <= n; i += SM_W)
            sm_store_nt(y + i, sm_exp_le0(sm_load(x + i) - vm, flush) * vs);
    }
    for (; i + SM_W <= n; i += SM_W)
        sm_store(y + i, sm_exp_le0(sm_load(x + i) - vm, flush) * vs);
    if (i < n)
        sm_store_tail(y + i, sm_exp_le0(sm_load_tail(x + i, n - i, -INFINITY) - vm, 1) * vs, n - i);
}

SM_INLINE void sm_scale(float *y, long n, float scale)
{
    const sm_vf vs = sm_splat(scale);
    long i = 0;
    for (; i + SM_W <= n; i += SM_W)
        sm_store(y + i, sm_load(y + i) * vs);
    for (; i < n; i++)
        y[i] *= scale;
}

SM_INLINE void sm_fill(float *y, long n, float v)
{
    for (long i = 0; i < n; i++)
        y[i] = v;
}

/* ---- one row ---- */

/* The row's normalizer: max m and sum s of e^(x - m) (NaN s for a special row), and
 * whether exp must flush: some x - m may fall below SOFTMAX_EXP_FLUSH.  (mn - m is
 * formed in double; float rounding of any x - m >= mn - m is monotone, so no x - m
 * then falls below the representable -86.5.) */
typedef struct {
    float m;
    double s;
    int flush;
} sm_norm;

SM_INLINE int sm_special(int nan, float m) { return nan || !(m > -INFINITY && m < INFINITY); }
SM_INLINE int sm_needs_flush(float mn, float m) { return !((double)mn - m >= SOFTMAX_EXP_FLUSH); }

/* The optimistic pass's check, after the fact: the exps against ref are void where x
 * held a NaN, rose above ref + SM_OPT_ABOVE (max mx) or fell low enough to need the
 * flush (min mn). */
SM_INLINE int sm_opt_void(int nan, float mx, float mn, float ref)
{
    return nan || !(mx - ref <= SM_OPT_ABOVE) || sm_needs_flush(mn, ref);
}

/* ONLINE pass 1: the running max per block, the sum rescaled when it grows. */
SM_INLINE sm_norm sm_row_online(const float *x, long n)
{
    sm_norm r = {-INFINITY, 0, 0};
    float rowmin = INFINITY;
    for (long b = 0; b < n; b += SM_BLOCK) {
        long len = n - b < SM_BLOCK ? n - b : SM_BLOCK;
        int nan;
        float mn, mb = sm_max(x + b, len, &mn, &nan);
        if (nan || mb == INFINITY) {
            r.s = NAN;
            return r;
        }
        rowmin = mn < rowmin ? mn : rowmin;
        if (mb > r.m) {
            r.s *= exp((double)r.m - mb);   /* exp(-inf) = 0 on the first finite block */
            r.m = mb;
        }
        if (r.m == -INFINITY)   /* all -inf so far: contributes nothing yet */
            continue;
        r.s += sm_needs_flush(mn, r.m) ? sm_expsum(x + b, NULL, len, r.m, 1, NULL, 1, 0)
                                       : sm_expsum(x + b, NULL, len, r.m, 0, NULL, 1, 0);
    }
    if (r.m == -INFINITY)
        r.s = NAN;
    r.flush = sm_needs_flush(rowmin, r.m);   /* for pass 2, against the final max */
    return r;
}

SM_INLINE softmax_path sm_pick(softmax_path p, int rows, int cols)
{
    if (p != SOFTMAX_PATH_AUTO)
        return p;
    if (cols <= SOFTMAX_STORE_MAX_COLS)
        return SOFTMAX_PATH_STORE;
    /* rs_llc_bytes() may ask the CPU (cpuid traps in a VM): once per process. */
    static long llc;
    long l = __atomic_load_n(&llc, __ATOMIC_RELAXED);
    if (l == 0) {
        l = rs_llc_bytes();
        __atomic_store_n(&llc, l, __ATOMIC_RELAXED);
    }
    return (double)rows * cols * SOFTMAX_BYTES_PER_ELEM <= 0.5 * l ? SOFTMAX_PATH_STORE
                                                                   : SOFTMAX_PATH_STORE_NT;
}

/* ---- rows: softmax (targets == NULL) or cross-entropy (loss and dlogits) ---- */

/* A row whose exps are stored but not yet scaled (STORE), and its target. */
typedef struct {
    float *y;
    float inv;
    int t;
} sm_pending;

/* The pending row is scaled: apply its onehot (dlogits = p - onehot). */
SM_INLINE void sm_finish(sm_pending *p)
{
    if (p->y && p->t >= 0)
        p->y[p->t] -= 1.0f;
    p->y = NULL;
}

/* A row that needs no exp: an ignored row (zeros, loss 0) or a special one (NaN). */
SM_INLINE int sm_row_trivial(float *y, long n, const int *targets, float *loss, long r,
                             int special)
{
    if (targets && targets[r] < 0) {
        memset(y, 0, (size_t)n * sizeof(float));
        loss[r] = 0;
        return 1;
    }
    if (special) {
        sm_fill(y, n, NAN);
        if (loss)
            loss[r] = NAN;
        return 1;
    }
    return 0;
}

/* loss = m + log(s) - x[t], +inf for a masked target.  logf of s rounded to float:
 * s >= 1 (the row's largest term is e^0 or more), so that adds ~1e-7 absolute to a
 * float loss, and logf is cheaper than log, which counts on short rows, where a row's
 * log is a large part of xent's time. */
SM_INLINE float sm_loss(const float *x, float m, double s, int t)
{
    return (float)((double)m + (double)logf((float)s) - (double)x[t]);
}

/* The same losses W rows at a time, for the STORE path where rows are many and short:
 * logf was 0.14 of xent's 0.93 ns/element on 64-column rows.  log s = e ln2 + log mm
 * with s = 2^e mm, mm in [sqrt(1/2), sqrt(2)): log mm = f + f^2 P(f), f = mm - 1, P of
 * degree 6 fitted for this project (minimax of the absolute error by Lawson-weighted
 * least squares on 600 Chebyshev nodes: 3.7e-8); e ln2 and the rest are added in
 * double, as sm_loss does.  s: positive normal floats (s >= 1, see above). */
#define SM_LOG_P0 -0x1.0000c4p-1f
#define SM_LOG_P1 0x1.555a64p-2f
#define SM_LOG_P2 -0x1.ff35f6p-3f
#define SM_LOG_P3 0x1.974fdcp-3f
#define SM_LOG_P4 -0x1.62d62ep-3f
#define SM_LOG_P5 0x1.4e8dc4p-3f
#define SM_LOG_P6 -0x1.9b0402p-4f
SM_INLINE sm_vf sm_log_mant(sm_vf s, sm_vi *e)
{
    sm_vi b = (sm_vi)s;
    sm_vi ex = ((b >> 23) & 0xff) - 127;
    sm_vf mm = (sm_vf)((b & 0x7fffff) | 0x3f800000);   /* [1, 2) */
    sm_vi big = mm > sm_splat(0x1.6a09e6p+0f);          /* sqrt(2): lanes -1 where true */
    mm = (sm_vf)(((sm_vi)mm & ~big) | ((sm_vi)(mm * 0.5f) & big));
    *e = ex - big;
    sm_vf f = mm - 1.0f;
    sm_vf p = f * SM_LOG_P6 + SM_LOG_P5;
    p = p * f + SM_LOG_P4;
    p = p * f + SM_LOG_P3;
    p = p * f + SM_LOG_P2;
    p = p * f + SM_LOG_P1;
    p = p * f + SM_LOG_P0;
    return f * f * p + f;
}

/* Rows whose loss waits for its log: m - x[t] and s of up to W rows. */
typedef struct {
    int k;
    long row[SM_W];
    double part[SM_W];
    float s[SM_W];
} sm_losses;

SM_INLINE void sm_losses_flush(sm_losses *L, float *loss)
{
    if (L->k == 0)
        return;
    if (L->k == 1) {   /* a lone row (a call of one row): logf, no vector through memory */
        loss[L->row[0]] = (float)(L->part[0] + (double)logf(L->s[0]));
        L->k = 0;
        return;
    }
    float sv[SM_W];
    for (int i = 0; i < SM_W; i++)
        sv[i] = i < L->k ? L->s[i] : 1.0f;
    sm_vi e;
    sm_vf lm = sm_log_mant(sm_load(sv), &e);
    for (int i = 0; i < L->k; i++)
        loss[L->row[i]] = (float)(L->part[i] + (double)e[i] * M_LN2 + (double)lm[i]);
    L->k = 0;
}

SM_INLINE void sm_losses_add(sm_losses *L, float *loss, long r, const float *x, float m, double s,
                             int t)
{
    L->row[L->k] = r;
    L->part[L->k] = (double)m - (double)x[t];   /* +inf for a masked target */
    L->s[L->k] = (float)s;
    if (++L->k == SM_W)
        sm_losses_flush(L, loss);
}

/* STORE, checked: exps against the row's max m (min mn from the same pass), flushed if
 * the range needs it; returns the sum.  yp/inv: the pending row's scale, pipelined
 * (NULL: none). */
SM_INLINE double sm_row_store_checked(const float *x, float *y, long n, float m, float mn,
                                      float *yp, float inv, int nt)
{
    int flush = sm_needs_flush(mn, m);
    double s = 0;
    for (long b = 0; b < n; b += SM_BLOCK) {
        long len = n - b < SM_BLOCK ? n - b : SM_BLOCK;
        float *p = yp ? yp + b : NULL;
        if (nt)   /* beyond the LLC: no pipelined scale (the row is its own pass) */
            s += flush ? sm_expsum(x + b, y + b, len, m, 1, NULL, 1, 1) : sm_expsum(x + b, y + b, len, m, 0, NULL, 1, 1);
        else if (p)
            s += flush ? sm_expsum(x + b, y + b, len, m, 1, p, inv, 0) : sm_expsum(x + b, y + b, len, m, 0, p, inv, 0);
        else
            s += flush ? sm_expsum(x + b, y + b, len, m, 1, NULL, 1, 0) : sm_expsum(x + b, y + b, len, m, 0, NULL, 1, 0);
    }
    return s;
}

/* STORE, optimistic (typical logits), for rows longer than SM_PROBE: exps relative to
 * m0, the max of the first SM_PROBE elements (8 vectors: a sample, checked by sm_max
 * to span less than 86.5), rather than the row's
 * max — softmax is the same for any reference, e^(x - m0) / sum e^(x - m0), as long as
 * nothing overflows — with the row's max, min and NaN test taken in the same loop to
 * prove that (checked once per row: a row that fails wastes one pass, and rows whose
 * first block already fails never start).  The final scale is 1/sum and the loss
 * m0 + log(sum) - x[t].  Returns 0 with *sum, or 1 where x left [m0 - 86.5, m0 + 64] or
 * held a NaN: then the pending row is scaled and nothing of this row is valid. */
SM_INLINE int sm_row_store_opt(const float *x, float *y, long n, float m0, float *yp, float inv,
                               int nt, double *sum)
{
    sm_stats st = {sm_splat(-INFINITY), sm_splat(INFINITY), {0}};
    double s = 0;
    for (long b = 0; b < n; b += SM_BLOCK) {
        long len = n - b < SM_BLOCK ? n - b : SM_BLOCK;
        if (nt)
            s += sm_expsum_opt(x + b, y + b, len, m0, NULL, 1, &st, 1);
        else if (yp)
            s += sm_expsum_opt(x + b, y + b, len, m0, yp + b, inv, &st, 0);
        else
            s += sm_expsum_opt(x + b, y + b, len, m0, NULL, 1, &st, 0);
    }
    float mx = sm_hmax(st.max), mn = -sm_hmax(-st.min);
    if (sm_opt_void(isnan(sm_hsum(st.nan)), mx, mn, m0))
        return 1;   /* the pending row was scaled all the same */
    *sum = s;
    return 0;
}

/* STORE over rows.  A row of at most SM_PROBE elements: its max pass, then exps
 * (checked).  Longer rows take the max of their first SM_PROBE elements only and try
 * the optimistic pass (no max pass over the row); where it fails, the row's max pass
 * and the checked exps.  Row r-1's scale
 * pass runs inside row r's exp loop (sm_expsum*), so only the last row pays a separate
 * one. */
SM_INLINE void sm_rows_store(const float *x, float *y, long rows, long n, const int *targets,
                             float *loss, int nt_call)
{
    sm_pending pend = {NULL, 1, -1};
    sm_losses losses;   /* not zeroed whole: that slowed lone short xent rows; lane 0
                           for GCC's flow analysis */
    losses.k = 0;
    losses.part[0] = 0;
    losses.s[0] = 1;
    for (long r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * n;
        float *yr = y + (size_t)r * n;
        /* NT stores of the exps on 64-byte aligned rows (block starts are then aligned);
         * the row is then scaled on its own, after an sfence, as the last row is. */
        int nt = nt_call && ((uintptr_t)yr & 63) == 0;
        if (nt && pend.y) {
            sm_scale(pend.y, n, pend.inv);
            sm_finish(&pend);
        }
        if (targets && targets[r] < 0) {
            sm_row_trivial(yr, n, targets, loss, r, 0);
            continue;
        }
        int nan;
        float mn, m = sm_max(xr, n < SM_PROBE ? n : SM_PROBE, &mn, &nan);
        double s;
        if (n > SM_PROBE && !sm_special(nan, m) && !sm_needs_flush(mn, m)) {
            if (sm_row_store_opt(xr, yr, n, m, pend.y, pend.inv, nt, &s) == 0)
                goto done;
            sm_finish(&pend);   /* failed: the pending row is scaled by now */
            m = sm_max(xr, n, &mn, &nan);
        } else if (n > SM_PROBE)
            m = sm_max(xr, n, &mn, &nan);
        if (sm_special(nan, m)) {
            if (pend.y)
                sm_scale(pend.y, n, pend.inv);
            sm_finish(&pend);
            sm_row_trivial(yr, n, targets, loss, r, 1);
            continue;
        }
        s = sm_row_store_checked(xr, yr, n, m, mn, pend.y, pend.inv, nt);
    done:
        sm_finish(&pend);
        if (targets)
            sm_losses_add(&losses, loss, r, xr, m, s, targets[r]);
        pend = (sm_pending){yr, (float)(1.0 / s), targets ? targets[r] : -1};
        if (nt) {   /* the exps went around the cache: fence, then scale (reads them back) */
            sm_sfence();
            sm_scale(pend.y, n, pend.inv);
            sm_finish(&pend);
        }
    }
    if (pend.y) {
        sm_scale(pend.y, n, pend.inv);
        sm_finish(&pend);
    }
    if (targets)
        sm_losses_flush(&losses, loss);
}

/* ---- short rows (at most SM_SHORT elements), W rows at a time ----
 * A 64-column row is 8 vectors: per row, a max pass, the reductions (max, min, sum:
 * log2(W) dependent shuffles and operations each), the reciprocal and the branches
 * cost about as much as the row's exps, and one row's chain leaves the core idle.  So
 * short rows skip the max pass (the optimistic reference, checked afterwards, as long
 * rows do) and go W rows together, pass by pass: their exps, with max and min; one
 * transposing reduction per quantity for all W rows (lane g = row g: ~3 operations a
 * row instead of ~18) and one vector divide.  Their scale rides in the next group's
 * exp loops (row k's in row k's, as in STORE), and xent's onehot goes in before the
 * scale: (e_t - s)/s = p_t - 1.  Each pass has W independent rows for out-of-order
 * execution to overlap. */

/* Lane masks of one level of the transposing reduction with half-width h: pairs a, b
 * become lo = (a's lane i where bit h of i is clear, else b's lane i - h) and hi = (a's
 * lane i + h, else b's lane i), so op(lo, hi) holds a reduced over lanes {i, i + h} in
 * the lanes with bit h clear and b likewise in the others. */
#define SM_TRANSPOSE_LO_LANE(i, h) (((i) & (h)) ? SM_W + (i) - (h) : (i))
#define SM_TRANSPOSE_HI_LANE(i, h) (((i) & (h)) ? SM_W + (i) : (i) + (h))
/* The shuffle mask of lanes LANE(i, h) for every lane i. */
#if SM_W == 16
#define SM_TRANSPOSE_MASK(LANE, h)                                                         \
    (sm_vi){LANE(0, h),  LANE(1, h),  LANE(2, h),  LANE(3, h),  LANE(4, h),  LANE(5, h),    \
            LANE(6, h),  LANE(7, h),  LANE(8, h),  LANE(9, h),  LANE(10, h), LANE(11, h),   \
            LANE(12, h), LANE(13, h), LANE(14, h), LANE(15, h)}
#elif SM_W == 8
#define SM_TRANSPOSE_MASK(LANE, h)                                                         \
    (sm_vi){LANE(0, h), LANE(1, h), LANE(2, h), LANE(3, h),                                 \
            LANE(4, h), LANE(5, h), LANE(6, h), LANE(7, h)}
#else
#define SM_TRANSPOSE_MASK(LANE, h) (sm_vi){LANE(0, h), LANE(1, h), LANE(2, h), LANE(3, h)}
#endif
/* v[j] = op over lanes {i, i + h} of v[j] and v[j + n], for j < n (a level). */
#define SM_TRANSPOSE_LEVEL(v, n, h, OP)                                                    \
    _Pragma("GCC unroll 16") for (int j = 0; j < (n); j++)                                 \
        v[j] = OP(__builtin_shuffle(v[j], v[j + (n)], SM_TRANSPOSE_MASK(SM_TRANSPOSE_LO_LANE, h)), \
                  __builtin_shuffle(v[j], v[j + (n)], SM_TRANSPOSE_MASK(SM_TRANSPOSE_HI_LANE, h)))
#define SM_ADD(a, b) ((a) + (b))
/* The levels from h = W/2 down to 1: then lane g of v[0] is OP over the lanes of the
 * input v[g].  v is overwritten. */
#if SM_W == 16
#define SM_TRANSPOSE_REDUCE(v, OP)                                                         \
    do {                                                                                   \
        SM_TRANSPOSE_LEVEL(v, 8, 8, OP);                                                   \
        SM_TRANSPOSE_LEVEL(v, 4, 4, OP);                                                   \
        SM_TRANSPOSE_LEVEL(v, 2, 2, OP);                                                   \
        SM_TRANSPOSE_LEVEL(v, 1, 1, OP);                                                   \
    } while (0)
#elif SM_W == 8
#define SM_TRANSPOSE_REDUCE(v, OP)                                                         \
    do {                                                                                   \
        SM_TRANSPOSE_LEVEL(v, 4, 4, OP);                                                   \
        SM_TRANSPOSE_LEVEL(v, 2, 2, OP);                                                   \
        SM_TRANSPOSE_LEVEL(v, 1, 1, OP);                                                   \
    } while (0)
#else
#define SM_TRANSPOSE_REDUCE(v, OP)                                                         \
    do {                                                                                   \
        SM_TRANSPOSE_LEVEL(v, 2, 2, OP);                                                   \
        SM_TRANSPOSE_LEVEL(v, 1, 1, OP);                                                   \
    } while (0)
#endif
SM_INLINE sm_vf sm_transpose_max(sm_vf *v)
{
    SM_TRANSPOSE_REDUCE(v, exp_poly_vmax);
    return v[0];
}

SM_INLINE sm_vf sm_transpose_sum(sm_vf *v)
{
    SM_TRANSPOSE_REDUCE(v, SM_ADD);
    return v[0];
}

/* One row the optimistic pass could not take, alone: the row-by-row path's max pass,
 * checked exps, scale, onehot and loss.  Out of line: a rare path, and inlined into the
 * group it slowed xent on short rows. */
static __attribute__((noinline)) void sm_row_alone(const float *x, float *y, long n, const int *targets, float *loss,
                            long r)
{
    sm_rows_store(x, y, 1, n, targets ? targets + r : NULL, loss ? loss + r : NULL, 0);
}

/* The previous group's rows whose scale waits: row r0 + k if on[k] (onehots already in). */
typedef struct {
    long r0;
    int on[SM_W];
    float inv[SM_W];
} sm_short_pend;

/* Rows r0 .. r0 + g - 1 (g <= W) of at most SM_SHORT elements, optimistically: each
 * row's exps are taken against its first element m0 — softmax does not depend on the
 * reference as long as nothing overflows or needs the flush — with its max and min
 * gathered in the same loop, and checked afterwards, all W rows at once: x - m0 within
 * [-86.5, 64] and a sum that is not NaN (a NaN x makes it NaN; max and min skip NaN).
 * A row that fails (a masked or huge-range row, a NaN) is redone alone by the checked
 * path.  No max pass: it would hold every row's exps back until W rows' maxima were
 * reduced.
 * xent's losses come as one vector, m0 - x[t] + log s, in float: m0 - x[t] and
 * log s are added after one rounding each, a few ULP of the loss (softmax.h allows
 * 1e-5 relative); row by row in double, as sm_losses does, they would cost a large part
 * of the softmax on short rows. */
SM_INLINE void sm_rows_short_group(const float *x, float *y, long r0, int g, long n,
                                   const int *targets, float *loss, sm_short_pend *pend)
{
    sm_vf mx[SM_W], mn[SM_W], sv[SM_W];
    float m0[SM_W], xt[SM_W];
    int skip[SM_W];   /* no exps taken: beyond g, an ignored row, or a first element of
                         -inf, +inf or NaN (redone alone) */
    for (int k = 0; k < SM_W; k++) {
        long r = r0 + k;
        const float *xr = x + (size_t)r * n;
        float *yp = pend->on[k] ? y + (size_t)(pend->r0 + k) * n : NULL;
        m0[k] = k < g ? xr[0] : 0;
        skip[k] = k >= g || (targets && targets[r] < 0) || !(fabsf(m0[k]) <= FLT_MAX);
        if (skip[k]) {
            if (yp)
                sm_scale(yp, n, pend->inv[k]);
            sv[k] = (sm_vf){1.0f};
            mx[k] = mn[k] = sm_splat(m0[k] = 0);
            continue;
        }
        sm_stats st = {sm_splat(-INFINITY), sm_splat(INFINITY), {0}};
        if (yp)
            sv[k] = sm_expsum_opt_v(xr, y + (size_t)r * n, n, m0[k], yp, pend->inv[k], &st, 0, 0,
                                    n == SM_SHORT);
        else
            sv[k] = sm_expsum_opt_v(xr, y + (size_t)r * n, n, m0[k], NULL, 1, &st, 0, 0,
                                    n == SM_SHORT);
        mx[k] = st.max;
        mn[k] = -st.min;
    }
    sm_vf M = sm_transpose_max(mx), MN = -sm_transpose_max(mn), S = sm_transpose_sum(sv), inv = 1.0f / S;
    pend->r0 = r0;
    for (int k = 0; k < SM_W; k++) {
        long r = r0 + k;
        const float *xr = x + (size_t)r * n;
        float *yr = y + (size_t)r * n;
        xt[k] = 0;
        pend->on[k] = 0;
        pend->inv[k] = inv[k];
        if (k >= g)
            continue;
        if (targets && targets[r] < 0) {
            sm_row_trivial(yr, n, targets, loss, r, 0);
            continue;
        }
        if (skip[k] || sm_opt_void(isnan(S[k]), M[k], MN[k], m0[k])) {
            skip[k] = 1;
            sm_row_alone(xr, yr, n, targets, loss, r);
            continue;
        }
        pend->on[k] = 1;
        if (targets) {   /* the onehot before the scale: (e_t - s)/s = p_t - 1 */
            yr[targets[r]] -= S[k];
            xt[k] = xr[targets[r]];
        }
    }
    if (targets) {
        sm_vi e;
        sm_vf lm = sm_log_mant(S, &e);
        sm_vf lv = (sm_load(m0) - sm_load(xt)) + (__builtin_convertvector(e, sm_vf) * (float)M_LN2 + lm);
        for (int k = 0; k < g; k++)
            if (!skip[k])
                loss[r0 + k] = lv[k];
    }
}

/* A call of one short row: the same optimistic pass, reduced by halving (the W-row
 * transpose would be mostly padding), and logf for the loss (shorter latency than the
 * vector log, and a lone row's time is its dependency chain). */
SM_INLINE void sm_row_short_lone(const float *x, float *y, long n, const int *targets,
                                 float *loss)
{
    float m0 = x[0];
    if ((targets && targets[0] < 0) || !(fabsf(m0) <= FLT_MAX)) {
        sm_row_alone(x, y, n, targets, loss, 0);
        return;
    }
    sm_stats st = {sm_splat(-INFINITY), sm_splat(INFINITY), {0}};
    float s = sm_hsum(sm_expsum_opt_v(x, y, n, m0, NULL, 1, &st, 0, 0, 0));
    if (sm_opt_void(isnan(s), sm_hmax(st.max), -sm_hmax(-st.min), m0)) {
        sm_row_alone(x, y, n, targets, loss, 0);
        return;
    }
    sm_scale(y, n, 1.0f / s);
    if (targets) {
        y[targets[0]] -= 1.0f;
        loss[0] = sm_loss(x, m0, s, targets[0]);
    }
}

SM_INLINE void sm_rows_short(const float *x, float *y, long rows, long n, const int *targets,
                             float *loss)
{
    if (rows == 1) {
        sm_row_short_lone(x, y, n, targets, loss);
        return;
    }
    sm_short_pend pend = {0};
    if (n == SM_SHORT)   /* the common case, with a constant n (sm_expsum_opt_v: unrolled) */
        for (long r0 = 0; r0 < rows; r0 += SM_W)
            sm_rows_short_group(x, y, r0, rows - r0 < SM_W ? (int)(rows - r0) : SM_W, SM_SHORT,
                                targets, loss, &pend);
    else
        for (long r0 = 0; r0 < rows; r0 += SM_W)
            sm_rows_short_group(x, y, r0, rows - r0 < SM_W ? (int)(rows - r0) : SM_W, n, targets,
                                loss, &pend);
    for (int k = 0; k < SM_W; k++)
        if (pend.on[k])
            sm_scale(y + (size_t)(pend.r0 + k) * n, n, pend.inv[k]);
}

/* ONLINE / STREAM over rows: pass 1 (normalizer), pass 2 writes y. */
SM_INLINE void sm_rows_online(const float *x, float *y, long rows, long n, const int *targets,
                              float *loss, int stream)
{
    for (long r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * n;
        float *yr = y + (size_t)r * n;
        if (targets && targets[r] < 0) {
            sm_row_trivial(yr, n, targets, loss, r, 0);
            continue;
        }
        sm_norm nm = sm_row_online(xr, n);
        if (sm_row_trivial(yr, n, targets, loss, r, isnan(nm.s)))
            continue;
        float inv = (float)(1.0 / nm.s);
        if (nm.flush)
            sm_expscale(xr, yr, n, nm.m, inv, 1, stream);
        else
            sm_expscale(xr, yr, n, nm.m, inv, 0, stream);
        if (targets) {
            loss[r] = sm_loss(xr, nm.m, nm.s, targets[r]);
            if (stream)
                sm_sfence();   /* the NT stores are ordered before the -1 below */
            yr[targets[r]] -= 1.0f;
        }
    }
    if (stream)
        sm_sfence();
}

SM_INLINE void sm_rows(const float *x, float *y, int rows, int cols, const int *targets,
                       float *loss, softmax_path p)
{
    p = sm_pick(p, rows, cols);
    if (p == SOFTMAX_PATH_STORE && cols <= SM_SHORT)
        sm_rows_short(x, y, rows, cols, targets, loss);
    else if (p == SOFTMAX_PATH_STORE || p == SOFTMAX_PATH_STORE_NT)
        sm_rows_store(x, y, rows, cols, targets, loss, p == SOFTMAX_PATH_STORE_NT);
    else
        sm_rows_online(x, y, rows, cols, targets, loss, p == SOFTMAX_PATH_STREAM);
}

/* ---- the exported kernels ---- */

#define SOFTMAX_FAST_DEFINE(name)                                                         \
    void softmax_fast_##name##_path(const float *x, float *y, int rows, int cols,          \
                                    softmax_path p) /* x, y (rows, cols) */               \
    {                                                                                     \
        sm_rows(x, y, rows, cols, NULL, NULL, p);                                         \
    }                                                                                     \
    void softmax_fast_##name(const float *x, float *y, int rows, int cols)                \
    {                                                                                     \
        sm_rows(x, y, rows, cols, NULL, NULL, SOFTMAX_PATH_AUTO);                         \
    }

/* loss = m + log(s) - x[t] (in double; in float for short rows, sm_rows_short_group);
 * dlogits = softmax - onehot. */
#define XENT_FAST_DEFINE(name)                                                            \
    void softmax_xent_##name##_path(const float *x, const int *targets, float *dlogits,   \
                                    float *loss, int rows, int cols, softmax_path p)      \
    { /* x, dlogits (rows, cols); targets, loss (rows) */                                 \
        sm_rows(x, dlogits, rows, cols, targets, loss, p);                                \
    }                                                                                     \
    void softmax_xent_##name(const float *x, const int *targets, float *dlogits,          \
                             float *loss, int rows, int cols)                             \
    {                                                                                     \
        sm_rows(x, dlogits, rows, cols, targets, loss, SOFTMAX_PATH_AUTO);                \
    }                                                                                     \
    void softmax_xent_loss_##name(const float *x, const int *targets, float *loss,        \
                                  int rows, int cols) /* x (rows, cols); loss (rows) */   \
    {                                                                                     \
        for (int r = 0; r < rows; r++) {                                                  \
            const float *xr = x + (size_t)r * cols;                                       \
            if (targets[r] < 0) {                                                         \
                loss[r] = 0;                                                              \
                continue;                                                                 \
            }                                                                             \
            sm_norm n = sm_row_online(xr, cols);                                          \
            loss[r] = isnan(n.s) ? NAN : sm_loss(xr, n.m, n.s, targets[r]);               \
        }                                                                                 \
    }
