/* ref.c — the double-precision reference model (ref.h).  Everything is a plain loop
 * over (t, b, j); buffers are allocated per call (this is the oracle, not the
 * trainer). */
#include "ref.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double sigm(double x) { return 1.0 / (1.0 + exp(-x)); }

/* y (o) = W (o, i) x (i) + y */
static void matvec_acc(double *y, const double *W, const double *x, int o, int i)
{
    for (int r = 0; r < o; r++) {
        double s = 0;
        for (int k = 0; k < i; k++)
            s += W[(long)r * i + k] * x[k];
        y[r] += s;
    }
}

/* dx (i) += W^T (i, o) dy (o);  dW (o, i) += dy x^T */
static void matvec_back(double *dx, double *dW, const double *W, const double *x,
                        const double *dy, int o, int i)
{
    for (int r = 0; r < o; r++)
        for (int k = 0; k < i; k++) {
            if (dx)
                dx[k] += W[(long)r * i + k] * dy[r];
            dW[(long)r * i + k] += dy[r] * x[k];
        }
}

/* z (n) := softmax(z); returns -log of entry `target` before the normalization. */
static double softmax_nll(double *z, int n, int target)
{
    double mx = z[0], s = 0;
    for (int v = 1; v < n; v++)
        mx = z[v] > mx ? z[v] : mx;
    for (int v = 0; v < n; v++)
        s += exp(z[v] - mx);
    double nll = mx + log(s) - z[target];
    for (int v = 0; v < n; v++)
        z[v] = exp(z[v] - mx) / s;
    return nll;
}

/* One call's inputs, sizes and buffers.  Per layer: h and cs (Tw+1, B, H), act (Tw, B, G)
 * (the activations; LSTM i f g o); prob (Tw, B, V) and probc (Tw, B, C) the softmaxes,
 * then their gradients; dh like h. */
typedef struct {
    const model_cfg *c;
    const param_layout *lay;
    const double *p;
    double *g;
    const int *inputs, *targets;
    const class_map *cm;
    int Tw, B, H, D, V, L, C, G, lstm;
    long TB;
    double *h, *cs, *act, *prob, *probc, *dh;
} ref_run;

static double *h_at(const ref_run *r, int l, int t, int b)
{
    return r->h + (((long)l * (r->Tw + 1) + t) * r->B + b) * r->H;
}
static double *c_at(const ref_run *r, int l, int t, int b)
{
    return r->cs + (((long)l * (r->Tw + 1) + t) * r->B + b) * r->H;
}
static double *act_at(const ref_run *r, int l, int t, int b)
{
    return r->act + (((long)l * r->Tw + t) * r->B + b) * r->G;
}
static double *dh_at(const ref_run *r, int l, int t, int b)
{
    return r->dh + (((long)l * (r->Tw + 1) + t) * r->B + b) * r->H;
}
static const double *param(const ref_run *r, int tensor) { return r->p + r->lay->t[tensor].offset; }
static double *grad(const ref_run *r, int tensor) { return r->g + r->lay->t[tensor].offset; }

/* Layer l's input at step t: the embedding row of the token, or the layer below's h. */
static const double *layer_input(const ref_run *r, int l, int t, int b)
{
    return l == 0 ? param(r, P_EMBED) + (long)r->inputs[t * r->B + b] * r->D : h_at(r, l - 1, t + 1, b);
}

static void set_initial_state(ref_run *r, const double *h0, const double *c0)
{
    for (int l = 0; l < r->L; l++)
        for (int b = 0; b < r->B; b++)
            for (int j = 0; j < r->H; j++) {
                h_at(r, l, 0, b)[j] = h0 ? h0[((long)l * r->B + b) * r->H + j] : 0;
                c_at(r, l, 0, b)[j] = c0 && r->lstm ? c0[((long)l * r->B + b) * r->H + j] : 0;
            }
}

/* Layer l, step t, stream b: the pre-activations, the cell, h (and c). */
static void cell_forward(ref_run *r, int l, int t, int b)
{
    int H = r->H, G = r->G, I = model_layer_in(r->c, l);
    double *a = act_at(r, l, t, b);
    memcpy(a, param(r, P_B(l)), (size_t)G * sizeof(double));
    matvec_acc(a, param(r, P_WX(l)), layer_input(r, l, t, b), G, I);
    matvec_acc(a, param(r, P_WH(l)), h_at(r, l, t, b), G, H);
    double *hn = h_at(r, l, t + 1, b);
    if (!r->lstm) {
        for (int j = 0; j < H; j++)
            hn[j] = a[j] = tanh(a[j]);
        return;
    }
    double *cn = c_at(r, l, t + 1, b);
    const double *cp = c_at(r, l, t, b);
    for (int j = 0; j < H; j++) {
        double i = sigm(a[j]), f = sigm(a[H + j]), gg = tanh(a[2 * H + j]), o = sigm(a[3 * H + j]);
        a[j] = i, a[H + j] = f, a[2 * H + j] = gg, a[3 * H + j] = o;
        cn[j] = f * cp[j] + i * gg;
        hn[j] = o * tanh(cn[j]);
    }
}

/* -log p of the target at (t, b) added to *loss (class and word terms one by one, the
 * order of the sum kept), leaving the softmax in prob (and probc). */
static void add_token_loss(ref_run *r, int t, int b, double *loss)
{
    int L = r->L, H = r->H, V = r->V, C = r->C;
    const double *Wo = param(r, P_WOUT(L)), *bo = param(r, P_BOUT(L));
    long row = (long)t * r->B + b;
    double *z = r->prob + row * V;
    int tg = r->targets[t * r->B + b];
    if (!C) {
        memcpy(z, bo, (size_t)V * sizeof(double));
        matvec_acc(z, Wo, h_at(r, L - 1, t + 1, b), V, H);
        *loss += softmax_nll(z, V, tg);
        return;
    }
    /* class, then the word within its class (out.w rows in class order) */
    const class_map *cm = r->cm;
    double *zc = r->probc + row * C;
    memcpy(zc, param(r, P_BCLS(L)), (size_t)C * sizeof(double));
    matvec_acc(zc, param(r, P_WCLS(L)), h_at(r, L - 1, t + 1, b), C, H);
    int k = cm->of[tg], o = cm->off[k], S = cm->off[k + 1] - o;
    *loss += softmax_nll(zc, C, k);
    memcpy(z, bo + o, (size_t)S * sizeof(double));
    matvec_acc(z, Wo + (long)o * H, h_at(r, L - 1, t + 1, b), S, H);
    *loss += softmax_nll(z, S, cm->pos[tg] - o);
}

/* The mean loss over the window. */
static double forward(ref_run *r)
{
    for (int t = 0; t < r->Tw; t++)
        for (int b = 0; b < r->B; b++)
            for (int l = 0; l < r->L; l++)
                cell_forward(r, l, t, b);
    double loss = 0;
    for (int t = 0; t < r->Tw; t++)
        for (int b = 0; b < r->B; b++)
            add_token_loss(r, t, b, &loss);
    return loss / (double)r->TB;
}

/* The output layer's gradients at (t, b), and its gradient into the top layer's dh. */
static void token_backward(ref_run *r, int t, int b)
{
    int L = r->L, H = r->H, V = r->V, C = r->C;
    long TB = r->TB, row = (long)t * r->B + b;
    const double *Wo = param(r, P_WOUT(L));
    double *dWo = grad(r, P_WOUT(L)), *dbo = grad(r, P_BOUT(L));
    double *pr = r->prob + row * V, *dh = dh_at(r, L - 1, t + 1, b);
    const double *h = h_at(r, L - 1, t + 1, b);
    int tg = r->targets[t * r->B + b];
    if (!C) {
        pr[tg] -= 1.0;
        for (int v = 0; v < V; v++)
            pr[v] /= (double)TB;
        for (int v = 0; v < V; v++)
            dbo[v] += pr[v];
        matvec_back(dh, dWo, Wo, h, pr, V, H);
        return;
    }
    const class_map *cm = r->cm;
    double *dbc = grad(r, P_BCLS(L)), *pc = r->probc + row * C;
    int k = cm->of[tg], o = cm->off[k], S = cm->off[k + 1] - o;
    pc[k] -= 1.0;
    for (int j = 0; j < C; j++) {
        pc[j] /= (double)TB;
        dbc[j] += pc[j];
    }
    matvec_back(dh, grad(r, P_WCLS(L)), param(r, P_WCLS(L)), h, pc, C, H);
    pr[cm->pos[tg] - o] -= 1.0;
    for (int j = 0; j < S; j++) {
        pr[j] /= (double)TB;
        dbo[o + j] += pr[j];
    }
    matvec_back(dh, dWo + (long)o * H, Wo + (long)o * H, h, pr, S, H);
}

/* dpre (G) of layer l at (t, b) from dh; the LSTM's running dc (B, H) of the layer is
 * carried one step back. */
static void cell_backward(ref_run *r, int l, int t, int b, double *dc, double *dpre)
{
    int H = r->H;
    const double *a = act_at(r, l, t, b), *dhn = dh_at(r, l, t + 1, b);
    if (!r->lstm) {
        for (int j = 0; j < H; j++)
            dpre[j] = dhn[j] * (1 - a[j] * a[j]);
        return;
    }
    double *dcl = dc + ((long)l * r->B + b) * H;
    const double *cn = c_at(r, l, t + 1, b), *cp = c_at(r, l, t, b);
    for (int j = 0; j < H; j++) {
        double i = a[j], f = a[H + j], gg = a[2 * H + j], o = a[3 * H + j];
        double tcn = tanh(cn[j]);
        double dcc = dcl[j] + dhn[j] * o * (1 - tcn * tcn);
        dpre[j] = dcc * gg * i * (1 - i);
        dpre[H + j] = dcc * cp[j] * f * (1 - f);
        dpre[2 * H + j] = dcc * i * (1 - gg * gg);
        dpre[3 * H + j] = dhn[j] * tcn * o * (1 - o);
        dcl[j] = dcc * f;
    }
}

/* Layer l at (t, b): the weight gradients, and dpre into the state below and before. */
static void layer_backward(ref_run *r, int l, int t, int b, const double *dpre, double *dx)
{
    int G = r->G, H = r->H, I = model_layer_in(r->c, l);
    double *db = grad(r, P_B(l));
    for (int j = 0; j < G; j++)
        db[j] += dpre[j];
    /* recurrent: into dh of step t (h[t] is the previous output), except the carried
     * state (t == 0): truncated BPTT */
    matvec_back(t > 0 ? dh_at(r, l, t, b) : NULL, grad(r, P_WH(l)), param(r, P_WH(l)),
                h_at(r, l, t, b), dpre, G, H);
    memset(dx, 0, (size_t)I * sizeof(double));
    matvec_back(dx, grad(r, P_WX(l)), param(r, P_WX(l)), layer_input(r, l, t, b), dpre, G, I);
    double *d = l > 0 ? dh_at(r, l - 1, t + 1, b)
                      : grad(r, P_EMBED) + (long)r->inputs[t * r->B + b] * r->D;
    for (int k = 0; k < I; k++)
        d[k] += dx[k];
}

/* The gradient of the mean loss into r->g (forward() ran). */
static void backward(ref_run *r)
{
    int L = r->L, B = r->B, H = r->H, D = r->D;
    memset(r->g, 0, (size_t)r->lay->total * sizeof(double));
    r->dh = calloc((size_t)L * (r->Tw + 1) * B * H, sizeof(double));
    double *dc = calloc((size_t)L * B * H, sizeof(double));   /* running, per layer */
    double *dpre = calloc((size_t)r->G, sizeof(double));
    double *dx = calloc((size_t)(D > H ? D : H), sizeof(double));
    for (int t = 0; t < r->Tw; t++)
        for (int b = 0; b < B; b++)
            token_backward(r, t, b);
    for (int t = r->Tw - 1; t >= 0; t--)
        for (int l = L - 1; l >= 0; l--)
            for (int b = 0; b < B; b++) {
                cell_backward(r, l, t, b, dc, dpre);
                layer_backward(r, l, t, b, dpre, dx);
            }
    free(r->dh);
    free(dc);
    free(dpre);
    free(dx);
}

double ref_loss_grad(const model_cfg *c, const param_layout *lay, const double *p, double *g,
                     const int *inputs, const int *targets, int Tw, const double *h0,
                     const double *c0)
{
    return ref_loss_grad_cls(c, lay, p, g, inputs, targets, Tw, h0, c0, NULL);
}

double ref_loss_grad_cls(const model_cfg *c, const param_layout *lay, const double *p, double *g,
                         const int *inputs, const int *targets, int Tw, const double *h0,
                         const double *c0, const class_map *cm)
{
    ref_run r = {.c = c, .lay = lay, .p = p, .g = g, .inputs = inputs, .targets = targets,
                 .cm = cm, .Tw = Tw, .B = c->batch, .H = c->hidden, .D = c->embed,
                 .V = c->vocab, .L = c->layers, .C = cm ? c->classes : 0,
                 .G = model_gates(c) * c->hidden, .lstm = c->cell == CELL_LSTM,
                 .TB = (long)Tw * c->batch};
    size_t states = (size_t)r.L * (Tw + 1) * r.B * r.H;
    r.h = calloc(states, sizeof(double));
    r.cs = calloc(states, sizeof(double));
    r.act = calloc((size_t)r.L * r.TB * r.G, sizeof(double));
    r.prob = calloc((size_t)r.TB * r.V, sizeof(double));
    r.probc = calloc((size_t)r.TB * (r.C ? r.C : 1), sizeof(double));
    set_initial_state(&r, h0, c0);
    double loss = forward(&r);
    if (g)
        backward(&r);
    free(r.h);
    free(r.cs);
    free(r.act);
    free(r.prob);
    free(r.probc);
    return loss;
}
