/* output.c — the full-softmax output layer over the whole BPTT window.
 *
 * Forward: logits (N, V) = htop (N, H) Wout^T + bout, N = Tw*B, as ONE GEMM (the
 * GPU study's "output layer batched over the window"), then the project's fused
 * log-softmax + cross-entropy kernel (kernels/softmax, variant xent) which in one
 * sweep gives each row's loss and dlogits = softmax - onehot.  The kernel works row by
 * row, so the rows are split over the OpenMP threads (each chunk is a plain call).
 * Evaluation calls the forward-only kernel (xent_loss), which reads the logits once.
 *
 * Backward of the mean loss (1/N folded into the GEMMs' alpha, no extra pass):
 *   dWout (V, H) = dlogits^T htop / N,  dbout = colsum(dlogits) / N,
 *   dH (N, H) = dlogits Wout / N. */
#include <omp.h>
#include <string.h>

#include "check.h"
#include "matmul.h"
#include "model.h"
#include "softmax.h"

static const softmax_variant *xent;

int output_init(void)
{
    xent = NULL;
    for (int isa = rs_isa_best(); isa >= 0 && !xent; isa--)
        xent = softmax_find("xent", (rs_isa)isa);
    RS_CHECK(xent, "no xent softmax kernel compiled in");
    return 0;
}

const char *output_kernel_name(void) { return xent ? rs_isa_name(xent->isa) : "none"; }
const softmax_variant *output_xent_kernel(void)
{
    if (!xent)
        output_init();
    return xent;
}

double output_forward(model *m, const float *htop, int Tw, int train)
{
    const model_cfg *c = &m->cfg;
    activations *a = &m->act;
    long N = (long)Tw * c->batch, H = c->hidden, V = c->vocab;
    const float *W = m->params + m->lay.t[P_WOUT(c->layers)].offset;   /* (V, H) */
    const float *b = m->params + m->lay.t[P_BOUT(c->layers)].offset;   /* (V) */
    if (!xent)
        output_init();
    if (c->classes > 0)
        return output_class_forward(m, htop, Tw, train);
    for (long r = 0; r < N; r++)
        memcpy(a->logits + r * V, b, (size_t)V * sizeof(float));
    mm_forward(a->logits, htop, W, N, H, V, 1.0f, 1.0f);
#pragma omp parallel
    {
        int nt = omp_get_num_threads(), id = omp_get_thread_num();
        long r0 = N * id / nt, r1 = N * (id + 1) / nt;
        if (r1 > r0) {
            if (train)
                xent->xent(a->logits + r0 * V, a->targets + r0, a->dlogits + r0 * V,
                           a->loss + r0, (int)(r1 - r0), (int)V);
            else
                xent->xent_loss(a->logits + r0 * V, a->targets + r0, a->loss + r0,
                                (int)(r1 - r0), (int)V);
        }
    }
    double sum = 0;
    for (long r = 0; r < N; r++)
        sum += a->loss[r];
    return sum;
}

void output_backward(model *m, const float *htop, float *dH, int Tw)
{
    const model_cfg *c = &m->cfg;
    activations *a = &m->act;
    long N = (long)Tw * c->batch, H = c->hidden, V = c->vocab;
    int L = c->layers;
    const float *W = m->params + m->lay.t[P_WOUT(L)].offset;   /* (V, H) */
    float *dW = m->grads + m->lay.t[P_WOUT(L)].offset;         /* (V, H) */
    float *db = m->grads + m->lay.t[P_BOUT(L)].offset;         /* (V) */
    if (c->classes > 0) {
        output_class_backward(m, htop, dH, Tw);
        return;
    }
    float s = 1.0f / (float)N;
    mm_backward_weight(dW, a->dlogits, htop, N, H, V, s);
    mm_colsum(db, a->dlogits, a->ones, N, V, s);
    mm_backward_input(dH, a->dlogits, W, N, H, V, s, 0.0f);
}

void output_forward_rows(model *m, const float *htop, long r0, long r1, int train)
{
    const model_cfg *c = &m->cfg;
    activations *a = &m->act;
    long H = c->hidden, V = c->vocab;
    const float *W = m->params + m->lay.t[P_WOUT(c->layers)].offset;   /* (V, H) */
    const float *b = m->params + m->lay.t[P_BOUT(c->layers)].offset;   /* (V) */
    if (!xent)
        output_init();
    for (long r = r0; r < r1; r++)
        memcpy(a->logits + r * V, b, (size_t)V * sizeof(float));
    mm_forward(a->logits + r0 * V, htop + r0 * H, W, r1 - r0, H, V, 1.0f, 1.0f);
    if (train)
        xent->xent(a->logits + r0 * V, a->targets + r0, a->dlogits + r0 * V, a->loss + r0,
                   (int)(r1 - r0), (int)V);
    else
        xent->xent_loss(a->logits + r0 * V, a->targets + r0, a->loss + r0, (int)(r1 - r0), (int)V);
}
