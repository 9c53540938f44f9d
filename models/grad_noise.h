/* grad_noise.h — the simple gradient noise scale B_simple = tr(Sigma) / |G|^2
 * (McCandlish et al., "An empirical model of large-batch training", appendix A), from
 * N >= 2 data-parallel workers: each step gives the squared norm of a small batch's
 * gradient (the workers' own mean gradients, averaged: batch Bs) and of the big batch's
 * (the averaged global gradient: Bb = N Bs), which yield unbiased estimates of |G|^2 and
 * tr(Sigma).  Both are smoothed by exponential moving averages (decay 0.95, bias-corrected
 * as Adam's moments; the ratio is the same either way) and B_simple is their ratio.
 * Batch sizes are counted in sequences (streams), so B_simple is too.  train_step.c feeds
 * it; the evaluation log prints it. */
#ifndef RS_MODELS_GRAD_NOISE_H
#define RS_MODELS_GRAD_NOISE_H

#define GRAD_NOISE_DECAY 0.95

typedef struct {
    double g2, trace;   /* the moving averages, before bias correction */
    long n;             /* steps averaged */
} grad_noise;

/* One step: small_sq = mean over workers of |own mean gradient|^2 (batch Bs), big_sq =
 * |mean gradient|^2 (batch Bb > Bs).  A non-finite step is skipped. */
void grad_noise_add(grad_noise *gn, double small_sq, double big_sq, double Bs, double Bb);
/* tr(Sigma) / |G|^2 from the averages; NAN before the first step. */
double grad_noise_bsimple(const grad_noise *gn);

#endif
