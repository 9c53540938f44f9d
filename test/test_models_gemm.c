/* test_models_gemm.c — the trainer's GEMM backends.  --gemm auto picks only backends
 * that pass the reference check, judged on the products as the trainer calls them,
 * keeps to one thread pool, and reports its picks (the header, the CSV gemm column, the
 * meta gemm_plan); a recorded plan repeats a run bit for bit; --gemm onednn's every GEMM
 * kind is within its rounding bound of naive's.  Runs from the repository root
 * (`make test`). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm_auto.h"
#include "matmul.h"
#include "model.h"
#include "record.h"
#include "train.h"
#include "models_support.h"

/* ---- --gemm auto's choice ---- */

/* Fast and wrong: leaves C as it was. */
static int fake_wrong_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                            float alpha, const float *a, long lda, const float *bm, long ldb,
                            float beta, float *c, long ldc)
{
    return 0;
}

/* Right (naive underneath) but declines NT at run time. */
static int fake_partial_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                              float alpha, const float *a, long lda, const float *bm, long ldb,
                              float beta, float *c, long ldc)
{
    if (ta == 'N' && tb == 'T') {
        rs_seterr("fake-partial: no NT");
        return -1;
    }
    return gemm_backend_naive.sgemm(&gemm_backend_naive, ta, tb, m, n, k, alpha, a, lda, bm, ldb,
                                    beta, c, ldc);
}

static int fake_load(const gemm_backend *b) { return 0; }

Test(models, auto_picks_only_backends_that_pass_the_check)
{
    static const gemm_backend wrong = {.name = "fake-wrong", .what = "no-op", .load = fake_load,
                                       .sgemm = fake_wrong_sgemm};
    static const gemm_backend partial = {.name = "fake-partial", .what = "naive, no NT",
                                         .load = fake_load, .sgemm = fake_partial_sgemm};
    const gemm_backend *cands[3] = {&wrong, &partial, &gemm_backend_blocked};
    cr_assert_eq(gemm_backend_blocked.load(&gemm_backend_blocked), 0);
    model_cfg c = {CELL_LSTM, 2, 24, 16, 18, 8, 12, 0};
    ga_shape shapes[GA_MAX_SHAPES];
    int ns = ga_model_shapes(&c, shapes, GA_MAX_SHAPES);
    /* one entry per distinct product: both layers' recurrences share theirs */
    int rec = -1;
    for (int i = 0; i < ns; i++) {
        for (int j = 0; j < i; j++)
            cr_expect(!(shapes[i].m == shapes[j].m && shapes[i].n == shapes[j].n && shapes[i].k == shapes[j].k &&
                        shapes[i].ta == shapes[j].ta && shapes[i].tb == shapes[j].tb), "shape %d twice", i);
        if (shapes[i].ta == 'T' && shapes[i].m == 96 && shapes[i].n == 8 && shapes[i].k == 24)
            rec = i;
    }
    cr_assert(rec >= 0, "no recurrent forward product");
    cr_expect_eq(shapes[rec].calls, 2 * 12);
    cr_expect_str_eq(shapes[rec].where, "l0.rec/l1.rec");
    static ga_plan p;
    p.notes[0] = 0;
    cr_assert_eq(ga_tune(shapes, ns, cands, 3, 1, &p), 0, "%s", rs_lasterr());
    cr_expect_eq(p.excluded[0], 1);
    cr_expect(strstr(p.notes, "fake-wrong excluded: WRONG"), "notes: %s", p.notes);
    cr_expect_eq(p.excluded[1], 0);
    cr_expect(p.fallback == &gemm_backend_blocked, "fallback %s: only blocked does every product",
              p.fallback->name);
    for (int i = 0; i < ns; i++) {
        cr_expect(p.pick[i] != &wrong, "%s %s picked the wrong backend", p.shape[i].role, p.shape[i].where);
        int nt = p.shape[i].ta == 'N' && p.shape[i].tb == 'T';
        cr_expect(!nt || (p.ms[i][1] < 0 && p.pick[i] != &partial), "NT %s", p.shape[i].where);
        cr_expect(nt || p.ms[i][1] > 0, "%s %s: fake-partial not timed", p.shape[i].role, p.shape[i].where);
        cr_expect(ga_lookup(&p, p.shape[i].ta, p.shape[i].tb, p.shape[i].m, p.shape[i].n,
                            p.shape[i].k) == p.pick[i]);
    }
    cr_expect(ga_lookup(&p, 'N', 'N', 3, 5, 7) == p.fallback, "an unknown shape takes the fallback");
    /* none left for every product: -1, one line naming why */
    p.notes[0] = 0;
    cr_expect_eq(ga_tune(shapes, ns, cands, 2, 1, &p), -1);
    cr_expect(strstr(rs_lasterr(), "no backend can do every product") &&
                  strstr(rs_lasterr(), "fake-wrong excluded") && !strchr(rs_lasterr(), '\n'),
              "%s", rs_lasterr());
}

/* The plan a --gemm auto run recorded (summary.json's gemm_plan), given as --gemm:
 * the same dispatch without timing, so the same parameters bit for bit (how a study
 * repeats a point); a plan whose products are not the model's is refused. */
Test(models, a_recorded_plan_repeats_a_run_bit_identically)
{
    char ja[300], jb[300], ha[65], hb[65], tb[64];
    static char plan[GA_RECORD_MAX], pb[GA_RECORD_MAX];
    tmp_path(ja, sizeof ja, "plan-a.json"), tmp_path(jb, sizeof jb, "plan-b.json");
    train_opts o;
    small_opts(&o, NULL, NULL, 20);
    o.json = ja;
    cr_assert_eq(train_run(&o), 0, "%s", rs_lasterr());
    meta_str(ja, "gemm_plan", plan, sizeof plan);
    cr_assert(strncmp(plan, "auto:other=", 11) == 0, "gemm_plan '%s'", plan);
    small_opts(&o, NULL, NULL, 20);
    o.gemm = plan;
    o.json = jb;
    cr_assert_eq(train_run(&o), 0, "--gemm PLAN: %s", rs_lasterr());
    meta_str(jb, "gemm_plan", pb, sizeof pb), meta_str(jb, "gemm_tune_ms", tb, sizeof tb);
    params_hash(ja, ha), params_hash(jb, hb);
    cr_expect_str_eq(pb, plan, "the run dispatched otherwise than the plan it was given");
    cr_expect(strstr(tb, "recorded plan"), "the plan was timed again: gemm_tune_ms '%s'", tb);
    cr_expect_str_eq(ha, hb, "the same plan and seed gave other parameters");
    small_opts(&o, NULL, NULL, 20);
    o.gemm = plan;
    o.cfg.bptt = 6;   /* other products */
    cr_expect_neq(train_run(&o), 0, "a plan for bptt 12 was taken at bptt 6");
    cr_expect(strstr(rs_lasterr(), "not one of this model's"), "error: %s", rs_lasterr());
}

/* blocked, plus `extra` more runs of the same product into scratch: slower, right. */
static int blocked_times(int extra, char ta, char tb, long m, long n, long k, float alpha,
                         const float *a, long lda, const float *bm, long ldb, float beta, float *c,
                         long ldc)
{
    const gemm_backend *b = &gemm_backend_blocked;
    float *scratch = malloc(sizeof(float) * (size_t)(ldc * n));
    cr_assert(scratch);
    for (int i = 0; i < extra; i++) {
        memcpy(scratch, c, sizeof(float) * (size_t)(ldc * n));
        b->sgemm(b, ta, tb, m, n, k, alpha, a, lda, bm, ldb, beta, scratch, ldc);
    }
    free(scratch);
    return b->sgemm(b, ta, tb, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc);
}

/* "openblas-pool": 9x slower on the bias sums (n = 1); "omp": 9x slower elsewhere (a
 * margin that holds on a loaded machine). */
static int pool_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                      float alpha, const float *a, long lda, const float *bm, long ldb,
                      float beta, float *c, long ldc)
{
    return blocked_times(n == 1 ? 8 : 0, ta, tb, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc);
}
static int omp_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                     float alpha, const float *a, long lda, const float *bm, long ldb,
                     float beta, float *c, long ldc)
{
    return blocked_times(n == 1 ? 0 : 8, ta, tb, m, n, k, alpha, a, lda, bm, ldb, beta, c, ldc);
}
/* One thread whatever is asked: the rule under test is ga_tune's for threads > 1, and two
 * OpenMP threads on a loaded machine time tiny products with millisecond noise. */
static void fake_threads(const gemm_backend *b, int n)
{
    (void)n;
    gemm_backend_blocked.set_threads(&gemm_backend_blocked, 1);
}

/* Right for alpha = 1 only (naive underneath, alpha ignored). */
static int fake_alpha1_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                             float alpha, const float *a, long lda, const float *bm, long ldb,
                             float beta, float *c, long ldc)
{
    return gemm_backend_naive.sgemm(&gemm_backend_naive, ta, tb, m, n, k, 1.0f, a, lda, bm, ldb,
                                    beta, c, ldc);
}

static int fake_naive_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                            float alpha, const float *a, long lda, const float *bm, long ldb,
                            float beta, float *c, long ldc)
{
    return gemm_backend_naive.sgemm(&gemm_backend_naive, ta, tb, m, n, k, alpha, a, lda, bm, ldb,
                                    beta, c, ldc);
}

/* Declines an M that is not a multiple of 16, as libxsmm declines an M without a factor
 * from the vector width to 48: the slices --gemm auto times (M rounded to 16) it takes. */
static int fake_m16_takes(const gemm_backend *b, const gemm_problem *p)
{
    RS_CHECK(p->m % 16 == 0, "fake-m16: M %ld", p->m);
    return 0;
}

/* --gemm auto judges each product as the trainer calls it: with the output layer's alpha
 * (1/N, the mean loss), and by what the backend takes at the full size.  Before, it
 * checked alpha = 1 on slices, so libxsmm was picked for products that its library
 * then handed to a missing BLAS ("LIBXSMM ERROR ... sgemm!"). */
Test(models, auto_checks_products_as_the_trainer_calls_them)
{
    static const gemm_backend alpha1 = {.name = "fake-alpha1", .what = "alpha ignored",
                                        .load = fake_load, .sgemm = fake_alpha1_sgemm};
    static const gemm_backend m16 = {.name = "fake-m16", .what = "M % 16 only", .load = fake_load,
                                     .sgemm = fake_naive_sgemm, .takes = fake_m16_takes};
    const gemm_backend *cands[3] = {&alpha1, &m16, &gemm_backend_blocked};
    cr_assert_eq(gemm_backend_blocked.load(&gemm_backend_blocked), 0);
    model_cfg c = {CELL_LSTM, 1, 24, 16, 40, 8, 5, 4};   /* G 96, N 40, 4 classes */
    ga_shape shapes[GA_MAX_SHAPES];
    int ns = ga_model_shapes(&c, shapes, GA_MAX_SHAPES), odd = 0;
    for (int i = 0; i < ns; i++) {
        int mean = strcmp(shapes[i].where, "cls") == 0 && strcmp(shapes[i].role, "fwd") != 0;
        cr_expect_eq(shapes[i].alpha, mean ? 1.0f / 40 : 1.0f, "%s %s: alpha %g", shapes[i].role,
                     shapes[i].where, shapes[i].alpha);
        odd += shapes[i].m % 16 != 0;
    }
    cr_assert(odd > 0, "no product with an M that is not a multiple of 16");
    static ga_plan p;
    p.notes[0] = 0;
    cr_assert_eq(ga_tune(shapes, ns, cands, 3, 1, &p), 0, "%s", rs_lasterr());
    cr_expect_eq(p.excluded[0], 1, "a backend wrong for alpha = 1/N passed the check");
    cr_expect(strstr(p.notes, "fake-alpha1 excluded: WRONG"), "notes: %s", p.notes);
    for (int i = 0; i < ns; i++) {
        int declined = p.shape[i].m % 16 != 0;
        cr_expect(declined ? p.ms[i][1] < 0 && p.pick[i] != &m16 : p.ms[i][1] > 0,
                  "%s %s (M %ld): fake-m16 %s", p.shape[i].role, p.shape[i].where, p.shape[i].m,
                  declined ? "judged on its slice" : "not timed");
    }
}

/* Right except with K = 1, which only the class layer's per-class word products have
 * (a class of one word, a class with one row in the window). */
static int fake_k1_sgemm(const gemm_backend *b, char ta, char tb, long m, long n, long k,
                         float alpha, const float *a, long lda, const float *bm, long ldb,
                         float beta, float *c, long ldc)
{
    return gemm_backend_naive.sgemm(&gemm_backend_naive, ta, tb, m, n, k, k == 1 ? 2 * alpha : alpha,
                                    a, lda, bm, ldb, beta, c, ldc);
}

/* The per-class word products of the class layer's split run on the fallback: they are
 * checked too, so a backend wrong on them is excluded (it used to be the fallback). */
Test(models, auto_checks_the_class_layers_word_products)
{
    static const gemm_backend k1 = {.name = "fake-k1", .what = "wrong with K = 1", .load = fake_load,
                                    .sgemm = fake_k1_sgemm};
    const gemm_backend *cands[2] = {&k1, &gemm_backend_blocked};
    cr_assert_eq(gemm_backend_blocked.load(&gemm_backend_blocked), 0);
    model_cfg c = {CELL_LSTM, 1, 24, 16, 40, 8, 5, 4};
    ga_shape shapes[GA_MAX_SHAPES];
    int ns = ga_model_shapes(&c, shapes, GA_MAX_SHAPES);
    for (int i = 0; i < ns; i++)
        cr_assert_neq(shapes[i].k, 1, "a model product with K = 1: the test needs another model");
    static ga_plan p;
    p.notes[0] = 0;
    cr_assert_eq(ga_tune(shapes, ns, cands, 2, 1, &p), 0, "%s", rs_lasterr());
    cr_expect_eq(p.excluded[0], 1, "fake-k1 not excluded");
    cr_expect(strstr(p.notes, "fake-k1 excluded: WRONG result on a per-class word product"),
              "notes: %s", p.notes);
    cr_expect(p.fallback == &gemm_backend_blocked, "fallback %s", p.fallback->name);
    /* without a class layer there is no split to check */
    c.classes = 0;
    ns = ga_model_shapes(&c, shapes, GA_MAX_SHAPES);
    p.notes[0] = 0;
    cr_assert_eq(ga_tune(shapes, ns, cands, 2, 1, &p), 0, "%s", rs_lasterr());
    cr_expect_eq(p.excluded[0], 0, "notes: %s", p.notes);
}

/* A recorded plan may name libxsmm for a product it has no kernel for (M 4: the
 * 4-class layer's bias sum; or a plan from a CPU with another vector width): the
 * trainer's call goes to the plan's fallback, right and silent. */
Test(models, auto_declined_call_takes_the_fallback, .init = cr_redirect_stderr)
{
    const gemm_backend *x = gemm_find("libxsmm");
    if (x->load(x) != 0)
        cr_skip_test("libxsmm not installed here: %s", rs_lasterr());
    model_cfg c = {CELL_LSTM, 1, 24, 16, 40, 8, 5, 4};
    cr_assert_eq(mm_init_record("auto:other=blocked;4x1x40:NN=libxsmm", &c, 1), 0, "%s", rs_lasterr());
    float dout[4 * 40], ones[40], db[4] = {0.5f, -0.25f, 0, 1};
    double want[4];
    for (int o = 0; o < 4; o++)
        want[o] = db[o];
    for (int r = 0; r < 40; r++) {
        ones[r] = 1;
        for (int o = 0; o < 4; o++) {
            dout[o + 4 * r] = (float)((r * 7 + o * 3) % 11) / 11.0f - 0.5f;
            want[o] += dout[o + 4 * r] / 40.0;
        }
    }
    mm_colsum(db, dout, ones, 40, 4, 1.0f / 40);
    /* gemm.h's residual bound: eps (|alpha| K max|A| + |beta| max|C0|), inputs <= 0.5, C0 <= 1 */
    double tol = GEMM_RESIDUAL_MAX * FLT_EPSILON * (40 * 0.5 / 40 + 1);
    for (int o = 0; o < 4; o++)
        cr_expect(fabs(db[o] - want[o]) <= tol, "db[%d] %.9g, want %.9g", o, db[o], want[o]);
    fflush(stderr);
    cr_expect_stderr_eq_str("", "a library printed on stderr");
}

/* In context (gemm_context.c): variant 0 is the per-shape plan, each other one candidate
 * alone, every product and the fallback on it; the variant kept is what the run
 * dispatches by (its record) and every variant's step time is in the plan's notes. */
Test(models, auto_variants_put_every_product_on_one_backend)
{
    model_cfg c = {CELL_LSTM, 1, 24, 16, 40, 4, 6, 0};
    cr_assert_eq(mm_init_auto(&c, 1, 0), 0, "%s", rs_lasterr());
    static char tuned[GA_RECORD_MAX];
    snprintf(tuned, sizeof tuned, "%s", mm_record());
    int n = mm_auto_variants();
    if (n == 0)
        cr_skip_test("one backend here: nothing to choose between (%s)", tuned);
    cr_assert(n >= 2 && n <= GA_MAX_CANDS + 1, "%d variants", n);
    cr_expect_str_eq(mm_variant_name(0), "per-shape");
    static ga_plan p;
    double ms[GA_MAX_CANDS + 1];
    for (int v = 0; v < n; v++) {
        mm_use_variant(v);
        ms[v] = 10 + v;
        if (v == 0) {
            cr_expect_str_eq(mm_record(), tuned, "variant 0 is not the per-shape plan");
            continue;
        }
        cr_assert_eq(ga_plan_parse(mm_record(), &p), 0, "%s", rs_lasterr());
        cr_expect_str_eq(p.fallback->name, mm_variant_name(v), "%s", mm_record());
        for (int s = 0; s < p.nshapes; s++)
            cr_expect_str_eq(p.pick[s]->name, mm_variant_name(v), "%s", mm_record());
    }
    mm_keep_variant(n - 1, ms, 2, 0.5);
    cr_assert_eq(ga_plan_parse(mm_record(), &p), 0, "%s", rs_lasterr());
    cr_expect_str_eq(p.fallback->name, mm_variant_name(n - 1), "the kept variant is not dispatched: %s", mm_record());
    char star[64];
    snprintf(star, sizeof star, " %s %.1f*", mm_variant_name(n - 1), ms[n - 1]);
    cr_expect(strstr(mm_auto_plan()->notes, "in the model's step (2 rounds, 0.5 s)") &&
                  strstr(mm_auto_plan()->notes, star),
              "notes: %s", mm_auto_plan()->notes);
}

/* One thread: each product on its fastest; with threads, never OpenBLAS (its own
 * pool) next to an OpenMP backend, whatever the gain. */
Test(models, auto_keeps_to_one_thread_pool_with_threads)
{
    static const gemm_backend pool = {.name = "openblas-pool", .what = "own pool", .load = fake_load,
                                      .set_threads = fake_threads, .sgemm = pool_sgemm};
    static const gemm_backend omp = {.name = "omp", .what = "OpenMP", .load = fake_load,
                                     .set_threads = fake_threads, .sgemm = omp_sgemm};
    const gemm_backend *cands[2] = {&pool, &omp};
    cr_assert_eq(gemm_backend_blocked.load(&gemm_backend_blocked), 0);
    model_cfg c = {CELL_ELMAN, 1, 64, 64, 256, 16, 8, 0};
    ga_shape shapes[GA_MAX_SHAPES];
    int ns = ga_model_shapes(&c, shapes, GA_MAX_SHAPES);
    static ga_plan p;
    for (int threads = 1; threads <= 2; threads++) {
        p.notes[0] = 0;
        cr_assert_eq(ga_tune(shapes, ns, cands, 2, threads, &p), 0, "%s", rs_lasterr());
        cr_expect(p.fallback == &pool, "%d threads: fallback %s", threads, p.fallback->name);
        for (int i = 0; i < ns; i++) {
            const gemm_backend *want = threads == 1 && p.shape[i].n == 1 ? &omp : &pool;
            cr_expect(p.pick[i] == want, "%d threads, %s %s: %s (%.3g vs %.3g ms)", threads,
                      p.shape[i].role, p.shape[i].where, p.pick[i]->name, p.ms[i][0], p.ms[i][1]);
        }
    }
}

/* The picks in the header (stdout), the --bench CSV's gemm column and the JSON meta. */
Test(models, auto_picks_are_reported_and_recorded)
{
    char csv[300], js[300];
    tmp_path(csv, sizeof csv, "auto-bench.csv"), tmp_path(js, sizeof js, "auto-bench.json");
    static char out[1 << 16];
    int rc = run_stdout((const char *[]){"--corpus", tiny_corpus(), "--hidden", "16", "--batch", "4",
                                         "--bptt", "6", "--threads", "1", "--bench", "2", "--csv", csv,
                                         "--json", js, NULL},
                        out, sizeof out);
    cr_assert_eq(rc, 0, "stderr: %s", run_err);
    cr_expect(strstr(out, "kernels  gemm auto:fwd="), "no picks in the header:\n%s", out);
    cr_expect(strstr(out, "gemm     auto: 10 products x "), "no timing table in the header:\n%s", out);
    rs_table *t = rs_table_read_csv(csv);
    cr_assert(t, "%s", rs_lasterr());
    int col = rs_table_col_index(t, "gemm");
    cr_assert(col >= 0 && rs_table_nrows(t) == 1);
    const char *g = rs_cell_str(t, 0, col);
    cr_expect(strncmp(g, "auto:fwd=", 9) == 0 && strstr(g, ",bwd_in=") && strstr(g, ",bwd_w=") &&
                  strstr(g, ",colsum=") && strstr(g, ",other="),
              "gemm column '%s'", g);
    char meta[512], plan[GA_RECORD_MAX];
    meta_str(js, "gemm", meta, sizeof meta);
    cr_expect_str_eq(meta, g, "CSV column and JSON meta differ");
    meta_str(js, "gemm_plan", plan, sizeof plan);
    static ga_plan p;
    cr_assert_eq(ga_plan_parse(plan, &p), 0, "gemm_plan '%s': %s", plan, rs_lasterr());
    cr_expect_eq(p.nshapes, 10);
    /* every pick is a backend named in the header's timing table */
    for (int i = -1; i < p.nshapes; i++) {
        const char *name = i < 0 ? p.fallback->name : p.pick[i]->name;
        char needle[64];
        snprintf(needle, sizeof needle, "  %s ", name);
        cr_expect(strstr(out, needle), "%s is not in the header's table", name);
        cr_expect(strcmp(name, "naive") != 0);
    }
    rs_table_free(t);
}

/* One GEMM of the trainer's, out = alpha op(a) op(b) + beta c0 with a(i, k) = a[i sai +
 * k sak] and b(k, j) = b[k sbk + j sbj] (rows x cols, K terms), run by two backends on
 * the same operands: naive (products exact in double, sums in double, one rounding to
 * float) is within u |y| + gamma^(53)_{K+2} S of the exact y, any float GEMM within
 * gamma_{K+2} S (each term: its product, K - 1 additions, alpha, the beta term's
 * addition), S = |alpha| sum_k |a||b| + |beta c0| >= |y|; so the two are within
 * (gamma_{K+2} + u + gamma^(53)_{K+2}) S of each other, in any order of the sum.
 * Returns the entries beyond; *caught counts those where a 1e-3 error would show. */
typedef struct {
    const float *a, *b;
    long sai, sak, sbk, sbj, rows, cols, K;
    float alpha, beta;
    const float *c0;   /* (rows, cols) or NULL */
} gemm_case;

static long gemm_case_check(const gemm_case *g, const float *nv, const float *on, long *caught,
                            double *worst)
{
    const double u = 0x1p-24, kk = (double)(g->K + 2);
    const double gam = kk * u / (1 - kk * u) + u + kk * 0x1p-53 / (1 - kk * 0x1p-53);
    long beyond = 0;
    for (long i = 0; i < g->rows; i++)
        for (long j = 0; j < g->cols; j++) {
            double S = 0;
            for (long k = 0; k < g->K; k++)
                S += fabs((double)g->a[i * g->sai + k * g->sak] * g->b[k * g->sbk + j * g->sbj]);
            long at = i * g->cols + j;
            S = fabs((double)g->alpha) * S + (g->c0 ? fabs((double)g->beta * g->c0[at]) : 0);
            double bound = gam * S * (1 + 1e-12), y = nv[at], d = fabs(y - on[at]);
            beyond += d > bound;
            *caught += fabs(y) * 1e-3 > bound;
            if (bound > 0)
                *worst = fmax(*worst, d / bound);
        }
    return beyond;
}

/* --gemm onednn as the trainer's backend.  The trainer's code is the same whatever the
 * backend; what differs is each product it asks for, so every GEMM kind the trainer
 * calls (input projection, recurrence and logits with their beta terms, the backward
 * to the input, the weight gradients, the bias sums), on a model's real operands, must
 * be naive's within the bound of gemm_case_check.  (A multi-step trajectory would
 * amplify rounding: the float path against the double reference is float_vs_ref's.)
 * And rnn-train's run with --gemm onednn dispatches to it. */
Test(models, onednn_trains_as_naive)
{
    need_backend("onednn");
    enum { T = 12, B = 8, H = 24, D = 16, V = 37, G = 4 * H, N = T * B };
    model_cfg c = {CELL_LSTM, 1, H, D, V, B, T, 0};
    cr_assert_eq(mm_init("naive", 1), 0, "%s", rs_lasterr());
    cr_assert_eq(output_init(), 0);
    model m;
    cr_assert_eq(model_create(&m, &c), 0, "%s", rs_lasterr());
    model_init_params(&m, 41);
    fill_inputs(&c, T, 42, m.act.inputs, m.act.targets);
    model_forward(&m, T, 1);
    model_backward(&m, T);
    const activations *a = &m.act;
    const float *Wx = m.params + m.lay.t[P_WX(0)].offset, *Wh = m.params + m.lay.t[P_WH(0)].offset;
    const float *Wo = m.params + m.lay.t[P_WOUT(1)].offset, *htop = a->h[0] + B * H;
    const float s = 1.0f / (float)N;
    static float c0g[N * G], c0v[N * V], c0h[N * H];   /* beta terms: real values */
    for (long r = 0; r < N; r++) {
        memcpy(c0g + r * G, m.params + m.lay.t[P_B(0)].offset, G * sizeof(float));
        memcpy(c0v + r * V, m.params + m.lay.t[P_BOUT(1)].offset, V * sizeof(float));
        memcpy(c0h + r * H, a->dA + r * H, H * sizeof(float));
    }
    const gemm_case cases[] = {
        {a->x0, Wx, D, 1, 1, D, N, G, D, 1, 1, c0g},            /* gates = x0 Wx^T + b */
        {a->h[0], Wh, H, 1, 1, H, N, G, H, 1, 1, a->dpre},      /* + h Wh^T (beta 1) */
        {htop, Wo, H, 1, 1, H, N, V, H, 1, 1, c0v},             /* logits */
        {a->dlogits, Wo, V, 1, H, 1, N, H, V, s, 0, NULL},      /* dH = s dlogits Wout */
        {a->dpre, Wh, G, 1, H, 1, N, H, G, 1, 1, c0h},          /* dH += dpre Wh */
        {a->dlogits, htop, 1, V, H, 1, V, H, N, s, 0, NULL},    /* dWout = s dlogits^T h */
        {a->dpre, a->x0, 1, G, D, 1, G, D, N, 1, 0, NULL},      /* dWx = dpre^T x0 */
        {a->dlogits, a->ones, 1, V, 1, 0, V, 1, N, s, 0, NULL}, /* dbout = s colsum */
    };
    static float out[2][N * G];
    long beyond = 0, caught = 0, total = 0;
    double worst = 0;
    for (int k = 0; k < RS_ARRAY_LEN(cases); k++) {
        const gemm_case *g = &cases[k];
        for (int b = 0; b < 2; b++) {
            cr_assert_eq(mm_init(b ? "onednn" : "naive", 2), 0, "%s", rs_lasterr());
            long n = g->rows * g->cols;
            if (g->c0)
                memcpy(out[b], g->c0, (size_t)n * sizeof(float));
            else
                memset(out[b], 0, (size_t)n * sizeof(float));
            if (k < 3)
                mm_forward(out[b], g->a, g->b, g->rows, g->K, g->cols, g->alpha, g->beta);
            else if (k < 5)
                mm_backward_input(out[b], g->a, g->b, g->rows, g->cols, g->K, g->alpha, g->beta);
            else if (k < 7)
                mm_backward_weight(out[b], g->a, g->b, g->K, g->cols, g->rows, g->alpha);
            else
                mm_colsum(out[b], g->a, g->b, g->K, g->rows, g->alpha);
        }
        long kb = gemm_case_check(g, out[0], out[1], &caught, &worst);
        cr_expect_eq(kb, 0, "GEMM %d (%ld x %ld, K %ld): %ld entries of onednn beyond the bound "
                     "of naive's", k, g->rows, g->cols, g->K, kb);
        beyond += kb, total += g->rows * g->cols;
    }
    cr_log_info("onednn against naive, %d GEMM kinds: %ld entries, largest |difference| / bound "
                "%.3g", RS_ARRAY_LEN(cases), total, worst);
    cr_expect(caught > total / 2, "a 1e-3 error passes as rounding in %ld of %ld entries",
              total - caught, total);
    model_destroy(&m);
    /* the trainer dispatches to it */
    char js[400];
    tmp_path(js, sizeof js, "train-onednn.json");
    train_opts o;
    small_opts(&o, NULL, NULL, 2);
    o.gemm = "onednn";
    o.json = js;
    cr_assert_eq(train_run(&o), 0, "onednn: %s", rs_lasterr());
    char used[64];
    meta_str(js, "gemm", used, sizeof used);
    cr_expect_str_eq(used, "onednn");
    cr_expect(isfinite(summary_num(js, "train_loss")));
}
