/* optim.c — optimizers, the global norm, and the schedule (optim.h). */
#include "optim.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "bigmem.h"
#include "check.h"
#include "opts.h"
#include "optim_trust.h"

static const char *const optim_names[] = {"sgd", "momentum", "nesterov", "adam", "lars", "lamb"};
static const char *const sched_names[] = {"const", "linear", "cosine", "plateau"};

int optim_from_name(const char *name, optim_kind *out)
{
    int i = rs_name_index(optim_names, RS_ARRAY_LEN(optim_names), name);
    if (i >= 0)
        *out = (optim_kind)i;
    return i >= 0 ? 0 : -1;
}
const char *optim_name(optim_kind k) { return optim_names[k]; }

int sched_from_name(const char *name, sched_kind *out)
{
    int i = rs_name_index(sched_names, RS_ARRAY_LEN(sched_names), name);
    if (i >= 0)
        *out = (sched_kind)i;
    return i >= 0 ? 0 : -1;
}
const char *sched_name(sched_kind k) { return sched_names[k]; }

int optim_nstate(optim_kind kind)
{
    return kind == OPT_ADAM || kind == OPT_LAMB ? 2 : kind == OPT_SGD ? 0 : 1;
}

int optim_init(optimizer *o, optim_kind kind, long n)
{
    memset(o, 0, sizeof *o);
    o->kind = kind;
    o->n = n;
    o->momentum = 0.9;
    o->beta1 = 0.9, o->beta2 = 0.999, o->eps = kind == OPT_LAMB ? 1e-6 : 1e-8;
    o->trust_eta = 0.001;
    o->weight_decay = kind == OPT_LAMB ? 0.01 : 0;
    o->norm_max = 10;
    int ns = optim_nstate(kind);
    if (ns >= 1)
        o->m = train_big_alloc((size_t)n * sizeof(float));
    if (ns >= 2)
        o->v = train_big_alloc((size_t)n * sizeof(float));
    if (kind == OPT_LAMB)
        o->dir = train_big_alloc((size_t)n * sizeof(float));
    RS_CHECK((ns < 1 || o->m) && (ns < 2 || o->v) && (kind != OPT_LAMB || o->dir),
             "cannot allocate optimizer state (%ld floats)", n * (ns + (kind == OPT_LAMB)));
    return 0;
}

void optim_free(optimizer *o)
{
    train_big_free(o->m);
    train_big_free(o->v);
    train_big_free(o->dir);
    o->m = o->v = o->dir = NULL;
}

#define NORM_LANES 8

void grad_norm_parts(const float *g, long from, long to, double *part)
{
    long c0 = from / GRAD_NORM_CHUNK, c1 = (to + GRAD_NORM_CHUNK - 1) / GRAD_NORM_CHUNK;
#pragma omp parallel for schedule(static)
    for (long c = c0; c < c1; c++) {
        long lo = c * GRAD_NORM_CHUNK, hi = (c + 1) * GRAD_NORM_CHUNK < to ? (c + 1) * GRAD_NORM_CHUNK : to;
        /* NORM_LANES independent sums, added in a fixed order at the end: one running
         * sum is a chain of dependent adds (4 cycles an element), these vectorize; the
         * order is the code's, so the bits do not depend on the vector width */
        double acc[NORM_LANES] = {0}, s = 0;
        long i = lo;
        for (; i + NORM_LANES <= hi; i += NORM_LANES)
            for (int j = 0; j < NORM_LANES; j++)
                acc[j] += (double)g[i + j] * g[i + j];
        for (int j = 0; j < NORM_LANES; j++)
            s += acc[j];
        for (; i < hi; i++)
            s += (double)g[i] * g[i];
        part[c] = s;
    }
}

double grad_norm_of_parts(const double *part, long n)
{
    double s = 0;
    for (long c = 0; c < (n + GRAD_NORM_CHUNK - 1) / GRAD_NORM_CHUNK; c++)
        s += part[c];
    return sqrt(s);
}

double grad_norm(const float *g, long n)
{
    double small[256], *part = small;
    long chunks = (n + GRAD_NORM_CHUNK - 1) / GRAD_NORM_CHUNK;
    if (chunks > 256)
        part = malloc(sizeof(double) * (size_t)chunks);
    RS_ASSERT(part);
    grad_norm_parts(g, 0, n, part);
    double norm = grad_norm_of_parts(part, n);
    if (part != small)
        free(part);
    return norm;
}

int optim_elementwise(optim_kind kind) { return kind != OPT_LARS && kind != OPT_LAMB; }

void optim_step(optimizer *o, float *p, const float *g, double lr, double gscale,
                const param_layout *lay)
{
    if (optim_elementwise(o->kind)) {
        optim_step_range(o, p, g, lr, gscale, 0, o->n);
        return;
    }
    o->t++;
    if (o->kind == OPT_LARS)
        lars_step(o, p, g, lr, gscale, lay);
    else
        lamb_step(o, p, g, lr, gscale, lay);
}

void optim_step_range(optimizer *o, float *p, const float *g, double lr, double gscale,
                      long from, long to)
{
    RS_ASSERT(optim_elementwise(o->kind));
    /* "simd": p, g and the state never overlap, so each loop may be widened; each
     * element's operations and their order stay the code's (no FMA in this file) */
    float a = (float)lr, gs = (float)gscale, mu = (float)o->momentum;
    o->t++;
    switch (o->kind) {
    case OPT_SGD:
#pragma omp parallel for simd schedule(static)
        for (long i = from; i < to; i++)
            p[i] -= a * (gs * g[i]);
        break;
    case OPT_MOMENTUM:
#pragma omp parallel for simd schedule(static)
        for (long i = from; i < to; i++) {
            o->m[i] = mu * o->m[i] + gs * g[i];
            p[i] -= a * o->m[i];
        }
        break;
    case OPT_NESTEROV:
#pragma omp parallel for simd schedule(static)
        for (long i = from; i < to; i++) {
            float gi = gs * g[i];
            o->m[i] = mu * o->m[i] + gi;
            p[i] -= a * (gi + mu * o->m[i]);
        }
        break;
    case OPT_ADAM: {
        float b1 = (float)o->beta1, b2 = (float)o->beta2, eps = (float)o->eps;
        float c1 = adam_correction(o->beta1, o->t), c2 = adam_correction(o->beta2, o->t);
#pragma omp parallel for simd schedule(static)
        for (long i = from; i < to; i++) {
            float gi = gs * g[i];
            o->m[i] = b1 * o->m[i] + (1.0f - b1) * gi;
            o->v[i] = b2 * o->v[i] + (1.0f - b2) * gi * gi;
            p[i] -= a * (o->m[i] * c1) / (sqrtf(o->v[i] * c2) + eps);
        }
        break;
    }
    default: break;
    }
}

void sched_init(lr_sched *s, sched_kind kind, double lr0, long warmup, long total)
{
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->lr0 = lr0;
    s->warmup = warmup;
    s->total = total;
    s->min_gain = 1.003;
    s->scale = 1.0;
}

double sched_lr(const lr_sched *s, long step)
{
    double lr = s->lr0;
    if (s->warmup > 0 && step < s->warmup)
        return lr * (double)(step + 1) / (double)s->warmup;
    double span = (double)(s->total - s->warmup);
    double prog = span > 0 ? (double)(step - s->warmup) / span : 0;
    prog = prog < 0 ? 0 : prog > 1 ? 1 : prog;
    switch (s->kind) {
    case SCHED_CONST: return lr;
    case SCHED_LINEAR: return lr * (1.0 - prog);
    case SCHED_COSINE: return lr * 0.5 * (1.0 + cos(M_PI * prog));
    case SCHED_PLATEAU: return lr * s->scale;
    }
    return lr;
}

int sched_on_eval(lr_sched *s, double ppl)
{
    if (s->kind != SCHED_PLATEAU)
        return 0;
    int gained = s->best_ppl == 0 || ppl * s->min_gain < s->best_ppl;
    int stop = 0;
    if (!gained) {
        if (s->halving)
            stop = 1;
        s->halving = 1;
    }
    if (s->halving && !stop)
        s->scale *= 0.5;
    s->best_ppl = ppl;
    return stop;
}
