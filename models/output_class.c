/* output_class.c — RNNLM's class-factorized softmax (model.h says what it computes and
 * how the classes are chosen).
 *
 * Forward over the window's N = Tw*B rows:
 *   class logits (N, C) = htop Wc^T + bc: one GEMM, then the fused cross-entropy
 *   kernel against each token's class (loss_c, dcls = softmax - onehot);
 *   the words of each token's class k (rows o = off[k] .. o + S of out.w), class by
 *   class: the class's rows gathered (their h_top), z (n_k, S) = h_k W[o..o+S)^T +
 *   b[o..o+S) as one GEMM, then the same kernel on those rows (loss_w, dz).
 *   loss_r = loss_c + loss_w.
 * Backward of the mean loss (1/N in the GEMMs' alpha):
 *   dWc += dcls^T htop / N, dbc += colsum(dcls) / N, dH = dcls Wc / N;
 *   per class: dW[o..o+S) += dz^T h_k / N (one GEMM), db[o..o+S) += dz / N row by row,
 *   dH of its rows += dz W[o..o+S) / N (one GEMM, then added to each row).
 * One product per class instead of one per token: a token's (1, H) x (H, S) product
 * spent more in the library's packing of W's rows than in arithmetic.  The classes
 * are split over the run's threads, each class's products single-threaded
 * (mm_split_begin), so exactly --threads threads are busy; a class is one thread's
 * whole, its rows in row order, its products always on the fallback (mm_word), so
 * the bits do not depend on the thread count. */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "matmul.h"
#include "model.h"
#include "softmax.h"

const softmax_variant *output_xent_kernel(void);

/* ---- the class map ---- */

static const long *sort_counts;
static int by_count_desc(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    if (sort_counts[x] != sort_counts[y])
        return sort_counts[x] > sort_counts[y] ? -1 : 1;
    return x - y;
}

void class_map_free(class_map *cm)
{
    free(cm->of), free(cm->pos), free(cm->off);
    memset(cm, 0, sizeof *cm);
}

int class_map_build(class_map *cm, const long *counts, int V, int C)
{
    memset(cm, 0, sizeof *cm);
    RS_CHECK(C >= 1 && C <= V, "--classes %d: expected 1 to the vocabulary size %d", C, V);
    int *order = malloc((size_t)V * sizeof *order);
    cm->of = malloc((size_t)V * sizeof *cm->of);
    cm->pos = malloc((size_t)V * sizeof *cm->pos);
    cm->off = malloc((size_t)(C + 1) * sizeof *cm->off);
    if (!order || !cm->of || !cm->pos || !cm->off) {
        free(order);
        class_map_free(cm);
        RS_CHECK(0, "out of memory building %d classes", C);
    }
    cm->C = C;
    for (int i = 0; i < V; i++)
        order[i] = i;
    sort_counts = counts;
    qsort(order, (size_t)V, sizeof *order, by_count_desc);
    double total = 0, cum = 0;
    for (int i = 0; i < V; i++)
        total += (double)counts[i];
    int k = 0;
    cm->off[0] = 0;
    for (int i = 0; i < V; i++) {
        int w = order[i];
        /* the next class starts when the share so far has passed k/C, and always when
         * only as many words are left as classes still to fill */
        if (k < C - 1 && i > cm->off[k] &&
            (cum / (total > 0 ? total : 1) > (double)(k + 1) / C || V - i <= C - 1 - k))
            cm->off[++k] = i;
        cm->of[w] = k;
        cm->pos[w] = i;
        cum += (double)counts[w];
    }
    while (k < C - 1)   /* unreachable given the rule above; kept as a guard */
        cm->off[++k] = V;
    cm->off[C] = V;
    for (k = 0; k < C; k++) {
        RS_ASSERT(cm->off[k + 1] > cm->off[k]);
        if (cm->off[k + 1] - cm->off[k] > cm->max_size)
            cm->max_size = cm->off[k + 1] - cm->off[k];
    }
    free(order);
    return 0;
}

/* ---- forward / backward ---- */

/* The rows grouped by class (a counting sort, rows in order within a class) and each
 * class's block of logits. */
static void group_rows(const class_map *cm, activations *a, long N, long C)
{
    int *start = a->cls_start, *rows = a->cls_rows;
    memset(start, 0, (size_t)(C + 1) * sizeof *start);
    for (long r = 0; r < N; r++)
        start[a->cls_targets[r] + 1]++;
    for (long k = 0; k < C; k++)
        start[k + 1] += start[k];
    for (long r = 0; r < N; r++)   /* start[k] runs to class k's end ... */
        rows[start[a->cls_targets[r]]++] = (int)r;
    for (long k = C; k > 0; k--)   /* ... and back */
        start[k] = start[k - 1];
    start[0] = 0;
    a->cls_zoff[0] = 0;
    for (long k = 0; k < C; k++)
        a->cls_zoff[k + 1] = a->cls_zoff[k] + (long)(start[k + 1] - start[k]) * (cm->off[k + 1] - cm->off[k]);
}

/* Class q's word part of the forward: its rows gathered, one product, the kernel. */
static void class_forward(model *m, const float *htop, long q, int train)
{
    const class_map *cm = &m->cls;
    activations *a = &m->act;
    const softmax_variant *k = output_xent_kernel();
    long H = m->cfg.hidden;
    int L = m->cfg.layers;
    const float *W = m->params + m->lay.t[P_WOUT(L)].offset;   /* (V, H) class order */
    const float *b = m->params + m->lay.t[P_BOUT(L)].offset;   /* (V) */
    int o = cm->off[q], S = cm->off[q + 1] - o, i0 = a->cls_start[q], n = a->cls_start[q + 1] - i0;
    if (n == 0)
        return;
    const int *rows = a->cls_rows + i0;
    float *hq = a->cls_h + (long)i0 * H, *z = a->logits + a->cls_zoff[q];
    for (int i = 0; i < n; i++) {
        memcpy(hq + (long)i * H, htop + (long)rows[i] * H, (size_t)H * sizeof(float));
        memcpy(z + (long)i * S, b + o, (size_t)S * sizeof(float));
        a->cls_pos[i0 + i] = cm->pos[a->targets[rows[i]]] - o;
    }
    mm_word(MM_FORWARD, z, hq, W + (long)o * H, n, H, S, 1.0f, 1.0f);
    float *lw = a->cls_lw + i0;
    if (train)
        k->xent(z, a->cls_pos + i0, a->dlogits + a->cls_zoff[q], lw, n, S);
    else
        k->xent_loss(z, a->cls_pos + i0, lw, n, S);
    for (int i = 0; i < n; i++)   /* a row is in one class: no two threads share it */
        a->loss[rows[i]] += lw[i];
}

/* Class q's word part of the backward: its slices of dW and db (one thread's), and
 * its rows' share of dH. */
static void class_backward(model *m, float *dH, long q, float s)
{
    const class_map *cm = &m->cls;
    activations *a = &m->act;
    long H = m->cfg.hidden;
    int L = m->cfg.layers;
    const float *W = m->params + m->lay.t[P_WOUT(L)].offset;
    float *dW = m->grads + m->lay.t[P_WOUT(L)].offset;
    float *db = m->grads + m->lay.t[P_BOUT(L)].offset;
    int o = cm->off[q], S = cm->off[q + 1] - o, i0 = a->cls_start[q], n = a->cls_start[q + 1] - i0;
    if (n == 0)
        return;
    const int *rows = a->cls_rows + i0;
    const float *dz = a->dlogits + a->cls_zoff[q], *hq = a->cls_h + (long)i0 * H;
    float *dhq = a->cls_dh + (long)i0 * H;
    mm_word(MM_BACKWARD_WEIGHT, dW + (long)o * H, dz, hq, n, H, S, s, 1.0f);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < S; j++)
            db[o + j] += s * dz[(long)i * S + j];
    mm_word(MM_BACKWARD_INPUT, dhq, dz, W + (long)o * H, n, H, S, s, 0.0f);
    for (int i = 0; i < n; i++) {
        float *dr = dH + (long)rows[i] * H;
        for (long j = 0; j < H; j++)
            dr[j] += dhq[(long)i * H + j];
    }
}

double output_class_forward(model *m, const float *htop, int Tw, int train)
{
    const model_cfg *c = &m->cfg;
    const class_map *cm = &m->cls;
    activations *a = &m->act;
    const softmax_variant *k = output_xent_kernel();
    long N = (long)Tw * c->batch, H = c->hidden, C = c->classes;
    int L = c->layers;
    const float *Wc = m->params + m->lay.t[P_WCLS(L)].offset;   /* (C, H) */
    const float *bc = m->params + m->lay.t[P_BCLS(L)].offset;   /* (C) */
    RS_ASSERT(cm->C == C);
    for (long r = 0; r < N; r++) {
        memcpy(a->cls_logits + r * C, bc, (size_t)C * sizeof(float));
        a->cls_targets[r] = cm->of[a->targets[r]];
    }
    mm_forward(a->cls_logits, htop, Wc, N, H, C, 1.0f, 1.0f);
    if (train)
        k->xent(a->cls_logits, a->cls_targets, a->dcls, a->loss, (int)N, (int)C);
    else
        k->xent_loss(a->cls_logits, a->cls_targets, a->loss, (int)N, (int)C);
    group_rows(cm, a, N, C);
    int nt = mm_split_begin();
    if (nt > 1) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
        for (long q = 0; q < C; q++)
            class_forward(m, htop, q, train);
    } else {   /* no region at all: one a backend's own team would nest in */
        for (long q = 0; q < C; q++)
            class_forward(m, htop, q, train);
    }
    mm_split_end(nt);
    double sum = 0;
    for (long r = 0; r < N; r++)
        sum += a->loss[r];
    return sum;
}

void output_class_backward(model *m, const float *htop, float *dH, int Tw)
{
    const model_cfg *c = &m->cfg;
    activations *a = &m->act;
    long N = (long)Tw * c->batch, H = c->hidden, C = c->classes;
    int L = c->layers;
    const float *Wc = m->params + m->lay.t[P_WCLS(L)].offset;
    float *dWc = m->grads + m->lay.t[P_WCLS(L)].offset;
    float *dbc = m->grads + m->lay.t[P_BCLS(L)].offset;
    float s = 1.0f / (float)N;
    mm_backward_weight(dWc, a->dcls, htop, N, H, C, s);
    mm_colsum(dbc, a->dcls, a->ones, N, C, s);
    mm_backward_input(dH, a->dcls, Wc, N, H, C, s, 0.0f);
    int nt = mm_split_begin();
    if (nt > 1) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
        for (long q = 0; q < C; q++)
            class_backward(m, dH, q, s);
    } else {
        for (long q = 0; q < C; q++)
            class_backward(m, dH, q, s);
    }
    mm_split_end(nt);
}
