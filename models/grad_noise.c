/* grad_noise.c — B_simple's estimates and moving averages (grad_noise.h). */
#include "grad_noise.h"

#include <math.h>

void grad_noise_add(grad_noise *gn, double small_sq, double big_sq, double Bs, double Bb)
{
    double g2 = (Bb * big_sq - Bs * small_sq) / (Bb - Bs);
    double trace = (small_sq - big_sq) / (1 / Bs - 1 / Bb);
    if (!isfinite(g2) || !isfinite(trace))
        return;
    gn->g2 = GRAD_NOISE_DECAY * gn->g2 + (1 - GRAD_NOISE_DECAY) * g2;
    gn->trace = GRAD_NOISE_DECAY * gn->trace + (1 - GRAD_NOISE_DECAY) * trace;
    gn->n++;
}

double grad_noise_bsimple(const grad_noise *gn)
{
    if (gn->n == 0)
        return NAN;
    double correction = 1 - pow(GRAD_NOISE_DECAY, (double)gn->n);
    return (gn->trace / correction) / (gn->g2 / correction);
}
