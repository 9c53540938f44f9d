/* lstm.c — the LSTM cell over a BPTT window (gates i, f, g, o stacked in one (4H, .)
 * matrix):
 *   [i f g o]_pre = x_t Wx^T + h_{t-1} Wh^T + b
 *   i, f, o = sigmoid(.),  g = tanh(.),  c_t = f c_{t-1} + i g,  h_t = o tanh(c_t)
 *
 * Forward: the four gates' input projection for all Tw steps is ONE GEMM,
 * (Tw B, I) x (I, 4H); per step ONE (B, H) x (H, 4H) GEMM adds the recurrent term;
 * the point-wise math of a step is one fused pass (pointwise.h: the non-linearities
 * with the project's exp, the cell update and the output; the activations overwrite
 * the pre-activations).  Backward, per step from the last:
 *   dO = dh tanh(c);  dc += dh o (1 - tanh(c)^2);
 *   dI = dc g;  dG = dc i;  dF = dc c_{t-1};  dc_{t-1} = dc f;
 *   dpre = [dI i(1-i), dF f(1-f), dG (1-g^2), dO o(1-o)];
 * the recurrent gradient dpre_t Wh is accumulated straight into dh_{t-1} (none at
 * t = 0: truncated BPTT); then dX of all steps is one GEMM, and the weight gradients
 * (model.c, after it) two more and a column sum (Appleyard et al. 2016's recipe). */
#include <string.h>

#include "matmul.h"
#include "model.h"
#include "pointwise.h"

static void lstm_forward(model *m, int l, const float *x, int Tw) /* x (Tw, B, I) */
{
    const model_cfg *c = &m->cfg;
    long B = c->batch, H = c->hidden, G = 4 * H, I = model_layer_in(c, l), N = (long)Tw * B;
    const float *Wx = m->params + m->lay.t[P_WX(l)].offset;   /* (4H, I) */
    const float *Wh = m->params + m->lay.t[P_WH(l)].offset;   /* (4H, H) */
    const float *b = m->params + m->lay.t[P_B(l)].offset;     /* (4H) */
    activations *a = &m->act;
    float *gates = a->gates[l];                               /* (Tw, B, 4H) */
    for (long r = 0; r < N; r++)
        memcpy(gates + r * G, b, (size_t)G * sizeof(float));
    mm_forward(gates, x, Wx, N, I, G, 1.0f, 1.0f);
    for (int t = 0; t < Tw; t++) {
        float *gt = gates + t * B * G;                        /* (B, 4H) */
        const float *hprev = a->h[l] + t * B * H;             /* (B, H) */
        mm_forward(gt, hprev, Wh, B, H, G, 1.0f, 1.0f);
        m->pw->lstm_fwd(gt, a->c[l] + t * B * H, a->c[l] + (t + 1) * B * H,
                        a->tc[l] + t * B * H, a->h[l] + (t + 1) * B * H, (int)B, (int)H);
        if (m->progress && l == c->layers - 1)   /* the pipeline's output stage may start */
            __atomic_store_n(m->progress, t + 1, __ATOMIC_RELEASE);
    }
}

static void lstm_backward(model *m, int l, float *dH, float *dX, int Tw)
{ /* dH (Tw, B, H) clobbered; dX (Tw, B, I) or NULL; dpre left for the weight gradients */
    const model_cfg *c = &m->cfg;
    long B = c->batch, H = c->hidden, G = 4 * H, I = model_layer_in(c, l), N = (long)Tw * B;
    const float *Wx = m->params + m->lay.t[P_WX(l)].offset;   /* (4H, I) */
    const float *Wh = m->params + m->lay.t[P_WH(l)].offset;   /* (4H, H) */
    activations *a = &m->act;
    float *dpre = a->dpre;                                    /* (Tw, B, 4H) */
    float *dc = a->dc_next;                                   /* (B, H) */
    memset(dc, 0, (size_t)(B * H) * sizeof(float));
    for (int t = Tw - 1; t >= 0; t--) {
        const float *gt = a->gates[l] + t * B * G;            /* (B, 4H) i f g o */
        const float *tc = a->tc[l] + t * B * H;               /* (B, H) */
        const float *cp = a->c[l] + t * B * H;                /* (B, H) c_{t-1} */
        const float *dh = dH + t * B * H;                     /* (B, H) */
        float *dp = dpre + t * B * G;                         /* (B, 4H) */
        for (long b = 0; b < B; b++) {
            const float *ig = gt + b * G, *fg = ig + H, *gg = fg + H, *og = gg + H;
            float *di = dp + b * G, *df = di + H, *dg = df + H, *dO = dg + H;
            const float *tcb = tc + b * H, *cpb = cp + b * H, *dhb = dh + b * H;
            float *dcb = dc + b * H;
            /* element-wise (the arrays do not overlap): simd only widens it, each
             * element's operations and their order unchanged (no FMA in this file) */
#pragma omp simd
            for (long j = 0; j < H; j++) {
                float o = og[j], tj = tcb[j], i = ig[j], f = fg[j], g = gg[j];
                float dcc = dcb[j] + dhb[j] * o * (1.0f - tj * tj);
                dO[j] = dhb[j] * tj * o * (1.0f - o);
                di[j] = dcc * g * i * (1.0f - i);
                df[j] = dcc * cpb[j] * f * (1.0f - f);
                dg[j] = dcc * i * (1.0f - g * g);
                dcb[j] = dcc * f;
            }
        }
        if (t > 0)
            mm_backward_input(dH + (t - 1) * B * H, dp, Wh, B, H, G, 1.0f, 1.0f);
    }
    if (dX)
        mm_backward_input(dX, dpre, Wx, N, I, G, 1.0f, 0.0f);
}

const cell_ops cell_lstm = {"lstm", CELL_LSTM, lstm_forward, lstm_backward};
