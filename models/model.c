/* model.c — the stack: parameters' initial values, the cell table, and forward/backward
 * through embedding -> layers -> output (see model.h; the layout: model_layout.c). */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bigmem.h"
#include "check.h"
#include "matmul.h"
#include "pointwise.h"
#include "registry.h"
#include "rng.h"

/* ---- cells: one row per cell file ---- */
static const cell_ops *const cells[] = {&cell_elman, &cell_lstm};

const cell_ops *model_cell(cell_kind k)
{
    for (int i = 0; i < RS_ARRAY_LEN(cells); i++)
        if (cells[i]->kind == k)
            return cells[i];
    return NULL;
}

static const rs_registry cell_registry = RS_REGISTRY_PTRS(cells, cell_ops, name);

int model_cell_from_name(const char *name, cell_kind *out)
{
    const cell_ops *c = rs_registry_find(&cell_registry, name, RS_REGISTRY_ANY_ISA);
    if (!c)
        return -1;
    *out = c->kind;
    return 0;
}

/* Every size one window's arrays and products index must fit an int (BLAS's, and the
 * kernels' loops), whatever the flags; said in the flags' terms. */
int model_cfg_check(const model_cfg *c, long workers)
{
    const double lim = 2147483647.0;
    double B = c->batch, T = c->bptt, V = c->vocab, H = c->hidden;
    double G = (double)model_gates(c) * H, streams = B * (double)workers;
    RS_CHECK(streams <= lim, "--batch %d x --workers %ld: %.3g streams, expected at most %.0f "
             "(e.g. a smaller --batch or --workers)", c->batch, workers, streams, lim);
    RS_CHECK(streams * T <= lim, "--batch %d x --workers %ld x --bptt %d: %.3g tokens per window, "
             "expected at most %.0f (e.g. a smaller --batch or --bptt)", c->batch, workers,
             c->bptt, streams * T, lim);
    RS_CHECK(B * T * V <= lim, "--batch %d x --bptt %d x --vocab %d: %.3g output scores per window, "
             "expected at most %.0f (e.g. a smaller --batch, --bptt or --vocab)", c->batch, c->bptt,
             c->vocab, B * T * V, lim);
    RS_CHECK(B * T * G <= lim, "--batch %d x --bptt %d x --hidden %d: %.3g gate values per layer "
             "and window, expected at most %.0f (e.g. a smaller --batch, --bptt or --hidden)",
             c->batch, c->bptt, c->hidden, B * T * G, lim);
    double params = V * (c->embed + H + 1) + c->classes * (H + 1);
    for (int l = 0; l < c->layers; l++)
        params += G * (model_layer_in(c, l) + H + 1);
    RS_CHECK(params <= lim, "--vocab %d, --hidden %d, --embed %d, --layers %d: %.3g parameters, "
             "expected at most %.0f (e.g. a smaller --vocab or --hidden)", c->vocab, c->hidden,
             c->embed, c->layers, params, lim);
    return 0;
}

/* Multiply-adds per token: layer l's two products, and the output layer's (with classes,
 * the class layer and a class of the average size V / C). */
static double layer_macs(const model_cfg *c, int l)
{
    return (double)model_gates(c) * c->hidden * (model_layer_in(c, l) + c->hidden);
}

static double output_macs(const model_cfg *c)
{
    if (c->classes > 0)
        return c->hidden * (c->classes + (double)c->vocab / c->classes);
    return (double)c->hidden * c->vocab;
}

double model_step_flops(const model_cfg *c, int Tw)
{
    double N = (double)Tw * c->batch, f = 0;
    for (int l = 0; l < c->layers; l++)
        f += 6 * N * layer_macs(c, l);
    return f + 6 * N * output_macs(c);
}

int model_backward_events(const model_cfg *c, const param_layout *lay, int Tw, grad_event *ev)
{
    double N = (double)Tw * c->batch, f = 4 * N * output_macs(c);
    double G = (double)model_gates(c) * c->hidden;
    int n = 0;
    ev[n++] = (grad_event){lay->t[P_WOUT(c->layers)].offset, lay->total, f};
    for (int l = c->layers - 1; l >= 0; l--) {
        f += 2 * N * layer_macs(c, l);   /* BPTT's recurrent products and dX */
        if (l == 0)
            ev[n++] = (grad_event){0, lay->t[P_WX(0)].offset, f};
        f += 2 * N * G * model_layer_in(c, l);   /* dWx */
        ev[n++] = (grad_event){lay->t[P_WX(l)].offset, lay->t[P_WH(l)].offset, f};
        f += 2 * N * G * c->hidden;   /* dWh (and db, no GEMM) */
        ev[n++] = (grad_event){lay->t[P_WH(l)].offset, lay->t[P_B(l) + 1].offset, f};
    }
    return n;
}

double model_backward_flops_ready(const model_cfg *c, const param_layout *lay, int Tw, long offset)
{
    grad_event ev[MODEL_MAX_EVENTS];
    int n = model_backward_events(c, lay, Tw, ev);
    for (int k = 0; k < n; k++)
        if (offset >= ev[k].from && offset < ev[k].to)
            return ev[k].flops;
    return ev[n - 1].flops;
}

int model_create(model *m, const model_cfg *cfg)
{
    memset(m, 0, sizeof *m);
    m->cfg = *cfg;
    RS_CHECK(cfg->layers >= 1 && cfg->layers <= MODEL_MAX_LAYERS, "--layers %d: expected 1..%d",
          cfg->layers, MODEL_MAX_LAYERS);
    if (model_cfg_check(cfg, 1) != 0)
        return -1;
    model_layout(cfg, &m->lay);
    size_t pbytes = (size_t)m->lay.total * sizeof(float);
    size_t sbytes = (size_t)cfg->layers * cfg->batch * cfg->hidden * sizeof(float);
    m->params = train_big_alloc(pbytes);
    m->grads = train_big_alloc(pbytes);
    m->state_h = train_big_alloc(sbytes);
    m->state_c = train_big_alloc(sbytes);
    m->saved_h = train_big_alloc(sbytes);
    m->saved_c = train_big_alloc(sbytes);
    if (!m->params || !m->grads || !m->state_h || !m->state_c || !m->saved_h || !m->saved_c) {
        model_destroy(m);
        RS_CHECK(0, "cannot allocate %.1f MiB of parameters", 2 * pbytes / 1048576.0);
    }
    if (arena_create(&m->arena, &m->act, cfg) != 0) {
        model_destroy(m);
        return -1;
    }
    m->pw = pointwise_best();
    return 0;
}

int model_set_classes(model *m, const long *counts)
{
    class_map_free(&m->cls);
    if (m->cfg.classes <= 0)
        return 0;
    return class_map_build(&m->cls, counts, m->cfg.vocab, m->cfg.classes);
}

void model_destroy(model *m)
{
    train_big_free(m->params);
    train_big_free(m->grads);
    train_big_free(m->state_h);
    train_big_free(m->state_c);
    train_big_free(m->saved_h);
    train_big_free(m->saved_c);
    arena_destroy(&m->arena);
    class_map_free(&m->cls);
    m->params = m->grads = m->state_h = m->state_c = m->saved_h = m->saved_c = NULL;
}

void model_init_params(model *m, uint64_t seed)
{
    const model_cfg *c = &m->cfg;
    double rec = 1.0 / sqrt((double)c->hidden);
    for (int k = 0; k < m->lay.n; k++) {
        const param_info *t = &m->lay.t[k];
        float *p = m->params + t->offset;
        long n = t->rows * t->cols;
        int is_bias = t->rows == 1;
        double scale = k == P_EMBED || k >= P_WOUT(c->layers) ? 0.1 : rec;
        for (long i = 0; i < n; i++)
            p[i] = is_bias ? 0.0f : (float)(scale * rng_sym(seed, (uint64_t)k, (uint64_t)i));
        if (is_bias && c->cell == CELL_LSTM && k < P_WOUT(c->layers))
            for (long i = c->hidden; i < 2L * c->hidden; i++)
                p[i] = 1.0f;   /* forget gate */
    }
}

void model_reset_state(model *m)
{
    size_t n = (size_t)m->cfg.layers * m->cfg.batch * m->cfg.hidden;
    memset(m->state_h, 0, n * sizeof(float));
    memset(m->state_c, 0, n * sizeof(float));
}

/* ---- forward / backward through the stack ---- */

double model_forward(model *m, int Tw, int train)
{
    return output_forward(m, model_forward_layers(m, Tw), Tw, train);
}

const float *model_forward_layers(model *m, int Tw)
{
    const model_cfg *c = &m->cfg;
    activations *a = &m->act;
    long B = c->batch, H = c->hidden, D = c->embed;
    const cell_ops *cell = model_cell(c->cell);
    /* embedding: x0 (Tw, B, D) */
    const float *E = m->params + m->lay.t[P_EMBED].offset;   /* (V, D) */
    for (long r = 0; r < Tw * B; r++)
        memcpy(a->x0 + r * D, E + (long)a->inputs[r] * D, (size_t)D * sizeof(float));
    const float *x = a->x0;
    for (int l = 0; l < c->layers; l++) {
        memcpy(a->h[l], m->state_h + l * B * H, (size_t)(B * H) * sizeof(float));
        if (c->cell == CELL_LSTM)
            memcpy(a->c[l], m->state_c + l * B * H, (size_t)(B * H) * sizeof(float));
        cell->forward(m, l, x, Tw);
        x = a->h[l] + B * H;   /* h[1..Tw] feeds the next layer */
    }
    return x;
}

static void ready(model *m, const grad_event *e)
{
    if (m->grad_ready)
        m->grad_ready(m->grad_ready_ctx, e->from, e->to);
}

/* Layer l's weight gradients from act.dpre (the cell's backward) and its input x, each
 * tensor told as it is final (events ev[0], ev[1]). */
static void weight_grads(model *m, int l, const float *x, int Tw, const grad_event *ev)
{
    const model_cfg *c = &m->cfg;
    long N = (long)Tw * c->batch, H = c->hidden, G = (long)model_gates(c) * H, I = model_layer_in(c, l);
    float *g = m->grads;
    mm_backward_weight(g + m->lay.t[P_WX(l)].offset, m->act.dpre, x, N, I, G, 1.0f);
    ready(m, &ev[0]);
    mm_backward_weight(g + m->lay.t[P_WH(l)].offset, m->act.dpre, m->act.h[l], N, H, G, 1.0f);
    mm_colsum(g + m->lay.t[P_B(l)].offset, m->act.dpre, m->act.ones, N, G, 1.0f);
    ready(m, &ev[1]);
}

void model_backward(model *m, int Tw)
{
    const model_cfg *c = &m->cfg;
    activations *a = &m->act;
    long B = c->batch, H = c->hidden, D = c->embed;
    int L = c->layers, k = 0;
    const cell_ops *cell = model_cell(c->cell);
    grad_event ev[MODEL_MAX_EVENTS];
    model_backward_events(c, &m->lay, Tw, ev);
    memset(m->grads, 0, (size_t)m->lay.total * sizeof(float));
    float *dH = a->dA, *dX = a->dB;   /* (Tw, B, H), (Tw, B, I) */
    output_backward(m, a->h[L - 1] + B * H, dH, Tw);
    ready(m, &ev[k++]);
    for (int l = L - 1; l >= 0; l--) {
        cell->backward(m, l, dH, dX, Tw);
        if (l == 0) {   /* dX is d x0 (Tw, B, D): scatter it into the embedding rows */
            float *dE = m->grads + m->lay.t[P_EMBED].offset;   /* (V, D) */
            for (long r = 0; r < Tw * B; r++) {
                float *row = dE + (long)a->inputs[r] * D;
                const float *g = dX + r * D;
                for (long j = 0; j < D; j++)
                    row[j] += g[j];
            }
            ready(m, &ev[k++]);
        }
        weight_grads(m, l, l == 0 ? a->x0 : a->h[l - 1] + B * H, Tw, &ev[k]);
        k += 2;
        float *t = dH;
        dH = dX, dX = t;   /* this layer's dX is the next one's dH */
    }
}

void model_carry(model *m, int Tw)
{
    const model_cfg *c = &m->cfg;
    long BH = (long)c->batch * c->hidden;
    for (int l = 0; l < c->layers; l++) {
        memcpy(m->state_h + l * BH, m->act.h[l] + Tw * BH, (size_t)BH * sizeof(float));
        if (c->cell == CELL_LSTM)
            memcpy(m->state_c + l * BH, m->act.c[l] + Tw * BH, (size_t)BH * sizeof(float));
    }
}
