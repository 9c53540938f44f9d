/* optim_trust.c — LARS and LAMB: a per-tensor trust ratio on top of momentum SGD and
 * Adam (rules and defaults in optim.h).  Norms go through grad_norm, so they are the
 * same bits every run, and a resumed run continues bit-identically. */
#include "optim_trust.h"

#include <string.h>

/* Biases keep the plain update: their norm says little about a useful step size. */
static int trust_excluded(const param_info *t)
{
    size_t n = strlen(t->name);
    return n >= 2 && strcmp(t->name + n - 2, ".b") == 0;
}

/* q = num / den, or 1 where either is 0 (a zero tensor must still be able to move). */
static double trust_ratio(double num, double den)
{
    return num > 0 && den > 0 ? num / den : 1.0;
}

void lars_step(optimizer *o, float *p, const float *g, double lr, double gscale,
               const param_layout *lay)
{
    float a = (float)lr, gs = (float)gscale, mu = (float)o->momentum;
    for (int k = 0; k < lay->n; k++) {
        const param_info *t = &lay->t[k];
        long off = t->offset, n = t->rows * t->cols;
        int plain = trust_excluded(t);
        double wd = plain ? 0 : o->weight_decay;
        double q = 1.0;
        if (!plain) {
            double wn = grad_norm(p + off, n), gn = gscale * grad_norm(g + off, n);
            q = trust_ratio(o->trust_eta * wn, gn + wd * wn);
        }
        float qf = (float)q, wdf = (float)wd;
        float *w = p + off, *v = o->m + off;
        const float *gt = g + off;
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) {
            v[i] = mu * v[i] + qf * (gs * gt[i] + wdf * w[i]);
            w[i] -= a * v[i];
        }
    }
}

void lamb_step(optimizer *o, float *p, const float *g, double lr, double gscale,
               const param_layout *lay)
{
    float gs = (float)gscale, b1 = (float)o->beta1, b2 = (float)o->beta2, eps = (float)o->eps;
    float c1 = adam_correction(o->beta1, o->t), c2 = adam_correction(o->beta2, o->t);
    for (int k = 0; k < lay->n; k++) {
        const param_info *t = &lay->t[k];
        long off = t->offset, n = t->rows * t->cols;
        int plain = trust_excluded(t);
        float wdf = plain ? 0.0f : (float)o->weight_decay;
        float *w = p + off, *m = o->m + off, *v = o->v + off, *r = o->dir + off;
        const float *gt = g + off;
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++) {
            float gi = gs * gt[i];
            m[i] = b1 * m[i] + (1.0f - b1) * gi;
            v[i] = b2 * v[i] + (1.0f - b2) * gi * gi;
            r[i] = (m[i] * c1) / (sqrtf(v[i] * c2) + eps) + wdf * w[i];
        }
        double q = 1.0;
        if (!plain) {
            double wn = grad_norm(w, n);
            q = trust_ratio(wn < o->norm_max ? wn : o->norm_max, grad_norm(r, n));
        }
        float step = (float)(lr * q);
#pragma omp parallel for schedule(static)
        for (long i = 0; i < n; i++)
            w[i] -= step * r[i];
    }
}
