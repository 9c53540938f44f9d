/* matmul.c — row-major products on gemm.h's column-major sgemm (see matmul.h), and
 * the dispatch: one backend, or auto's table looked up by the call's shape.
 *
 * Row-major X (R, C) is column-major X^T (C x R) with leading dimension C.  So:
 * each call below says which column-major product it is. */
#define _GNU_SOURCE
#include "matmul.h"

#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "gemm.h"
#include "pipeline.h"
#include "timer.h"

static const gemm_backend *be;   /* the one backend, or auto's fallback */
static ga_plan plan;             /* auto: the table (read-only once set: re-entrant) */
static int is_auto;
static char label[512], record[GA_RECORD_MAX], dispatch[256];
static int threads_now = 1;      /* the backends' thread count (mm_set_threads) */
static pthread_t owner;          /* the thread that set it */
static int have_owner;

#define NAMES "auto, openblas, blis, onednn, blocked or naive"

int mm_check_name(const char *name)
{
    if (name && strncmp(name, "auto:", 5) == 0) {   /* a recorded plan: its names */
        static ga_plan p;
        char why[256];
        if (ga_plan_parse(name, &p) == 0)
            return 0;
        snprintf(why, sizeof why, "%s", rs_lasterr());
        RS_CHECK(0, "--gemm: %s (a plan is what summary.json's gemm_plan holds, e.g. "
                 "'auto:other=blis;512x140x128:TN=onednn')", why);
    }
    RS_CHECK(!name || strcmp(name, "auto") == 0 || gemm_find(name),
          "--gemm: unknown backend '%s' (expected " NAMES ", or a recorded plan 'auto:other=...')", name);
    return 0;
}

/* The distinct backends in use (the fallback first); returns the count. */
static int in_use(const gemm_backend **out)
{
    int n = 0;
    if (be)
        out[n++] = be;
    for (int i = 0; is_auto && i < plan.nshapes; i++) {
        int seen = 0;
        for (int j = 0; j < n; j++)
            seen |= out[j] == plan.pick[i];
        if (!seen)
            out[n++] = plan.pick[i];
    }
    return n;
}

/* Threads, the label and the dispatch line, after the choice. */
static void settle(int threads)
{
    mm_set_threads(threads);
    const gemm_backend *u[GA_MAX_SHAPES + 1];
    int n = in_use(u);
    if (!is_auto) {
        snprintf(label, sizeof label, "%s", be->name);
        snprintf(record, sizeof record, "%s", be->name);
        snprintf(dispatch, sizeof dispatch, "%s", be->dispatch ? be->dispatch(be) : "");
        return;
    }
    ga_plan_label(&plan, label, sizeof label);
    RS_ASSERT(ga_plan_format(&plan, record, sizeof record) == 0);
    size_t used = 0;
    dispatch[0] = 0;
    for (int i = 0; i < n && used < sizeof dispatch; i++)
        used += (size_t)snprintf(dispatch + used, sizeof dispatch - used, "%s%s %s", i ? "; " : "",
                                 u[i]->name, u[i]->dispatch ? u[i]->dispatch(u[i]) : "");
}

int mm_init(const char *name, int threads)
{
    const gemm_backend *b;
    ga_load_threads = threads;
    if (!name) {
        b = gemm_find("openblas");
        if (!b || ga_load(b) != 0)
            b = gemm_find("blocked");
    } else {
        RS_CHECK(strcmp(name, "auto") != 0, "--gemm auto needs the model's shapes (mm_init_auto)");
        if (mm_check_name(name) != 0)
            return -1;
        b = gemm_find(name);
    }
    RS_CHECK(ga_load(b) == 0, "--gemm %s: %s", b->name, rs_lasterr());
    RS_CHECK(b->trans_unsupported == 0, "--gemm %s: it cannot do the transposed products the "
          "model needs (use " NAMES ")", b->name);
    be = b;
    is_auto = 0;
    settle(threads);
    return 0;
}

int mm_init_auto(const model_cfg *c, int threads, int reentrant)
{
    uint64_t t0 = rs_now_ns();
    ga_load_threads = threads;
    const gemm_backend *cand[GA_MAX_CANDS];
    ga_shape shapes[GA_MAX_SHAPES];
    is_auto = 0;
    be = NULL;
    plan.notes[0] = 0;
    int nc = ga_candidates(reentrant, cand, GA_MAX_CANDS, plan.notes, sizeof plan.notes);
    int ns = ga_model_shapes(c, shapes, GA_MAX_SHAPES);
    if (ga_tune(shapes, ns, cand, nc, threads, &plan) != 0)
        return -1;
    plan.tune_ms = (double)(rs_now_ns() - t0) * 1e-6;
    be = plan.fallback;
    is_auto = 1;
    settle(threads);
    return 0;
}

/* ---- auto in context: the per-shape plan against each candidate alone ---- */

static ga_plan tuned;                                   /* the per-shape plan */
static const gemm_backend *variant[GA_MAX_CANDS + 1];   /* [0] NULL: tuned */
static int nvariants;

int mm_auto_variants(void)
{
    nvariants = 0;
    if (!be || !is_auto || plan.ncand == 0)   /* a recorded plan: nothing to choose */
        return 0;
    tuned = plan;
    variant[nvariants++] = NULL;
    const gemm_backend *u[GA_MAX_SHAPES + 1];
    int nu = in_use(u);
    for (int c = 0; c < plan.ncand; c++) {
        const gemm_backend *b = plan.cand[c];
        if (plan.excluded[c] || b->trans_unsupported || (nu == 1 && u[0] == b))
            continue;   /* failed the check, cannot do every product, or is the plan */
        variant[nvariants++] = b;
    }
    return nvariants > 1 ? nvariants : 0;
}

const char *mm_variant_name(int i) { return variant[i] ? variant[i]->name : "per-shape"; }

void mm_use_variant(int i)
{
    RS_ASSERT(i >= 0 && i < nvariants);
    plan = tuned;
    if (variant[i]) {
        for (int s = 0; s < plan.nshapes; s++)
            plan.pick[s] = variant[i];
        plan.fallback = variant[i];
    }
    be = plan.fallback;
    settle(threads_now);
}

void mm_keep_variant(int i, const double *ms, int rounds, double seconds)
{
    mm_use_variant(i);
    size_t used = strlen(plan.notes);
    used += (size_t)snprintf(plan.notes + used, sizeof plan.notes - used,
                             "%sin the model's step (%d round%s, %.1f s), ms, the least of the rounds:",
                             used ? "\n" : "", rounds, rounds > 1 ? "s" : "", seconds);
    for (int v = 0; v < nvariants && used < sizeof plan.notes; v++)
        used += (size_t)snprintf(plan.notes + used, sizeof plan.notes - used, " %s %.1f%s",
                                 mm_variant_name(v), ms[v], v == i ? "*" : "");
}

/* A record's plan with the shapes' roles and places from model c; nothing loaded.
 * A shape that is none of c's (a plan from another batch or size) fails. */
static int parse_record(const char *rec, const model_cfg *c, ga_plan *p)
{
    if (ga_plan_parse(rec, p) != 0)
        return -1;
    ga_shape shapes[GA_MAX_SHAPES];
    int ns = ga_model_shapes(c, shapes, GA_MAX_SHAPES);
    for (int i = 0; i < p->nshapes; i++) {
        ga_shape *s = &p->shape[i];
        int found = 0;
        for (int j = 0; j < ns && !found; j++) {
            const ga_shape *t = &shapes[j];
            if (s->ta == t->ta && s->tb == t->tb && s->m == t->m && s->n == t->n && s->k == t->k)
                *s = *t, found = 1;
        }
        RS_CHECK(found, "the plan's product %ldx%ldx%ld:%c%c is not one of this model's (a plan "
                 "from another --batch, --bptt, --hidden or --classes?)", s->m, s->n, s->k, s->ta, s->tb);
    }
    return 0;
}

int mm_init_record(const char *rec, const model_cfg *c, int threads)
{
    if (strncmp(rec, "auto:", 5) != 0)
        return mm_init(rec, threads);
    ga_plan p;
    ga_load_threads = threads;
    if (parse_record(rec, c, &p) != 0)
        return -1;
    for (int i = -1; i < p.nshapes; i++) {   /* every backend it names must load here */
        const gemm_backend *b = i < 0 ? p.fallback : p.pick[i];
        RS_CHECK(ga_load(b) == 0, "%s cannot run here: %s", b->name, rs_lasterr());
    }
    p.threads = threads;
    plan = p;
    be = plan.fallback;
    is_auto = 1;
    settle(threads);
    return 0;
}

void mm_record_label(const char *rec, const model_cfg *c, char *buf, size_t len)
{
    ga_plan p;
    if (strncmp(rec, "auto:", 5) != 0)
        snprintf(buf, len, "%s", rec);
    else if (parse_record(rec, c, &p) == 0)
        ga_plan_label(&p, buf, len);
    else
        snprintf(buf, len, "%.60s...", rec);
}

static void set_backends(int threads)
{
    const gemm_backend *u[GA_MAX_SHAPES + 1];
    int n = in_use(u);
    for (int i = 0; i < n; i++)
        if (u[i]->set_threads)
            u[i]->set_threads(u[i], threads);
}

void mm_set_threads(int threads)
{
    set_backends(threads);
    threads_now = threads;
    owner = pthread_self();
    have_owner = 1;
}

int mm_split_begin(void)
{
    if (threads_now <= 1 || !have_owner || !pthread_equal(owner, pthread_self()) ||
        omp_in_parallel() || !be || !be->reentrant)
        return 1;
    /* oneDNN and libxsmm take their count from this thread's OpenMP setting: the
     * caller's region names its threads (num_threads(n)), and mm_split_end restores it */
    set_backends(1);
    return threads_now;
}

void mm_split_end(int n)
{
    if (n > 1)
        set_backends(n);
}

const char *mm_backend_name(void) { return be ? label : "none"; }
const char *mm_record(void) { return be ? record : ""; }
const ga_plan *mm_auto_plan(void) { return be && is_auto ? &plan : NULL; }
const char *mm_dispatch(void) { return be ? dispatch : ""; }

int mm_reentrant(void)
{
    const gemm_backend *u[GA_MAX_SHAPES + 1];
    int n = in_use(u), ok = n > 0;
    for (int i = 0; i < n; i++)
        ok &= pipeline_backend_ok(u[i]->name);
    return ok;
}

/* word: a class's word product (mm_word), which always takes the fallback */
static void sgemm(int word, char ta, char tb, long m, long n, long k, float alpha, const float *a,
                  long lda, const float *b, long ldb, float beta, float *c, long ldc)
{
    if (m == 0 || n == 0)
        return;
    const gemm_backend *g = is_auto && !word ? ga_lookup(&plan, ta, tb, m, n, k) : be;
    if (!g->reentrant && omp_in_parallel())   /* a split loop (mm_split_begin): the fallback */
        g = be;
    int rc = g->sgemm(g, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    /* a pick that declines this call (C untouched: libxsmm without a kernel for a plan
     * recorded on another CPU, or a per-class word product of a plan's shape) goes to the
     * fallback, which the plan checked on every product */
    if (rc != 0 && g != be)
        rc = be->sgemm(be, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    RS_ASSERT(rc == 0);
}

/* out^T (O x N) = W (stored I x O col-major, so 'T') * inp^T (I x N). */
static void forward(int word, float *out, const float *inp, const float *w, long N, long I, long O,
                    float alpha, float beta)
{
    sgemm(word, 'T', 'N', O, N, I, alpha, w, I, inp, I, beta, out, O);
}

/* dinp^T (I x N) = W^T (I x O: W stored col-major I x O, 'N') * dout^T (O x N). */
static void backward_input(int word, float *dinp, const float *dout, const float *w, long N, long I,
                           long O, float alpha, float beta)
{
    sgemm(word, 'N', 'N', I, N, O, alpha, w, I, dout, O, beta, dinp, I);
}

/* dW^T (I x O) += inp^T (I x N) * dout (N x O: dout^T stored O x N, 'T'). */
static void backward_weight(int word, float *dw, const float *dout, const float *inp, long N, long I,
                            long O, float alpha)
{
    sgemm(word, 'N', 'T', I, O, N, alpha, inp, I, dout, O, 1.0f, dw, I);
}

void mm_forward(float *out, const float *inp, const float *w, long N, long I, long O, float alpha,
                float beta)
{
    forward(0, out, inp, w, N, I, O, alpha, beta);
}

void mm_backward_input(float *dinp, const float *dout, const float *w, long N, long I, long O,
                       float alpha, float beta)
{
    backward_input(0, dinp, dout, w, N, I, O, alpha, beta);
}

void mm_backward_weight(float *dw, const float *dout, const float *inp, long N, long I, long O,
                        float alpha)
{
    backward_weight(0, dw, dout, inp, N, I, O, alpha);
}

void mm_word(mm_op op, float *c, const float *x, const float *w, long N, long I, long O, float alpha,
             float beta)
{
    if (op == MM_FORWARD)
        forward(1, c, x, w, N, I, O, alpha, beta);
    else if (op == MM_BACKWARD_INPUT)
        backward_input(1, c, x, w, N, I, O, alpha, beta);
    else
        backward_weight(1, c, x, w, N, I, O, alpha);
}

/* db (O x 1) += dout^T (O x N, col-major with ld O) * ones (N x 1). */
void mm_colsum(float *db, const float *dout, const float *ones, long N, long O, float alpha)
{
    sgemm(0, 'N', 'N', O, 1, N, alpha, dout, O, ones, N, 1.0f, db, O);
}
