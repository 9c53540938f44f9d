/* test_models_cells.c — the recurrent cells (Elman, LSTM) and their kernels against
 * references (models/ref.c, libm).
 *
 *  - the double-precision reference model's gradient against centred finite
 *    differences, for every parameter tensor of Elman and LSTM, 1 and 2 layers, and
 *    both output layers (full softmax, class-factorized): relative error < 1e-5;
 *  - the float path (GEMM layer, fused point-wise kernels, xent kernel) against the
 *    reference: the loss and every gradient tensor, on each GEMM backend installed;
 *  - the point-wise kernels of each ISA against libm in double.
 * Runs from the repository root (`make test`). */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "matmul.h"
#include "model.h"
#include "pointwise.h"
#include "ref.h"
#include "rng.h"
#include "models_support.h"

/* ---- tolerances, stated once ----
 * GRADCHECK_REL: centred differences in double with step GRADCHECK_EPS have a
 *   truncation error ~eps^2 |f'''| / 6 and a rounding error ~2e-16 |loss| / eps
 *   ~ 1e-12 (loss ~ 2): measured here 1.3e-6 relative at worst, on entries as small
 *   as 4e-7 (with eps 1e-5 the rounding error alone is 2.4e-5 of such an entry).  An
 *   entry is judged by |a - n| <= GRADCHECK_REL max(|a|, |n|) + GRADCHECK_ABS (the
 *   absolute floor only covers entries that are zero up to rounding).  A wrong term
 *   in a backward formula is off by O(1) relative.
 * FLOAT_REL: the float path rounds every product and sum to float (2^-24 ~ 6e-8),
 *   its exp is within 1 ULP and tanh = 1 - 2/(e^2x + 1) loses up to ~1e-7 absolute
 *   near 0; sums run over at most V or T*B terms here: a tensor's max abs deviation
 *   from the reference must be below FLOAT_REL times its largest entry (measured
 *   here: at most 5e-7, with every GEMM backend). */
#define GRADCHECK_EPS 1e-4
#define GRADCHECK_REL 1e-5
#define GRADCHECK_ABS 1e-12
#define FLOAT_REL 1e-5

/* ---- gradient check of the reference ---- */

static void gradcheck(cell_kind cell, int layers, int classes)
{
    model_cfg c = {cell, layers, 5, 4, 7, 2, 3, classes};   /* H 5, D 4, V 7, B 2, T 3 */
    param_layout lay;
    model_layout(&c, &lay);
    class_map cm = {0}, *cmp = NULL;
    if (classes) {
        long counts[7];
        test_counts(counts, 7);
        cr_assert_eq(class_map_build(&cm, counts, 7, classes), 0, "%s", rs_lasterr());
        cmp = &cm;
    }
    double *p = calloc((size_t)lay.total, sizeof *p), *g = calloc((size_t)lay.total, sizeof *g);
    double h0[MODEL_MAX_LAYERS * 2 * 5], c0[MODEL_MAX_LAYERS * 2 * 5];
    int in[6], tg[6];
    fill_params(&lay, 11, p);
    fill_state(&c, 12, h0, c0);
    fill_inputs(&c, 3, 13, in, tg);
    ref_loss_grad_cls(&c, &lay, p, g, in, tg, 3, h0, c0, cmp);
    double all_worst = 0;
    for (int k = 0; k < lay.n; k++) {
        const param_info *t = &lay.t[k];
        double worst = 0, gmax = 0;
        for (long i = t->offset; i < t->offset + t->rows * t->cols; i++) {
            double save = p[i];
            p[i] = save + GRADCHECK_EPS;
            double lp = ref_loss_grad_cls(&c, &lay, p, NULL, in, tg, 3, h0, c0, cmp);
            p[i] = save - GRADCHECK_EPS;
            double lm = ref_loss_grad_cls(&c, &lay, p, NULL, in, tg, 3, h0, c0, cmp);
            p[i] = save;
            double num = (lp - lm) / (2 * GRADCHECK_EPS);
            double err = fabs(g[i] - num) /
                         (GRADCHECK_REL * fmax(fabs(g[i]), fabs(num)) + GRADCHECK_ABS);
            worst = fmax(worst, err);
            gmax = fmax(gmax, fabs(num));
        }
        cr_expect(gmax > 1e-6, "%s %s: gradient of %s is all zero (not exercised)",
                  model_cell(cell)->name, layers == 1 ? "1 layer" : "2 layers", t->name);
        cr_expect(worst <= 1.0, "%s, %d layers: %s: error %.3g x the tolerance",
                  model_cell(cell)->name, layers, t->name, worst);
        all_worst = fmax(all_worst, worst);
    }
    cr_log_info("gradcheck %s %d layers: worst entry at %.2g of the tolerance",
                model_cell(cell)->name, layers, all_worst);
    class_map_free(&cm);
    free(p);
    free(g);
}

Test(models, gradcheck_elman_1layer) { gradcheck(CELL_ELMAN, 1, 0); }
Test(models, gradcheck_elman_2layers) { gradcheck(CELL_ELMAN, 2, 0); }
Test(models, gradcheck_lstm_1layer) { gradcheck(CELL_LSTM, 1, 0); }
Test(models, gradcheck_lstm_2layers) { gradcheck(CELL_LSTM, 2, 0); }
/* the class-factorized output layer (3 classes of the 7 words): cls.w, cls.b, out.w, out.b */
Test(models, gradcheck_elman_classes) { gradcheck(CELL_ELMAN, 1, 3); }
Test(models, gradcheck_lstm_classes) { gradcheck(CELL_LSTM, 1, 3); }

/* ---- the float path against the reference ---- */

/* The small model of these tests (H 13 and D 11: one full AVX2 vector and a tail; V 37,
 * B 4), on the GEMM backend gemm, its class map from test_counts. */
static void small_model(model *m, model_cfg *c, cell_kind cell, int layers, int classes, const char *gemm)
{
    *c = (model_cfg){cell, layers, 13, 11, 37, 4, 5, classes};
    cr_assert_eq(mm_init(gemm, 1), 0, "%s", rs_lasterr());
    cr_assert_eq(output_init(), 0);
    cr_assert_eq(model_create(m, c), 0, "%s", rs_lasterr());
    long counts[37];
    test_counts(counts, 37);
    cr_assert_eq(model_set_classes(m, counts), 0, "%s", rs_lasterr());
}

static void float_vs_ref_c(cell_kind cell, int layers, const char *gemm, int Tw, int classes)
{
    need_backend(gemm);
    model_cfg c;
    model m;
    small_model(&m, &c, cell, layers, classes, gemm);   /* T*B = 20 rows */
    double *p = calloc((size_t)m.lay.total, sizeof *p), *g = calloc((size_t)m.lay.total, sizeof *g);
    double h0[MODEL_MAX_LAYERS * 4 * 13], c0[MODEL_MAX_LAYERS * 4 * 13];
    fill_params(&m.lay, 21, p);
    fill_state(&c, 22, h0, c0);
    fill_inputs(&c, Tw, 23, m.act.inputs, m.act.targets);
    for (long i = 0; i < m.lay.total; i++)
        m.params[i] = (float)p[i];
    for (long i = 0; i < (long)layers * 4 * 13; i++) {
        m.state_h[i] = (float)h0[i];
        m.state_c[i] = (float)c0[i];
    }
    double ref = ref_loss_grad_cls(&c, &m.lay, p, g, m.act.inputs, m.act.targets, Tw, h0, c0,
                                   classes ? &m.cls : NULL);
    double loss = model_forward(&m, Tw, 1) / (Tw * c.batch);
    model_backward(&m, Tw);
    cr_expect(fabs(loss - ref) <= 1e-5 * fabs(ref), "%s: loss %.9g, reference %.9g", gemm, loss, ref);
    double worst = 0;
    for (int k = 0; k < m.lay.n; k++) {
        const param_info *t = &m.lay.t[k];
        double dev = 0, gmax = 0;
        for (long i = t->offset; i < t->offset + t->rows * t->cols; i++) {
            dev = fmax(dev, fabs(m.grads[i] - g[i]));
            gmax = fmax(gmax, fabs(g[i]));
        }
        cr_expect(dev <= FLOAT_REL * gmax, "%s %d layers, gemm %s, Tw %d: %s deviates %.3g (max %.3g)",
                  model_cell(cell)->name, layers, gemm, Tw, t->name, dev, gmax);
        worst = fmax(worst, dev / gmax);
    }
    cr_log_info("%s %d layers, gemm %s: loss rel err %.2g, worst gradient tensor dev/max %.2g",
                model_cell(cell)->name, layers, gemm, fabs(loss - ref) / ref, worst);
    /* carry: the state after the window is h[Tw] */
    model_carry(&m, Tw);
    cr_expect(memcmp(m.state_h, m.act.h[0] + (long)Tw * 4 * 13, 4 * 13 * sizeof(float)) == 0);
    model_destroy(&m);
    free(p);
    free(g);
}

static void float_vs_ref(cell_kind cell, int layers, const char *gemm, int Tw)
{
    float_vs_ref_c(cell, layers, gemm, Tw, 0);
}

Test(models, float_vs_ref_elman) { float_vs_ref(CELL_ELMAN, 1, "blocked", 5); }
Test(models, float_vs_ref_lstm_classes) { float_vs_ref_c(CELL_LSTM, 1, "openblas", 5, 6); }
Test(models, float_vs_ref_elman_2layers_classes) { float_vs_ref_c(CELL_ELMAN, 2, "blocked", 4, 5); }
Test(models, float_vs_ref_elman_2layers) { float_vs_ref(CELL_ELMAN, 2, "openblas", 5); }
Test(models, float_vs_ref_lstm) { float_vs_ref(CELL_LSTM, 1, "openblas", 5); }
Test(models, float_vs_ref_lstm_2layers_short_window) { float_vs_ref(CELL_LSTM, 2, "blocked", 3); }
Test(models, float_vs_ref_lstm_2layers_naive_gemm) { float_vs_ref(CELL_LSTM, 2, "naive", 5); }
Test(models, float_vs_ref_lstm_onednn) { float_vs_ref(CELL_LSTM, 1, "onednn", 5); }
Test(models, float_vs_ref_elman_2layers_classes_onednn) { float_vs_ref_c(CELL_ELMAN, 2, "onednn", 4, 5); }
Test(models, float_vs_ref_lstm_2layers_short_window_blis) { float_vs_ref(CELL_LSTM, 2, "blis", 3); }

/* ---- the order the backward makes the gradient final (the bucketed exchange's) ----
 * model_backward tells its hook the ranges of model_backward_events, in order, each
 * final when told: a copy taken in the hook equals the gradient at the end.  The
 * ranges tile the layout, the embedding's comes before layer 0's Wx and Wh, and the
 * flops grow to the whole backward (two thirds of model_step_flops). */
typedef struct {
    const model *m;
    grad_event heard[MODEL_MAX_EVENTS];
    int n;
    float *copy;
} hook_log;

static void hear(void *ctx, long from, long to)
{
    hook_log *h = ctx;
    cr_assert_lt(h->n, MODEL_MAX_EVENTS, "more ranges than model_backward_events gives");
    h->heard[h->n++] = (grad_event){from, to, 0};
    memcpy(h->copy + from, h->m->grads + from, (size_t)(to - from) * sizeof(float));
}

static void ranges_final(cell_kind cell, int layers, int classes)
{
    model_cfg c;
    model m;
    small_model(&m, &c, cell, layers, classes, "blocked");
    model_init_params(&m, 5);
    fill_inputs(&c, 5, 23, m.act.inputs, m.act.targets);
    hook_log h = {&m, {{0}}, 0, calloc((size_t)m.lay.total, sizeof(float))};
    m.grad_ready = hear, m.grad_ready_ctx = &h;
    model_forward(&m, 5, 1);
    model_backward(&m, 5);
    grad_event ev[MODEL_MAX_EVENTS];
    int n = model_backward_events(&c, &m.lay, 5, ev);
    cr_assert_eq(h.n, n, "%d ranges heard, %d in model_backward_events", h.n, n);
    long covered = 0;
    for (int k = 0; k < n; k++) {
        cr_expect(h.heard[k].from == ev[k].from && h.heard[k].to == ev[k].to, "range %d: heard [%ld, %ld), "
                  "events say [%ld, %ld)", k, h.heard[k].from, h.heard[k].to, ev[k].from, ev[k].to);
        cr_expect(k == 0 || ev[k].flops >= ev[k - 1].flops, "range %d: flops fall", k);
        cr_expect(model_backward_flops_ready(&c, &m.lay, 5, ev[k].from) == ev[k].flops);
        covered += ev[k].to - ev[k].from;
    }
    cr_expect_eq(covered, m.lay.total, "the ranges cover %ld of %ld floats", covered, m.lay.total);
    cr_expect(ev[n - 3].from == 0 && ev[n - 2].from == m.lay.t[P_WX(0)].offset &&
              ev[n - 1].from == m.lay.t[P_WH(0)].offset,
              "the embedding's range is not the one before layer 0's Wx, then Wh");
    cr_expect(fabs(ev[n - 1].flops - model_step_flops(&c, 5) * 2 / 3) <= 1e-9 * ev[n - 1].flops);
    cr_expect(memcmp(h.copy, m.grads, (size_t)m.lay.total * sizeof(float)) == 0,
              "a range changed after the hook was told it was final");
    free(h.copy);
    model_destroy(&m);
}

Test(models, backward_ranges_final_lstm) { ranges_final(CELL_LSTM, 1, 0); }
Test(models, backward_ranges_final_elman_2layers_classes) { ranges_final(CELL_ELMAN, 2, 5); }
Test(models, backward_ranges_final_lstm_3layers) { ranges_final(CELL_LSTM, 3, 0); }

/* ---- point-wise kernels against libm ---- */

static void check_pointwise(const pointwise_kernels *k)
{
    enum { B = 3, H = 21 };
    float gates[B * 4 * H], cp[B * H], c[B * H], tc[B * H], h[B * H], pre[B * 4 * H];
    for (int i = 0; i < B * 4 * H; i++)   /* +-12 with a few saturating +-100 */
        pre[i] = gates[i] = (float)(i % 17 == 0 ? 100.0 * rng_sym(3, 1, (uint64_t)i)
                                                : 12.0 * rng_sym(3, 2, (uint64_t)i));
    for (int i = 0; i < B * H; i++)
        cp[i] = (float)(3.0 * rng_sym(3, 3, (uint64_t)i));
    k->lstm_fwd(gates, cp, c, tc, h, B, H);
    double worst = 0;
    for (int b = 0; b < B; b++)
        for (int j = 0; j < H; j++) {
            const float *pr = pre + b * 4 * H;
            double i = 1 / (1 + exp(-(double)pr[j])), f = 1 / (1 + exp(-(double)pr[H + j]));
            double g = tanh((double)pr[2 * H + j]), o = 1 / (1 + exp(-(double)pr[3 * H + j]));
            double cn = f * cp[b * H + j] + i * g, hn = o * tanh(cn);
            worst = fmax(worst, fabs(gates[b * 4 * H + j] - i));
            worst = fmax(worst, fabs(gates[b * 4 * H + 2 * H + j] - g));
            worst = fmax(worst, fabs(c[b * H + j] - cn) / fmax(1, fabs(cn)));
            worst = fmax(worst, fabs(h[b * H + j] - hn));
        }
    cr_expect(worst < 1e-6, "%s: lstm_fwd max error %.3g", k->name, worst);
    float x[37], y[37];
    for (int i = 0; i < 37; i++)
        x[i] = y[i] = (float)(20.0 * rng_sym(4, 1, (uint64_t)i));
    k->tanh_inplace(y, 37);
    for (int i = 0; i < 37; i++)
        cr_expect(fabs(y[i] - tanh((double)x[i])) < 1e-6, "%s: tanh(%g) = %g", k->name, x[i], y[i]);
    float nan_in[40];   /* NaN in a full vector of every width and in a tail */
    for (int i = 0; i < 40; i++)
        nan_in[i] = i % 19 == 3 ? (i & 1 ? -NAN : NAN) : (float)i;
    k->tanh_inplace(nan_in, 40);
    for (int i = 0; i < 40; i++)
        cr_expect(isnan(nan_in[i]) == (i % 19 == 3), "%s: tanh(%s) gave %g (NaN must stay NaN: "
                  "divergence is detected)", k->name, i % 19 == 3 ? "NaN" : "a number", nan_in[i]);
}

/* Each ISA's kernels; one this CPU lacks is skipped by name. */
ParameterizedTestParameters(models, pointwise_each_isa)
{
    static int idx[] = {0, 1, 2};
    return cr_make_param_array(int, idx, 3);
}

ParameterizedTest(int *k, models, pointwise_each_isa)
{
    const pointwise_kernels *pk = pointwise_all[*k];
    if (!rs_isa_supported(pk->isa))
        cr_skip_test("point-wise %s: this CPU lacks %s", pk->name, rs_isa_name(pk->isa));
    check_pointwise(pk);
}
