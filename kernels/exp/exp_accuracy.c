/* exp_accuracy.c — ULP error of expf variants against exp() in double (exp_accuracy.h).
 *
 * The reference is exp((double)x): glibc's double exp is accurate to < 1 ULP of a
 * double, 2^29 times finer than a float ULP, so it is the true value for this
 * purpose, and (float)ref is the correctly rounded result.
 *
 * Inputs are numbered: first the specials list, then the swept inputs.  The sweep
 * walks an index space that enumerates every bit pattern of [+0, 89] then of
 * [-0, -104]; EXP_SAMPLE takes every EXP_SAMPLE_STRIDE-th index, EXP_EXHAUSTIVE all.
 * Work is split into chunks; each chunk computes its references once and runs every
 * variant on them.  Results do not depend on the thread count: the worst case is the
 * largest error with the lowest input number, sums are added in chunk order. */
#include "exp_accuracy.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fsio.h"
#include "progress.h"

#define EXP_ACC_CHUNK 65536          /* inputs per chunk: ~1 MB of buffers a thread */
#define EXP_SAMPLE_STRIDE 533        /* odd, so the sample meets every low-bit pattern;
                                        2.24e9 / 533 = 4.2e6 ~ 2^22 inputs */
#define EXP_POS_HI 0x42b20000u       /* 89.0f */
#define EXP_NEG_HI 0x42d00000u       /* 104.0f (as a magnitude) */

/* ---- the error measure ------------------------------------------------------------ */

double exp_ulp_error(float y, double ref)
{
    if (isnan(ref))
        return isnan(y) ? 0.0 : INFINITY;
    if (isnan(y))
        return INFINITY;
    float rf = (float)ref; /* correctly rounded: +inf past FLT_MAX + half an ULP */
    if (isinf(rf) || isinf(y))
        return y == rf ? 0.0 : INFINITY;
    /* ulp(ref) = 2^(e - 23), e = ref's binary exponent clamped to [-126, 127]
     * (subnormal spacing below, FLT_MAX's above).  Built from the double's bits and
     * applied as a multiply by its inverse: frexp/ldexp and a divide cost more than
     * the rest of an exhaustive check. */
    uint64_t rb;
    memcpy(&rb, &ref, sizeof rb);
    int e = (int)((rb >> 52) & 0x7ff) - 1023;
    e = e < -126 ? -126 : e > 127 ? 127 : e;
    uint64_t ib = (uint64_t)(23 - e + 1023) << 52;
    double inv_ulp;
    memcpy(&inv_ulp, &ib, sizeof inv_ulp);
    return fabs((double)y - ref) * inv_ulp;
}

/* ---- inputs ------------------------------------------------------------------------ */

static float f_of_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static uint32_t bits_of_f(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

/* Sweep index -> input: [0, NPOS) are +0 .. 89, then -0 .. -104. */
static const long long exp_npos = (long long)EXP_POS_HI + 1;
static const long long exp_nsweep = (long long)EXP_POS_HI + 1 + EXP_NEG_HI + 1;

static float sweep_input(long long i)
{
    return i < exp_npos ? f_of_bits((uint32_t)i)
                        : f_of_bits(0x80000000u | (uint32_t)(i - exp_npos));
}

/* Largest float x with exp(x) < t (double), starting below it. */
static float last_below(float start, double t)
{
    float x = start;
    while (exp((double)nextafterf(x, INFINITY)) < t)
        x = nextafterf(x, INFINITY);
    return x;
}

/* Boundaries where the correctly rounded float result changes kind. */
static int build_specials(float *s, int cap)
{
    int n = 0;
    const float fixed[] = {
        NAN, -NAN, f_of_bits(0x7fa00000u) /* signaling */, INFINITY, -INFINITY, 0.0f,
        -0.0f, FLT_MIN, -FLT_MIN, FLT_TRUE_MIN, -FLT_TRUE_MIN, 0x1p-25f, -0x1p-25f,
        FLT_MAX, -FLT_MAX, 1.0f, -1.0f, 0.5f, -0.5f, 88.0f, 88.5f, 89.0f, 100.0f, 1e10f,
        -87.0f, -88.0f, -90.0f, -95.0f, -100.0f, -103.0f, -103.9f, -104.0f, -110.0f,
        -1e10f, 0x1.62e43p-2f, -0x1.62e43p-2f, /* k rounding ties near ln2/2 */
    };
    for (int i = 0; i < RS_ARRAY_LEN(fixed) && n < cap; i++)
        s[n++] = fixed[i];
    /* Result thresholds: overflow to +inf, FLT_MIN (start of subnormals), the smallest
     * subnormal 2^-149, and underflow to +0 (below half of 2^-149). */
    const double fmax_half_up = (double)FLT_MAX + 0x1p103; /* FLT_MAX + half its ULP */
    const float bound[] = {
        last_below(88.7f, fmax_half_up),  /* exp(x) still rounds to FLT_MAX */
        last_below(-87.4f, 0x1p-126),     /* last subnormal result */
        last_below(-103.3f, 0x1p-149),
        last_below(-104.0f, 0x1p-150),    /* last x that underflows to +0 */
    };
    for (int b = 0; b < RS_ARRAY_LEN(bound); b++) {
        float lo = bound[b], hi = bound[b];
        for (int k = 0; k < 4 && n + 2 <= cap; k++) {
            if (k > 0)
                s[n++] = lo;
            s[n++] = hi = nextafterf(hi, INFINITY);
            lo = nextafterf(lo, -INFINITY);
        }
        if (n < cap)
            s[n++] = bound[b];
    }
    return n;
}

/* The exact result demanded of a variant with specials = 1, or 0 if x has none:
 * NaN, ±inf and ±0 in, and every x whose correctly rounded result is +inf or +0. */
static int special_want(float x, double ref, float *want)
{
    if (isnan(x)) {
        *want = NAN;
        return 1;
    }
    float rf = (float)ref;
    if (isinf(x) || x == 0.0f || rf == 0.0f || isinf(rf)) {
        *want = rf;
        return 1;
    }
    return 0;
}

static int same_result(float y, float want)
{
    return isnan(want) ? isnan(y) : bits_of_f(y) == bits_of_f(want);
}

static void fmt_float(char *buf, size_t cap, float v)
{
    if (isnan(v))
        snprintf(buf, cap, "nan");
    else if (isinf(v))
        snprintf(buf, cap, v > 0 ? "+inf" : "-inf");
    else if (v == 0.0f)
        snprintf(buf, cap, signbit(v) ? "-0" : "+0");
    else
        snprintf(buf, cap, "%.9g", v);
}

/* ---- the sweep --------------------------------------------------------------------- */

typedef struct {
    double max_ulp;
    long long worst_i;  /* input number of the worst case (lowest on ties) */
    float worst_x, worst_y;
    long long bad_i;    /* input number of the first wrong special, or -1 */
    float bad_x, bad_y, bad_want;
} exp_worst;

static void worst_merge(exp_worst *into, const exp_worst *w)
{
    if (w->max_ulp > into->max_ulp ||
        (w->max_ulp == into->max_ulp && w->worst_i < into->worst_i)) {
        into->max_ulp = w->max_ulp;
        into->worst_i = w->worst_i;
        into->worst_x = w->worst_x;
        into->worst_y = w->worst_y;
    }
    if (w->bad_i >= 0 && (into->bad_i < 0 || w->bad_i < into->bad_i)) {
        into->bad_i = w->bad_i;
        into->bad_x = w->bad_x;
        into->bad_y = w->bad_y;
        into->bad_want = w->bad_want;
    }
}

static void worst_note(exp_worst *w, double e, long long i, float x, float y)
{
    if (e > w->max_ulp || (e == w->max_ulp && i < w->worst_i)) {
        w->max_ulp = e;
        w->worst_i = i;
        w->worst_x = x;
        w->worst_y = y;
    }
}

/* Check one chunk of inputs for variant v, adding to w and to *sq / *cnt. */
static void check_chunk(const exp_variant *v, const float *x, const double *ref,
                        const float *y, int m, long long first, exp_worst *w,
                        double *sq, long long *cnt)
{
    for (int j = 0; j < m; j++) {
        float want;
        int counted = 0;
        if (v->specials && special_want(x[j], ref[j], &want)) {
            counted = 1;
            if (!same_result(y[j], want)) {
                if (w->bad_i < 0 || first + j < w->bad_i) {
                    w->bad_i = first + j;
                    w->bad_x = x[j];
                    w->bad_y = y[j];
                    w->bad_want = want;
                }
                worst_note(w, INFINITY, first + j, x[j], y[j]);
            }
        }
        if (x[j] >= v->domain_lo && x[j] <= v->domain_hi &&
            (v->specials || isfinite(x[j]))) {
            double e = exp_ulp_error(y[j], ref[j]);
            counted = 1;
            *sq += e * e;
            worst_note(w, e, first + j, x[j], y[j]);
        }
        *cnt += counted;
    }
}

/* What the threads of one accuracy run share. */
typedef struct {
    const exp_variant *const *v;
    int nv, progress;
    exp_inputs inputs;
    const float *specials;
    int nspec;
    long long nswept, stride;
    long long nchunks;     /* chunk 0 is the specials list; chunks 1.. are the sweep */
    double *sq;            /* (nchunks, nv) sums of squared errors */
    long long *cnt;        /* (nchunks, nv) inputs counted */
    exp_worst *worst;      /* (nv) merged over the threads */
    int stop, oom;
    long long done;
} acc_run;

/* Chunk c's inputs into x; returns their count, *first the input number of x[0]. */
static int chunk_inputs(const acc_run *a, long long c, float *x, long long *first)
{
    if (c == 0) {
        *first = 0;
        memcpy(x, a->specials, (size_t)a->nspec * sizeof *x);
        return a->nspec;
    }
    long long s0 = (c - 1) * EXP_ACC_CHUNK;
    int m = (int)(a->nswept - s0 < EXP_ACC_CHUNK ? a->nswept - s0 : EXP_ACC_CHUNK);
    *first = a->nspec + s0;
    for (int j = 0; j < m; j++)
        x[j] = sweep_input((s0 + j) * a->stride);
    return m;
}

/* Every variant on chunk c, into this thread's worst cases and the chunk's sums. */
static void run_chunk(acc_run *a, long long c, float *x, float *y, double *ref, exp_worst *mine)
{
    long long first;
    int m = chunk_inputs(a, c, x, &first), nv = a->nv;
    for (int j = 0; j < m; j++)
        ref[j] = exp((double)x[j]);
    for (int k = 0; k < nv; k++) {
        a->v[k]->run(x, y, (size_t)m);
        check_chunk(a->v[k], x, ref, y, m, first, &mine[k], &a->sq[c * nv + k], &a->cnt[c * nv + k]);
    }
    long long d;
#pragma omp atomic capture
    d = ++a->done;
    if (a->progress && omp_get_thread_num() == 0)
        rs_progress((int)d, a->inputs == EXP_EXHAUSTIVE ? "exp accuracy: every float"
                            : a->inputs == EXP_SAMPLE  ? "exp accuracy: sample"
                                                       : "exp accuracy: specials");
}

/* All chunks on nthreads threads; a Ctrl-C sets a->stop, a failed allocation a->oom. */
static void sweep(acc_run *a, int nthreads)
{
#pragma omp parallel num_threads(nthreads)
    {
        float *x = malloc(EXP_ACC_CHUNK * sizeof *x);
        float *y = malloc(EXP_ACC_CHUNK * sizeof *y);
        double *ref = malloc(EXP_ACC_CHUNK * sizeof *ref);
        exp_worst *mine = malloc((size_t)a->nv * sizeof *mine);
        if (!x || !y || !ref || !mine) {
#pragma omp atomic write
            a->oom = 1;
        } else {
            for (int k = 0; k < a->nv; k++)
                mine[k] = (exp_worst){.max_ulp = -1, .worst_i = -1, .bad_i = -1};
        }

#pragma omp for schedule(dynamic, 1)
        for (long long c = 0; c < a->nchunks; c++) {
            int halt, failed;
#pragma omp atomic read
            halt = a->stop;
#pragma omp atomic read
            failed = a->oom;
            if (halt || failed)
                continue;
            if (rs_interrupted()) {
#pragma omp atomic write
                a->stop = 1;
                continue;
            }
            run_chunk(a, c, x, y, ref, mine);
        }

#pragma omp critical(exp_accuracy_merge)
        if (mine)
            for (int k = 0; k < a->nv; k++)
                worst_merge(&a->worst[k], &mine[k]);
        free(x);
        free(y);
        free(ref);
        free(mine);
    }
}

/* Variant k's figures from the chunk sums and its worst cases. */
static void summarize(const acc_run *a, int k, exp_acc *o)
{
    double s = 0;
    long long n = 0;
    for (long long c = 0; c < a->nchunks; c++) {
        s += a->sq[c * a->nv + k];
        n += a->cnt[c * a->nv + k];
    }
    const exp_worst *w = &a->worst[k];
    memset(o, 0, sizeof *o);
    o->n = n;
    o->max_ulp = w->max_ulp < 0 ? 0 : w->max_ulp;
    o->rms_ulp = n ? sqrt(s / (double)n) : 0;
    o->worst_x = w->worst_x;
    o->worst_y = w->worst_y;
    o->specials_ok = w->bad_i < 0;
    if (!o->specials_ok) {
        char bx[32], by[32], bw[32];
        fmt_float(bx, sizeof bx, w->bad_x);
        fmt_float(by, sizeof by, w->bad_y);
        fmt_float(bw, sizeof bw, w->bad_want);
        snprintf(o->specials_msg, sizeof o->specials_msg, "exp(%s) gave %s, want %s", bx, by, bw);
    }
}

static void acc_free(acc_run *a)
{
    free(a->sq);
    free(a->cnt);
    free(a->worst);
}

int exp_accuracy(const exp_variant *const *v, int nv, exp_inputs inputs, int nthreads,
                 int progress, exp_acc *out)
{
    RS_CHECK(nv >= 1, "exp accuracy: no variants given");
    for (int k = 0; k < nv; k++)
        RS_CHECK(rs_isa_supported(v[k]->isa), "exp accuracy: %s %s needs %s, which this CPU lacks",
              v[k]->variant, rs_isa_name(v[k]->isa), rs_isa_name(v[k]->isa));
    if (nthreads <= 0)
        nthreads = omp_get_num_procs();

    float specials[128];
    acc_run a = {.v = v, .nv = nv, .progress = progress, .inputs = inputs, .specials = specials,
                 .stride = 1};
    a.nspec = build_specials(specials, RS_ARRAY_LEN(specials));
    if (inputs == EXP_SAMPLE) {
        a.stride = EXP_SAMPLE_STRIDE;
        a.nswept = (exp_nsweep + a.stride - 1) / a.stride;
    } else if (inputs == EXP_EXHAUSTIVE) {
        a.nswept = exp_nsweep;
    }
    a.nchunks = 1 + (a.nswept + EXP_ACC_CHUNK - 1) / EXP_ACC_CHUNK;
    a.sq = calloc((size_t)(a.nchunks * nv), sizeof *a.sq);
    a.cnt = calloc((size_t)(a.nchunks * nv), sizeof *a.cnt);
    a.worst = malloc((size_t)nv * sizeof *a.worst);
    if (!a.sq || !a.cnt || !a.worst) {
        acc_free(&a);
        rs_seterr("exp accuracy: out of memory");
        return -1;
    }
    for (int k = 0; k < nv; k++)
        a.worst[k] = (exp_worst){.max_ulp = -1, .worst_i = -1, .bad_i = -1};

    if (progress)
        rs_progress_begin((int)a.nchunks);
    sweep(&a, nthreads);
    if (progress)
        rs_progress_done();

    int rc = 0;
    if (a.oom) {
        rs_seterr("exp accuracy: out of memory");
        rc = -1;
    } else if (a.stop) {
        rs_seterr("exp accuracy: interrupted");
        rc = -1;
    }
    for (int k = 0; k < nv && rc == 0; k++)
        summarize(&a, k, &out[k]);
    acc_free(&a);
    return rc;
}
