/* optim_trust.h — the layer-wise optimizers LARS and LAMB (optim_trust.c), called by
 * optim_step (optim.c) only; their rules are in optim.h's header comment. */
#ifndef RS_MODELS_OPTIM_TRUST_H
#define RS_MODELS_OPTIM_TRUST_H

#include <math.h>

#include "optim.h"

/* Adam's bias correction 1 / (1 - beta^t), as a float factor (adam and lamb). */
static inline float adam_correction(double beta, long t)
{
    return (float)(1.0 / (1.0 - pow(beta, (double)t)));
}

/* One update of each tensor of lay (o->t already counts it). */
void lars_step(optimizer *o, float *p, const float *g, double lr, double gscale,
               const param_layout *lay);
void lamb_step(optimizer *o, float *p, const float *g, double lr, double gscale,
               const param_layout *lay);

#endif
