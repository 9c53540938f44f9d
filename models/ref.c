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
    int C = cm ? c->classes : 0;
    int B = c->batch, H = c->hidden, D = c->embed, V = c->vocab, L = c->layers;
    int lstm = c->cell == CELL_LSTM, G = model_gates(c) * H;
    long TB = (long)Tw * B;
    /* per layer: h (Tw+1, B, H), cs (Tw+1, B, H), act (Tw, B, G) */
    double *h = calloc((size_t)L * (Tw + 1) * B * H, sizeof(double));
    double *cs = calloc((size_t)L * (Tw + 1) * B * H, sizeof(double));
    double *act = calloc((size_t)L * TB * G, sizeof(double));
    double *prob = calloc((size_t)TB * V, sizeof(double));
    double *probc = calloc((size_t)TB * (C ? C : 1), sizeof(double));   /* classes */
#define HH(l, t, b) (h + (((long)(l) * (Tw + 1) + (t)) * B + (b)) * H)
#define CC(l, t, b) (cs + (((long)(l) * (Tw + 1) + (t)) * B + (b)) * H)
#define AA(l, t, b) (act + (((long)(l) * Tw + (t)) * B + (b)) * G)
    const double *E = p + lay->t[P_EMBED].offset;
    for (int l = 0; l < L; l++)
        for (int b = 0; b < B; b++)
            for (int j = 0; j < H; j++) {
                HH(l, 0, b)[j] = h0 ? h0[((long)l * B + b) * H + j] : 0;
                CC(l, 0, b)[j] = c0 && lstm ? c0[((long)l * B + b) * H + j] : 0;
            }

    /* ---- forward ---- */
    for (int t = 0; t < Tw; t++)
        for (int b = 0; b < B; b++)
            for (int l = 0; l < L; l++) {
                int I = model_layer_in(c, l);
                const double *x = l == 0 ? E + (long)inputs[t * B + b] * D : HH(l - 1, t + 1, b);
                const double *Wx = p + lay->t[P_WX(l)].offset, *Wh = p + lay->t[P_WH(l)].offset;
                double *a = AA(l, t, b);
                memcpy(a, p + lay->t[P_B(l)].offset, (size_t)G * sizeof(double));
                matvec_acc(a, Wx, x, G, I);
                matvec_acc(a, Wh, HH(l, t, b), G, H);
                double *hn = HH(l, t + 1, b);
                if (!lstm) {
                    for (int j = 0; j < H; j++)
                        hn[j] = a[j] = tanh(a[j]);
                    continue;
                }
                double *cn = CC(l, t + 1, b);
                const double *cp = CC(l, t, b);
                for (int j = 0; j < H; j++) {
                    double i = sigm(a[j]), f = sigm(a[H + j]), gg = tanh(a[2 * H + j]),
                           o = sigm(a[3 * H + j]);
                    a[j] = i, a[H + j] = f, a[2 * H + j] = gg, a[3 * H + j] = o;
                    cn[j] = f * cp[j] + i * gg;
                    hn[j] = o * tanh(cn[j]);
                }
            }
    const double *Wo = p + lay->t[P_WOUT(L)].offset, *bo = p + lay->t[P_BOUT(L)].offset;
    double loss = 0;
    for (int t = 0; t < Tw; t++)
        for (int b = 0; b < B; b++) {
            long r = (long)t * B + b;
            double *z = prob + r * V;
            int tg = targets[t * B + b];
            if (C) {   /* class, then the word within its class (out.w rows in class order) */
                const double *Wc = p + lay->t[P_WCLS(L)].offset, *bc = p + lay->t[P_BCLS(L)].offset;
                double *zc = probc + r * C;
                memcpy(zc, bc, (size_t)C * sizeof(double));
                matvec_acc(zc, Wc, HH(L - 1, t + 1, b), C, H);
                int k = cm->of[tg], o = cm->off[k], S = cm->off[k + 1] - o;
                loss += softmax_nll(zc, C, k);
                memcpy(z, bo + o, (size_t)S * sizeof(double));
                matvec_acc(z, Wo + (long)o * H, HH(L - 1, t + 1, b), S, H);
                loss += softmax_nll(z, S, cm->pos[tg] - o);
                continue;
            }
            memcpy(z, bo, (size_t)V * sizeof(double));
            matvec_acc(z, Wo, HH(L - 1, t + 1, b), V, H);
            loss += softmax_nll(z, V, tg);
        }
    loss /= (double)TB;
    if (!g)
        goto done;

    /* ---- backward ---- */
    memset(g, 0, (size_t)lay->total * sizeof(double));
    double *dh = calloc((size_t)L * (Tw + 1) * B * H, sizeof(double));  /* like h */
    double *dc = calloc((size_t)L * B * H, sizeof(double));             /* running, per layer */
    double *dpre = calloc((size_t)G, sizeof(double));
    double *dx = calloc((size_t)(D > H ? D : H), sizeof(double));
#define DH(l, t, b) (dh + (((long)(l) * (Tw + 1) + (t)) * B + (b)) * H)
    double *dWo = g + lay->t[P_WOUT(L)].offset, *dbo = g + lay->t[P_BOUT(L)].offset;
    for (int t = 0; t < Tw; t++)
        for (int b = 0; b < B; b++) {
            long r = (long)t * B + b;
            double *pr = prob + r * V;
            int tg = targets[t * B + b];
            if (C) {
                const double *Wc = p + lay->t[P_WCLS(L)].offset;
                double *dWc = g + lay->t[P_WCLS(L)].offset, *dbc = g + lay->t[P_BCLS(L)].offset;
                double *pc = probc + r * C;
                int k = cm->of[tg], o = cm->off[k], S = cm->off[k + 1] - o;
                pc[k] -= 1.0;
                for (int j = 0; j < C; j++) {
                    pc[j] /= (double)TB;
                    dbc[j] += pc[j];
                }
                matvec_back(DH(L - 1, t + 1, b), dWc, Wc, HH(L - 1, t + 1, b), pc, C, H);
                pr[cm->pos[tg] - o] -= 1.0;
                for (int j = 0; j < S; j++) {
                    pr[j] /= (double)TB;
                    dbo[o + j] += pr[j];
                }
                matvec_back(DH(L - 1, t + 1, b), dWo + (long)o * H, Wo + (long)o * H,
                            HH(L - 1, t + 1, b), pr, S, H);
                continue;
            }
            pr[tg] -= 1.0;
            for (int v = 0; v < V; v++)
                pr[v] /= (double)TB;
            for (int v = 0; v < V; v++)
                dbo[v] += pr[v];
            matvec_back(DH(L - 1, t + 1, b), dWo, Wo, HH(L - 1, t + 1, b), pr, V, H);
        }
    for (int t = Tw - 1; t >= 0; t--)
        for (int l = L - 1; l >= 0; l--)
            for (int b = 0; b < B; b++) {
                int I = model_layer_in(c, l);
                const double *x = l == 0 ? E + (long)inputs[t * B + b] * D : HH(l - 1, t + 1, b);
                const double *Wx = p + lay->t[P_WX(l)].offset, *Wh = p + lay->t[P_WH(l)].offset;
                double *dWx = g + lay->t[P_WX(l)].offset, *dWh = g + lay->t[P_WH(l)].offset;
                double *db = g + lay->t[P_B(l)].offset;
                const double *a = AA(l, t, b), *dhn = DH(l, t + 1, b);
                if (!lstm) {
                    for (int j = 0; j < H; j++)
                        dpre[j] = dhn[j] * (1 - a[j] * a[j]);
                } else {
                    double *dcl = dc + ((long)l * B + b) * H;
                    const double *cn = CC(l, t + 1, b), *cp = CC(l, t, b);
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
                for (int j = 0; j < G; j++)
                    db[j] += dpre[j];
                /* recurrent: into dh of step t (h[t] is the previous output), except the
                 * carried state (t == 0): truncated BPTT */
                matvec_back(t > 0 ? DH(l, t, b) : NULL, dWh, Wh, HH(l, t, b), dpre, G, H);
                memset(dx, 0, (size_t)I * sizeof(double));
                matvec_back(dx, dWx, Wx, x, dpre, G, I);
                if (l > 0) {
                    double *d = DH(l - 1, t + 1, b);
                    for (int k = 0; k < I; k++)
                        d[k] += dx[k];
                } else {
                    double *dE = g + lay->t[P_EMBED].offset + (long)inputs[t * B + b] * D;
                    for (int k = 0; k < D; k++)
                        dE[k] += dx[k];
                }
            }
    free(dh);
    free(dc);
    free(dpre);
    free(dx);
done:
    free(h);
    free(cs);
    free(act);
    free(prob);
    free(probc);
    return loss;
}
