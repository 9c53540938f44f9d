/* elman.c — the Elman (tanh) cell over a BPTT window:  h_t = tanh(x_t Wx^T + h_{t-1} Wh^T + b).
 *
 * Forward: the input projection of all Tw steps is one GEMM, written straight into
 * h[1..Tw] (with the bias); then per step one (B, H) x (H, H) GEMM adds the recurrent
 * term in place and tanh (the project's exp) finishes h[t+1] — no other buffer.
 * Backward, per step from the last: dpre_t = dh_t * (1 - h_{t+1}^2), and the recurrent
 * gradient dpre_t Wh is accumulated straight into dh_{t-1} (GEMM with beta = 1; none
 * at t = 0: truncated BPTT).  Then dX of all steps is one GEMM; the weight gradients
 * (model.c, after it) are two more and a column sum. */
#include <string.h>

#include "matmul.h"
#include "model.h"
#include "pointwise.h"

static void elman_forward(model *m, int l, const float *x, int Tw) /* x (Tw, B, I) */
{
    const model_cfg *c = &m->cfg;
    long B = c->batch, H = c->hidden, I = model_layer_in(c, l), N = (long)Tw * B;
    const float *Wx = m->params + m->lay.t[P_WX(l)].offset;   /* (H, I) */
    const float *Wh = m->params + m->lay.t[P_WH(l)].offset;   /* (H, H) */
    const float *b = m->params + m->lay.t[P_B(l)].offset;     /* (H) */
    float *h = m->act.h[l];                                   /* (Tw+1, B, H) */
    for (long r = 0; r < N; r++)
        memcpy(h + (B + r) * H, b, (size_t)H * sizeof(float));
    mm_forward(h + B * H, x, Wx, N, I, H, 1.0f, 1.0f);
    for (int t = 0; t < Tw; t++) {
        float *ht = h + (t + 1) * B * H;                      /* (B, H) */
        mm_forward(ht, h + t * B * H, Wh, B, H, H, 1.0f, 1.0f);
        m->pw->tanh_inplace(ht, B * H);
        if (m->progress && l == c->layers - 1)   /* the pipeline's output stage may start */
            __atomic_store_n(m->progress, t + 1, __ATOMIC_RELEASE);
    }
}

static void elman_backward(model *m, int l, float *dH, float *dX, int Tw)
{ /* dH (Tw, B, H) clobbered; dX (Tw, B, I) or NULL; dpre left for the weight gradients */
    const model_cfg *c = &m->cfg;
    long B = c->batch, H = c->hidden, I = model_layer_in(c, l), N = (long)Tw * B;
    const float *Wx = m->params + m->lay.t[P_WX(l)].offset;   /* (H, I) */
    const float *Wh = m->params + m->lay.t[P_WH(l)].offset;   /* (H, H) */
    const float *h = m->act.h[l];                             /* (Tw+1, B, H) */
    float *dpre = m->act.dpre;                                /* (Tw, B, H) */
    for (int t = Tw - 1; t >= 0; t--) {
        const float *ht = h + (t + 1) * B * H;
        const float *dh = dH + t * B * H;
        float *dp = dpre + t * B * H;
#pragma omp simd
        for (long i = 0; i < B * H; i++)
            dp[i] = dh[i] * (1.0f - ht[i] * ht[i]);
        if (t > 0)
            mm_backward_input(dH + (t - 1) * B * H, dp, Wh, B, H, H, 1.0f, 1.0f);
    }
    if (dX)
        mm_backward_input(dX, dpre, Wx, N, I, H, 1.0f, 0.0f);
}

const cell_ops cell_elman = {"elman", CELL_ELMAN, elman_forward, elman_backward};
