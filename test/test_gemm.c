/* test_gemm.c — Criterion tests of kernels/gemm/ and microbench/gemm/: every available
 * backend against the double reference on odd shapes and all four transposes,
 * alpha/beta handling (beta = 0 must not read C), threads, the residual and its sampled
 * check, the --shape parser, bad command lines (exit 2, one line), and every ISA's
 * micro-kernel of the `blocked` backend, alone and through the whole driver.
 * A backend whose library is not installed, or a kernel whose ISA this CPU lacks, is
 * skipped by name (Criterion's skip), never failed. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "cli_support.h"
#include "gemm.h"
#include "gemm_blocked.h"
#include "gemm_report.h"
#include "gemm_shapes.h"
#include "record.h"

/* ---- helpers ---- */

/* A column-major problem with padded leading dimensions (ld = rows + pad), so a
 * backend that confuses rows, columns or ld is caught. */
typedef struct {
    gemm_problem p;
    float *a, *b, *c0, *c;
} case_data;

static void case_init(case_data *d, char ta, char tb, long m, long n, long k, float alpha,
                      float beta, long pad, uint64_t seed)
{
    d->p = (gemm_problem){ta, tb, m, n, k, alpha, beta, NULL, NULL, NULL,
                          (ta == 'N' ? m : k) + pad, (tb == 'N' ? k : n) + pad, m + pad};
    long na = gemm_size_a(&d->p), nb = gemm_size_b(&d->p), nc = gemm_size_c(&d->p);
    d->a = malloc(sizeof(float) * (size_t)na);
    d->b = malloc(sizeof(float) * (size_t)nb);
    d->c0 = malloc(sizeof(float) * (size_t)nc);
    d->c = malloc(sizeof(float) * (size_t)nc);
    cr_assert(d->a && d->b && d->c0 && d->c);
    gemm_fill(d->a, na, seed, 0);
    gemm_fill(d->b, nb, seed, 1);
    gemm_fill(d->c0, nc, seed, 2);
    memcpy(d->c, d->c0, sizeof(float) * (size_t)nc);
    d->p.a = d->a;
    d->p.b = d->b;
    d->p.c0 = d->c0;
}

static void case_free(case_data *d)
{
    free(d->a);
    free(d->b);
    free(d->c0);
    free(d->c);
}

/* Run backend b on the case; returns the residual against the reference, or -1 for a
 * transpose case the backend declares unsupported or a product its takes() declines,
 * after checking that it refuses it (an error, C untouched) rather than computing
 * something.  Also checks that the padding rows of C (between m and ldc) were not
 * written. */
static double run_case(const gemm_backend *b, case_data *d)
{
    const gemm_problem *p = &d->p;
    int declined = b->takes && b->takes(b, p) != 0;
    if ((b->trans_unsupported & gemm_trans_bit(p->ta, p->tb)) || declined) {
        cr_assert(declined || p->ta != 'N' || p->tb != 'N', "%s: every backend must support NN", b->name);
        size_t cb = (size_t)p->ldc * p->n * sizeof(float);
        float *before = malloc(cb);
        cr_assert_not_null(before);
        memcpy(before, d->c, cb);
        cr_expect_neq(b->sgemm(b, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b,
                               p->ldb, p->beta, d->c, p->ldc), 0,
                      "%s declares %ldx%ldx%ld:%c%c unsupported but ran it", b->name, p->m, p->n,
                      p->k, p->ta, p->tb);
        cr_expect(memcmp(d->c, before, cb) == 0, "%s refused %c%c but wrote C", b->name, p->ta, p->tb);
        free(before);
        return -1;
    }
    cr_assert_eq(b->sgemm(b, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b, p->ldb,
                          p->beta, d->c, p->ldc), 0, "%s: %s", b->name, rs_lasterr());
    for (long j = 0; j < p->n; j++)
        for (long i = p->m; i < p->ldc; i++)
            cr_assert(memcmp(&d->c[i + j * p->ldc], &d->c0[i + j * p->ldc], sizeof(float)) == 0,
                      "%s wrote C(%ld,%ld) outside the matrix (ldc %ld)", b->name, i, j, p->ldc);
    gemm_ref r;
    cr_assert_eq(gemm_ref_build(p, 7, 1, &r), 0);
    double res = gemm_residual(p, &r, d->c);
    gemm_ref_free(&r);
    return res;
}

/* Load by name; skips the test (naming the backend and why) when it is not installed. */
static const gemm_backend *load_or_skip(const char *name)
{
    const gemm_backend *b = gemm_find(name);
    cr_assert_not_null(b, "no backend %s in the registry", name);
    if (b->load(b) != 0)
        cr_skip_test("%s not installed here: %s", name, rs_lasterr());
    b->set_threads(b, 1);
    return b;
}

/* ---- every backend: odd shapes x all transposes ---- */

static void odd_shapes(const char *name)
{
    const gemm_backend *b = load_or_skip(name);
    static const long dims[] = {1, 7, 17, 33, 100};
    static const char tr[4][2] = {{'N', 'N'}, {'N', 'T'}, {'T', 'N'}, {'T', 'T'}};
    for (int t = 0; t < 4; t++)
        for (int im = 0; im < 5; im++)
            for (int in = 0; in < 5; in++)
                for (int ik = 0; ik < 5; ik++) {
                    case_data d;
                    case_init(&d, tr[t][0], tr[t][1], dims[im], dims[in], dims[ik], 1.0f, 1.0f, 3,
                              (uint64_t)(t * 125 + im * 25 + in * 5 + ik));
                    double res = run_case(b, &d);
                    cr_expect(res <= GEMM_RESIDUAL_MAX, "%s %ldx%ldx%ld:%c%c residual %g", name,
                              dims[im], dims[in], dims[ik], tr[t][0], tr[t][1], res);
                    case_free(&d);
                }
}

/* alpha in {0, 1, -2.5} x beta in {0, 1, 0.5}; with beta = 0, C starts as NaN and must
 * not leak into the result (BLAS: C is not read). */
static void alpha_beta(const char *name)
{
    const gemm_backend *b = load_or_skip(name);
    static const float alphas[] = {0.0f, 1.0f, -2.5f}, betas[] = {0.0f, 1.0f, 0.5f};
    static const char tr[3][3] = {"NN", "TN", "NT"};
    for (int ia = 0; ia < 3; ia++)
        for (int ib = 0; ib < 3; ib++)
            for (int t = 0; t < 3; t++) {
                case_data d;
                case_init(&d, tr[t][0], tr[t][1], 37, 19, 45, alphas[ia], betas[ib], 2,
                          (uint64_t)(100 + ia * 3 + ib));
                if (betas[ib] == 0)
                    for (long j = 0; j < d.p.n; j++)
                        for (long i = 0; i < d.p.m; i++)
                            d.c[i + j * d.p.ldc] = NAN;
                double res = run_case(b, &d);
                cr_expect(res <= GEMM_RESIDUAL_MAX, "%s alpha %g beta %g %s: residual %g", name,
                          alphas[ia], betas[ib], tr[t], res);
                case_free(&d);
            }
}

/* Two threads on shapes that split into several blocks per thread, plus tiny ones. */
static void threaded(const char *name)
{
    const gemm_backend *b = load_or_skip(name);
    b->set_threads(b, 2);
    static const long shapes[][3] = {{300, 70, 260}, {33, 130, 17}, {1, 1, 1}, {257, 1, 513}};
    for (int s = 0; s < 4; s++)
        for (int t = 0; t < 2; t++) {
            case_data d;
            case_init(&d, t ? 'T' : 'N', 'N', shapes[s][0], shapes[s][1], shapes[s][2], 1.0f, 1.0f,
                      1, (uint64_t)(200 + s));
            double res = run_case(b, &d);
            cr_expect(res <= GEMM_RESIDUAL_MAX, "%s 2 threads %ldx%ldx%ld: residual %g", name,
                      shapes[s][0], shapes[s][1], shapes[s][2], res);
            case_free(&d);
        }
    b->set_threads(b, 1);
}

/* A backend that says it is re-entrant gives right products when two threads call it
 * at once, at one thread each (a class layer's split, the pipeline's two stages): the
 * skinny and the general paths, both transposes of A, each call a different shape. */
static void concurrent(const char *name)
{
    const gemm_backend *b = load_or_skip(name);
    if (!b->reentrant)
        cr_skip_test("%s does not claim to be re-entrant", name);
    enum { NC = 16, ROUNDS = 4 };
    case_data d[NC];
    for (int i = 0; i < NC; i++)
        case_init(&d[i], i % 2 ? 'T' : 'N', 'N', 40 + 37 * i, i % 4 < 2 ? 1 + 9 * i : 150 + 11 * i,
                  60 + 23 * i, 1.0f, 0.0f, 1, (uint64_t)(300 + i));
    int failed[NC] = {0};
    for (int round = 0; round < ROUNDS; round++) {
#pragma omp parallel for schedule(static, 1) num_threads(2)
        for (int i = 0; i < NC; i++) {
            const gemm_problem *p = &d[i].p;
            failed[i] |= b->sgemm(b, p->ta, p->tb, p->m, p->n, p->k, p->alpha, p->a, p->lda, p->b,
                                  p->ldb, p->beta, d[i].c, p->ldc) != 0;
        }
    }
    for (int i = 0; i < NC; i++) {
        const gemm_problem *p = &d[i].p;
        cr_expect(!failed[i], "%s refused %ldx%ldx%ld", name, p->m, p->n, p->k);
        gemm_ref r;
        cr_assert_eq(gemm_ref_build(p, 7, 1, &r), 0);
        double res = gemm_residual(p, &r, d[i].c);
        gemm_ref_free(&r);
        cr_expect(res <= GEMM_RESIDUAL_MAX, "%s, two callers at once, %ldx%ldx%ld:%c%c: residual %g", name,
                  p->m, p->n, p->k, p->ta, p->tb, res);
        case_free(&d[i]);
    }
}

#define BACKEND_TESTS(id, name)                                   \
    Test(gemm_##id, odd_shapes_all_transposes) { odd_shapes(name); } \
    Test(gemm_##id, alpha_beta) { alpha_beta(name); }              \
    Test(gemm_##id, two_threads) { threaded(name); }              \
    Test(gemm_##id, two_callers_at_once) { concurrent(name); }

BACKEND_TESTS(naive, "naive")
BACKEND_TESTS(blocked, "blocked")
BACKEND_TESTS(openblas, "openblas")
BACKEND_TESTS(openblas_default, "openblas:default")
BACKEND_TESTS(blis, "blis")
BACKEND_TESTS(blis_default, "blis:default")
BACKEND_TESTS(libxsmm, "libxsmm")
BACKEND_TESTS(onednn, "onednn")

/* libxsmm 1.17's tiled GEMM hands what it has no kernel for (alpha != 1; an M without a
 * factor from the vector width to 48) to the BLAS it was linked with: here libxsmmnoblas,
 * which prints "LIBXSMM ERROR: application must be linked against LAPACK/BLAS sgemm!"
 * and runs a naive float loop (residual 5 to 7 on the class layer's alpha = 1/N
 * products).  The backend must compute the trainer's products itself (alpha 1/N, beta
 * 0 and 1, against the double reference: naive's kernel), decline the rest (-1, C
 * untouched, as takes() said beforehand), and print nothing. */
Test(gemm_libxsmm, shapes_without_a_kernel, .init = cr_redirect_stderr)
{
    const gemm_backend *b = load_or_skip("libxsmm");
    cr_assert_not_null(b->takes, "libxsmm must say which products it declines");
    static const struct { long m, n, k; float alpha, beta; int threads; } ok[] = {
        {100, 1, 1120, 1.0f / 1120, 1, 1},   /* colsum cls: 100 classes, N = 32 x 35 */
        {512, 1120, 100, 1.0f / 1120, 0, 2}, /* bwd_in cls */
        {512, 1120, 100, 1.0f / 1120, 1, 1}, /* the same, beta 1 */
        {512, 1, 1639, 1.0f / 1120, 1, 1},   /* a split's one-row NN H x 1 x S */
        {64, 64, 64, -2.5f, 0.5f, 2},
    };
    for (int i = 0; i < RS_ARRAY_LEN(ok); i++) {
        b->set_threads(b, ok[i].threads);
        case_data d;
        case_init(&d, 'N', 'N', ok[i].m, ok[i].n, ok[i].k, ok[i].alpha, ok[i].beta, 0, (uint64_t)(300 + i));
        cr_expect_eq(b->takes(b, &d.p), 0, "libxsmm declines %ldx%ldx%ld alpha %g: %s", ok[i].m,
                     ok[i].n, ok[i].k, ok[i].alpha, rs_lasterr());
        double res = run_case(b, &d);
        cr_expect(res >= 0 && res <= GEMM_RESIDUAL_MAX, "libxsmm %ldx%ldx%ld alpha %g beta %g: residual %g",
                  ok[i].m, ok[i].n, ok[i].k, ok[i].alpha, ok[i].beta, res);
        case_free(&d);
    }
    b->set_threads(b, 1);
    /* M = 1, 4 (--classes 4), 7, 53 (prime): no factor in [8, 48], on any x86 target */
    static const long bad_m[] = {1, 4, 7, 53};
    for (int i = 0; i < RS_ARRAY_LEN(bad_m); i++) {
        case_data d;
        case_init(&d, 'N', 'N', bad_m[i], 32, 512, 1, 1, 0, (uint64_t)(400 + i));
        cr_expect_neq(b->takes(b, &d.p), 0, "libxsmm takes %ldx32x512, which it has no kernel for", bad_m[i]);
        cr_expect_eq(run_case(b, &d), -1, "libxsmm ran %ldx32x512", bad_m[i]);
        case_free(&d);
    }
    fflush(stderr);
    cr_expect_stderr_eq_str("", "libxsmm printed on stderr");
}

/* ---- the blocked backend's micro-kernels, one ISA each ---- */

static void need_isa(const gemm_ukernel *k)
{
    if (!rs_isa_supported(k->isa))
        cr_skip_test("%s: this CPU lacks %s", k->name, rs_isa_name(k->isa));
}

/* One MR x NR tile from packed panels against a double reference: kc of 1, odd and a
 * full cache block; beta = 0 with C holding NaN (must not be read), and beta != 0. */
static void ukernel_tile(const gemm_ukernel *k)
{
    need_isa(k);
    const int mr = k->mr, nr = k->nr;
    const long ldc = mr + 3, kcs[] = {1, 7, k->kc};
    for (int ik = 0; ik < 3; ik++)
        for (int bi = 0; bi < 2; bi++) {
            long kc = kcs[ik];
            float alpha = 1.5f, beta = bi ? 0.5f : 0.0f;
            /* aligned_alloc wants a multiple of the alignment (C11; ASan checks it) */
            float *a = aligned_alloc(64, (sizeof(float) * (size_t)(kc * mr + 16) + 63) / 64 * 64);
            float *b = aligned_alloc(64, (sizeof(float) * (size_t)(kc * nr + 16) + 63) / 64 * 64);
            float *c = malloc(sizeof(float) * (size_t)(ldc * nr)), *c0 = malloc(sizeof(float) * (size_t)(ldc * nr));
            cr_assert(a && b && c && c0);
            gemm_fill(a, kc * mr, 11 + ik, 0);
            gemm_fill(b, kc * nr, 11 + ik, 1);
            gemm_fill(c0, ldc * nr, 11 + ik, 2);
            for (long i = 0; i < ldc * nr; i++)
                c[i] = beta == 0 && i % ldc < mr ? NAN : c0[i];
            k->run(kc, a, b, c, ldc, alpha, beta);
            for (int j = 0; j < nr; j++)
                for (long i = 0; i < ldc; i++) {
                    float got = c[i + j * ldc];
                    if (i >= mr) {
                        cr_assert(got == c0[i + j * ldc], "%s wrote C(%ld,%d) past MR", k->name, i, j);
                        continue;
                    }
                    double want = beta * (double)c0[i + j * ldc];
                    for (long p = 0; p < kc; p++)
                        want += (double)alpha * a[p * mr + i] * b[p * nr + j];
                    /* the residual's unit (gemm.h): eps times the largest possible sum */
                    double unit = FLT_EPSILON * ((double)fabsf(alpha) * (double)kc + fabsf(beta));
                    cr_assert(fabs(got - want) <= GEMM_RESIDUAL_MAX * unit,
                              "%s kc=%ld beta=%g: C(%ld,%d) = %.9g, want %.9g", k->name, kc,
                              (double)beta, i, j, (double)got, want);
                }
            free(a);
            free(b);
            free(c);
            free(c0);
        }
}

/* The whole blocked driver (packing, edges, threads) on this kernel. */
static void blocked_with(const gemm_ukernel *k, void (*suite)(const char *))
{
    need_isa(k);
    cr_assert_eq(gemm_blocked_force(k), 0, "%s", rs_lasterr());
    suite("blocked");
    cr_assert_eq(gemm_blocked_force(NULL), 0, "%s", rs_lasterr());
}

/* The skinny path (TN/TT, few columns; gemm_blocked_skinny.c) past one chunk of K, with
 * M and N off its tile and the general path on each side of its bound (N = 128 / 129),
 * on 1 and 2 threads, beta 0 over NaN, beta 1, and alpha -2.5 with beta 0.5 over three
 * chunks. */
static void skinny_long_k(const char *name)
{
    const gemm_backend *b = load_or_skip(name);
    static const struct { long m, n, k; char tb; int threads; float alpha, beta; } cs[] = {
        {301, 50, 2500, 'N', 1, 1.0f, 1.0f},   {301, 50, 2500, 'T', 2, 1.0f, 0.0f},
        {7, 128, 1100, 'T', 1, 1.0f, 0.0f},    {97, 129, 1100, 'N', 2, 1.0f, 1.0f},
        {1, 1, 3000, 'N', 2, 1.0f, 1.0f},      {45, 33, 2049, 'N', 1, -2.5f, 0.5f},
    };
    for (int i = 0; i < RS_ARRAY_LEN(cs); i++) {
        b->set_threads(b, cs[i].threads);
        case_data d;
        case_init(&d, 'T', cs[i].tb, cs[i].m, cs[i].n, cs[i].k, cs[i].alpha, cs[i].beta, 1,
                  (uint64_t)(500 + i));
        if (cs[i].beta == 0)
            for (long j = 0; j < d.p.n; j++)
                for (long r = 0; r < d.p.m; r++)
                    d.c[r + j * d.p.ldc] = NAN;
        double res = run_case(b, &d);
        cr_expect(res <= GEMM_RESIDUAL_MAX, "%s %ldx%ldx%ld:T%c on %d threads: residual %g", name,
                  cs[i].m, cs[i].n, cs[i].k, cs[i].tb, cs[i].threads, res);
        case_free(&d);
    }
    b->set_threads(b, 1);
}

#define UKERNEL_TESTS(isa)                                                                   \
    Test(gemm_ukernel_##isa, tile_against_double) { ukernel_tile(&gemm_ukernel_##isa); }   \
    Test(gemm_ukernel_##isa, blocked_odd_shapes) { blocked_with(&gemm_ukernel_##isa, odd_shapes); } \
    Test(gemm_ukernel_##isa, blocked_alpha_beta) { blocked_with(&gemm_ukernel_##isa, alpha_beta); } \
    Test(gemm_ukernel_##isa, blocked_two_threads) { blocked_with(&gemm_ukernel_##isa, threaded); } \
    Test(gemm_ukernel_##isa, blocked_skinny_long_k) { blocked_with(&gemm_ukernel_##isa, skinny_long_k); }

UKERNEL_TESTS(avx512)
UKERNEL_TESTS(avx2)
UKERNEL_TESTS(portable)

Test(gemm_registry, names_are_the_contract)
{
    const char *want[] = {"naive", "blocked", "openblas", "blis", "libxsmm", "onednn"};
    for (int i = 0; i < RS_ARRAY_LEN(want); i++)
        cr_expect_not_null(gemm_find(want[i]), "backend %s missing", want[i]);
    cr_expect_null(gemm_find("mkl"));
    /* naive and blocked need no library: always available. */
    cr_expect_eq(gemm_backend_naive.load(&gemm_backend_naive), 0);
    cr_expect_eq(gemm_backend_blocked.load(&gemm_backend_blocked), 0);
}

Test(gemm_registry, dispatch_strings_name_the_kernel)
{
    for (int i = 0; i < gemm_nbackends; i++) {
        const gemm_backend *b = gemm_backends[i];
        if (b->load(b) != 0)
            continue;
        const char *d = b->dispatch(b);
        cr_expect(d && d[0] && !strchr(d, ','), "%s: dispatch '%s' (non-empty, no comma for CSV)",
                  b->name, d ? d : "(null)");
        if (b->pair)
            cr_expect(strstr(d, "(default)"), "%s: '%s' should say it is the default dispatch", b->name, d);
    }
}

/* ---- the reference and the residual ---- */

Test(gemm_check, reference_on_a_hand_computed_case)
{
    /* op(A) = [1 2; 3 4] (column-major {1,3,2,4}), B = [5 6; 7 8], C0 = 1: alpha 2, beta 3.
     * A B = [19 22; 43 50] -> 2 A B + 3 = [41 47; 89 103]. */
    float a[] = {1, 3, 2, 4}, b[] = {5, 7, 6, 8}, c0[] = {1, 1, 1, 1};
    gemm_problem p = {'N', 'N', 2, 2, 2, 2.0f, 3.0f, a, b, c0, 2, 2, 2};
    double want[] = {41, 89, 47, 103}, ref[4];
    gemm_naive_double(&p, ref, 1);
    for (int i = 0; i < 4; i++) {
        cr_expect_eq(ref[i], want[i], "entry %d: %g != %g", i, ref[i], want[i]);
        cr_expect_eq(gemm_ref_entry(&p, i % 2, i / 2), want[i]);
    }
    /* The same product with A stored transposed ({1,2,3,4} is [1 2; 3 4]^T column-major). */
    float at[] = {1, 2, 3, 4};
    p.ta = 'T';
    p.a = at;
    gemm_naive_double(&p, ref, 1);
    for (int i = 0; i < 4; i++)
        cr_expect_eq(ref[i], want[i]);
}

/* Any order of calls gives the same values (no hidden state: threads and checks may
 * generate any element alone), and they are spread uniformly over [-1, 1). */
Test(gemm_check, inputs_are_a_pure_function_of_seed_and_index)
{
    enum { N = 10000 };
    static float fwd[N];
    double sum = 0, sq = 0;
    for (long i = 0; i < N; i++) {
        float x = fwd[i] = gemm_input(9, 0, i);
        cr_assert(x >= -1.0f && x < 1.0f, "input %g out of [-1, 1)", x);
        sum += x, sq += (double)x * x;
    }
    for (long i = N - 1; i >= 0; i--) {   /* backwards, with other streams in between */
        (void)gemm_input(5, 1, i), (void)gemm_input(9, 1, N - i);
        cr_assert_eq(gemm_input(9, 0, i), fwd[i], "element %ld changed with the call order", i);
    }
    cr_expect_neq(gemm_input(5, 1, 12345), gemm_input(6, 1, 12345));
    cr_expect_neq(gemm_input(5, 1, 12345), gemm_input(5, 2, 12345));
    /* uniform on [-1, 1): mean 0, mean square 1/3 (standard errors 0.006 and 0.003) */
    cr_expect(fabs(sum / N) < 0.03 && fabs(sq / N - 1.0 / 3) < 0.015, "mean %g, mean square %g",
              sum / N, sq / N);
}

Test(gemm_check, residual_catches_a_wrong_entry_and_nan)
{
    case_data d;
    case_init(&d, 'N', 'N', 20, 10, 30, 1.0f, 1.0f, 0, 11);
    const gemm_backend *b = &gemm_backend_naive;
    b->set_threads(b, 1);
    /* naive is the reference rounded once: within half an ulp of |C| <= K + 1. */
    cr_assert_leq(run_case(b, &d), 0.5, "naive is the reference itself");
    gemm_ref r;
    cr_assert_eq(gemm_ref_build(&d.p, 1, 1, &r), 0);
    cr_expect(r.full && r.nent == 200);
    d.c[5 + 3 * d.p.ldc] += 0.25f;   /* one term of magnitude 1/4 off */
    cr_expect_gt(gemm_residual(&d.p, &r, d.c), 100 * GEMM_RESIDUAL_MAX);
    d.c[5 + 3 * d.p.ldc] = NAN;
    cr_expect(isinf(gemm_residual(&d.p, &r, d.c)));
    gemm_ref_free(&r);
    case_free(&d);
}

Test(gemm_check, big_shapes_are_checked_on_a_sample_with_the_corners)
{
    /* Above GEMM_FULL_CHECK_MACS: sampled.  The corner entries are always in it. */
    case_data d;
    case_init(&d, 'T', 'N', 600, 300, 400, 1.0f, 1.0f, 0, 12);
    cr_assert_gt(600.0 * 300 * 400, (double)GEMM_FULL_CHECK_MACS);
    const gemm_backend *b = &gemm_backend_blocked;
    cr_assert_eq(b->load(b), 0);
    b->set_threads(b, 1);
    gemm_ref r;
    cr_assert_eq(gemm_ref_build(&d.p, 3, 1, &r), 0);
    cr_expect(!r.full && r.nent == GEMM_CHECK_SAMPLES + 4);
    cr_assert_eq(b->sgemm(b, 'T', 'N', 600, 300, 400, 1.0f, d.a, d.p.lda, d.b, d.p.ldb, 1.0f, d.c, d.p.ldc), 0);
    double ok = gemm_residual(&d.p, &r, d.c);
    cr_expect_leq(ok, GEMM_RESIDUAL_MAX, "blocked on 600x300x400:TN residual %g", ok);
    d.c[599 + 299 * d.p.ldc] *= -1;   /* the last corner: an edge-tile bug */
    cr_expect_gt(gemm_residual(&d.p, &r, d.c), GEMM_RESIDUAL_MAX);
    gemm_ref_free(&r);
    case_free(&d);
}

/* ---- the gain of the dispatch correction ---- */

Test(gemm_report, gain_is_corrected_over_default_on_the_same_problem)
{
    static const rs_col cols[] = {
        {"backend", RS_STR, 0}, {"set", RS_STR, 0}, {"m", RS_INT, 0}, {"n", RS_INT, 0},
        {"k", RS_INT, 0}, {"trans", RS_STR, 0}, {"threads", RS_INT, 0}, {"gflops", RS_DBL, 4},
        {"frac_of_peak", RS_DBL, 3}, {"gain_vs_default", RS_DBL, 3},
    };
    rs_table *t = rs_table_new("gemm", cols, RS_ARRAY_LEN(cols));
    struct { const char *b; long n; const char *tr; double g; } rows[] = {
        {"openblas", 64, "NN", 150}, {"openblas", 64, "TN", 140}, {"openblas", 128, "NN", 160},
        {"openblas:default", 64, "NN", 30}, {"openblas:default", 64, "TN", 35}, {"blis", 64, "NN", 120},
    };
    for (int i = 0; i < RS_ARRAY_LEN(rows); i++) {
        int r = rs_table_row(t);
        rs_set_str(t, r, "backend", rows[i].b);
        rs_set_str(t, r, "set", "deepbench");
        rs_set_int(t, r, "m", 1760);
        rs_set_int(t, r, "n", rows[i].n);
        rs_set_int(t, r, "k", 1760);
        rs_set_str(t, r, "trans", rows[i].tr);
        rs_set_int(t, r, "threads", 1);
        rs_set_dbl(t, r, "gflops", rows[i].g);
        rs_set_dbl(t, r, "frac_of_peak", rows[i].g / 170);
    }
    gemm_report_gains(t);
    int g = rs_table_col_index(t, "gain_vs_default");
    cr_expect_float_eq(rs_cell_dbl(t, 0, g), 5.0, 1e-12);
    cr_expect_float_eq(rs_cell_dbl(t, 1, g), 4.0, 1e-12);
    cr_expect(!rs_cell_isset(t, 2, g), "no default row for N=128: no gain");
    cr_expect(!rs_cell_isset(t, 3, g) && !rs_cell_isset(t, 5, g));
    rs_table_free(t);
}

/* ---- the --shape parser ---- */

Test(gemm_shape, good_shapes)
{
    gemm_shape s;
    cr_assert_eq(gemm_parse_shape("1760x64x1760:TN", &s), 0, "%s", rs_lasterr());
    cr_expect(s.m == 1760 && s.n == 64 && s.k == 1760 && s.ta == 'T' && s.tb == 'N');
    cr_expect_str_eq(s.set, "user");
    cr_assert_eq(gemm_parse_shape("4X5x6:nt", &s), 0, "%s", rs_lasterr());
    cr_expect(s.m == 4 && s.n == 5 && s.k == 6 && s.ta == 'N' && s.tb == 'T');
    cr_assert_eq(gemm_parse_shape("7x8x9", &s), 0);
    cr_expect(s.ta == 'N' && s.tb == 'N');
    cr_assert_eq(gemm_parse_shape("lstm_recurrent", &s), 0);
    cr_expect(s.m == 4 * GEMM_MODEL_H && s.n == GEMM_MODEL_B && s.k == GEMM_MODEL_H);
    cr_expect_str_eq(s.set, "models");
}

Test(gemm_shape, bad_shapes_give_one_clear_line)
{
    const char *bad[] = {"12x", "0x4x4", "4x0x4", "4x4x0", "axbxc", "4x4x4:QQ", "", "4x4",
                         "4x4x4:", "4x4x4:T", "4x4x4:TNN", "-4x4x4", "4x4x4x4", "99999999999x1x1",
                         "4 x4x4", "lstm"};
    for (int i = 0; i < RS_ARRAY_LEN(bad); i++) {
        gemm_shape s;
        rs_seterr("none");
        cr_expect_eq(gemm_parse_shape(bad[i], &s), -1, "'%s' was accepted", bad[i]);
        const char *e = rs_lasterr();
        cr_expect(strstr(e, "--shape") && !strchr(e, '\n'), "'%s': error '%s'", bad[i], e);
        cr_expect(strstr(e, "1760x64x1760"), "'%s': the error should show an example: '%s'", bad[i], e);
    }
    gemm_shape s;
    gemm_parse_shape("0x4x4", &s);
    cr_expect(strstr(rs_lasterr(), "zero"), "zero sizes are named as such: %s", rs_lasterr());
}

/* ---- the command line (runs build/bin/microbench; `make test` runs from the root) ---- */

extern char **environ;
static char err[4096];

static int run_gemm(const char *const *args)
{
    return cli_run("build/bin/microbench", (const char *[]){"gemm", NULL}, args, err, sizeof err);
}

static void expect_usage_error(const char *const *args, const char *fragment)
{
    cli_expect_usage_error("build/bin/microbench", (const char *[]){"gemm", NULL}, args, fragment);
}

Test(gemm_cli, malformed_shape) { expect_usage_error((const char *[]){"--shape", "12x", NULL}, "--shape: '12x'"); }
Test(gemm_cli, zero_size) { expect_usage_error((const char *[]){"--shape", "0x4x4", NULL}, "zero"); }
Test(gemm_cli, letters) { expect_usage_error((const char *[]){"--shape", "axbxc", NULL}, "'axbxc'"); }
Test(gemm_cli, bad_transpose) { expect_usage_error((const char *[]){"--shape", "4x4x4:QQ", NULL}, "transpose"); }
Test(gemm_cli, bad_item_in_list) { expect_usage_error((const char *[]){"--shape", "8x8x8,12x", NULL}, "'12x'"); }
Test(gemm_cli, too_big) { expect_usage_error((const char *[]){"--shape", "2000000x2000000x8", NULL}, "memory"); }
Test(gemm_cli, unknown_backend) { expect_usage_error((const char *[]){"--backend", "mkl", NULL}, "unknown backend 'mkl'"); }
Test(gemm_cli, unknown_set) { expect_usage_error((const char *[]){"--set", "lstm", NULL}, "unknown set 'lstm'"); }
Test(gemm_cli, bad_threads) { expect_usage_error((const char *[]){"--threads", "0", NULL}, "--threads"); }

Test(gemm_cli, a_small_run_succeeds)
{
    int rc = run_gemm((const char *[]){"--shape", "33x7x17:TT,lstm_recurrent", "--backend", "naive,blocked",
                                       "--threads", "1", "--quick", NULL});
    cr_expect_eq(rc, 0, "exit %d; stderr: %s", rc, err);
}
