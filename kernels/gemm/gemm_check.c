/* gemm_check.c — deterministic inputs, reference values in double and the residual
 * every backend is held to (gemm.h).  All of it runs outside the timed region. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm.h"

long gemm_size_a(const gemm_problem *p) { return p->lda * (p->ta == 'N' ? p->k : p->m); }
long gemm_size_b(const gemm_problem *p) { return p->ldb * (p->tb == 'N' ? p->n : p->k); }
long gemm_size_c(const gemm_problem *p) { return p->ldc * p->n; }

/* splitmix64: a good 64-bit mix, so neighbouring indices give unrelated values. */
static uint64_t mix64(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float gemm_input(uint64_t seed, int which, long idx)
{
    uint64_t h = mix64(mix64(seed ^ ((uint64_t)which << 56)) ^ (uint64_t)idx);
    /* 24 random bits: exactly representable, uniform in [-1, 1). */
    return (float)((double)(h >> 40) * 0x1p-23 - 1.0);
}

void gemm_fill(float *x, long n, uint64_t seed, int which)
{
#pragma omp parallel for schedule(static) if (n > (1L << 20))
    for (long i = 0; i < n; i++)
        x[i] = gemm_input(seed, which, i);
}

/* op(A)(i, p) and op(B)(p, j) in column-major storage. */
static inline float op_a(const gemm_problem *q, long i, long p)
{
    return q->ta == 'N' ? q->a[i + p * q->lda] : q->a[p + i * q->lda];
}
static inline float op_b(const gemm_problem *q, long p, long j)
{
    return q->tb == 'N' ? q->b[p + j * q->ldb] : q->b[j + p * q->ldb];
}

double gemm_ref_entry(const gemm_problem *q, long i, long j)
{
    double s = 0;
    for (long p = 0; p < q->k; p++)
        s += (double)op_a(q, i, p) * (double)op_b(q, p, j);
    /* BLAS: beta == 0 means C is not read. */
    return (double)q->alpha * s + (q->beta != 0 ? (double)q->beta * q->c0[i + j * q->ldc] : 0.0);
}

static float max_abs(const float *x, long n)
{
    float m = 0;
    for (long i = 0; i < n; i++)
        m = fmaxf(m, fabsf(x[i]));
    return m;
}

int gemm_ref_build(const gemm_problem *p, uint64_t seed, int nthreads, gemm_ref *r)
{
    return gemm_ref_build_upto(p, seed, nthreads, GEMM_FULL_CHECK_MACS, r);
}

int gemm_ref_build_upto(const gemm_problem *p, uint64_t seed, int nthreads, long full_macs,
                        gemm_ref *r)
{
    memset(r, 0, sizeof *r);
    double macs = (double)p->m * (double)p->n * (double)p->k;
    r->full = macs <= (double)full_macs;
    if (r->full) {
        r->nent = p->m * p->n;
        r->ref = malloc(sizeof *r->ref * (size_t)(r->nent ? r->nent : 1));
        RS_CHECK(r->ref, "out of memory for the %ldx%ld reference", p->m, p->n);
        gemm_naive_double(p, r->ref, nthreads);
    } else {
        /* The corners catch edge-tile bugs that a random sample might miss. */
        long extra[4][2] = {{0, 0}, {p->m - 1, 0}, {0, p->n - 1}, {p->m - 1, p->n - 1}};
        r->nent = GEMM_CHECK_SAMPLES + 4;
        r->ii = malloc(sizeof *r->ii * (size_t)r->nent);
        r->jj = malloc(sizeof *r->jj * (size_t)r->nent);
        r->ref = malloc(sizeof *r->ref * (size_t)r->nent);
        RS_CHECK(r->ii && r->jj && r->ref, "out of memory for the sampled reference");
        for (long s = 0; s < r->nent; s++) {
            if (s < 4) {
                r->ii[s] = extra[s][0];
                r->jj[s] = extra[s][1];
            } else {
                uint64_t h = mix64(seed ^ mix64((uint64_t)s));
                r->ii[s] = (long)((h >> 32) % (uint64_t)p->m);
                r->jj[s] = (long)((h & 0xffffffffu) % (uint64_t)p->n);
            }
        }
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthreads)
        for (long s = 0; s < r->nent; s++)
            r->ref[s] = gemm_ref_entry(p, r->ii[s], r->jj[s]);
    }
    float amax = max_abs(p->a, gemm_size_a(p)), bmax = max_abs(p->b, gemm_size_b(p));
    float cmax = p->beta != 0 ? max_abs(p->c0, gemm_size_c(p)) : 0;
    r->scale = FLT_EPSILON * (fabs((double)p->alpha) * (double)p->k * amax * bmax +
                              fabs((double)p->beta) * cmax);
    return 0;
}

void gemm_ref_free(gemm_ref *r)
{
    free(r->ii);
    free(r->jj);
    free(r->ref);
    memset(r, 0, sizeof *r);
}

double gemm_residual(const gemm_problem *p, const gemm_ref *r, const float *c)
{
    double worst = 0;
    for (long s = 0; s < r->nent; s++) {
        long i = r->full ? s % p->m : r->ii[s], j = r->full ? s / p->m : r->jj[s];
        double d = fabs((double)c[i + j * p->ldc] - r->ref[s]);
        if (!(d <= worst))   /* NaN-safe: a NaN makes the residual infinite */
            worst = isnan(d) ? INFINITY : d;
    }
    if (worst == 0)
        return 0;
    /* All inputs zero (scale 0): any difference is infinitely wrong. */
    return r->scale > 0 ? worst / r->scale : INFINITY;
}
