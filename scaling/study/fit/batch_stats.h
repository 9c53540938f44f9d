/* batch_stats.h — what step counts to a target say about batch scaling without a model:
 * each count is known only to within its evaluations (the crossing lies after the last
 * evaluation above the target and at or before the first at or under it), and several seeds
 * at a batch spread it further.  From those bounds alone: the claimed speed-up's
 * interval, the data cost E(B) / E(B0) = (B / B0) S(B) / S(B0) and the local scaling
 * exponent between neighbouring batches, -d ln S / d ln B (1: perfect scaling, 0: no
 * gain).  A count not reached within its cap is a bound S > cap.  Tested on planted
 * curves in test/test_batch_stats.c. */
#ifndef RS_BATCH_STATS_H
#define RS_BATCH_STATS_H

#include "conv_fit.h"

/* The counts at one global batch over its seeds. */
typedef struct {
    double batch;
    int n;             /* seeds that reached the target */
    int censored;      /* seeds that did not within their caps */
    double lo, hi;     /* the crossing lies in (lo, hi] for every seed: lo the smallest
                          earlier evaluation (or the smallest cap past which one was not
                          reached), hi the largest count (inf when a seed was censored) */
    double mean;       /* the mean of the counts reached (NAN: none) */
} bs_counts;

/* Starts the counts at a batch (no seed yet). */
void bs_counts_init(bs_counts *c, double batch);
/* One seed: reached at evaluation step s after an evaluation at prev (0: the first), or
 * (s <= 0) not reached within cap. */
void bs_counts_add(bs_counts *c, double s, double prev, double cap);

/* S(small) / S(big): the means' ratio and the model-free interval
 * [small.lo / big.hi, small.hi / big.lo] (0 or inf where a bound is open). */
double bs_ratio(const bs_counts *small, const bs_counts *big, conv_range *interval);
/* E(B) / E(B0) = (B / B0) S(B) / S(B0), and its interval. */
double bs_data_cost(const bs_counts *b, const bs_counts *b0, conv_range *interval);
/* The local exponent ln(S(B1) / S(B2)) / ln(B2 / B1) between B1 < B2, and its interval. */
double bs_exponent(const bs_counts *b1, const bs_counts *b2, conv_range *interval);

/* Where the local exponent bends through 1/2, the batch at which S = S_min (1 + B_noise /
 * B) would put B_noise (its exponent there is B_noise / (B + B_noise)): the exponents of
 * neighbouring counts c[0..n-1] (batches ascending) placed at their geometric midpoints,
 * interpolated in ln B.  *side: 0 found, -1 below the first midpoint (every exponent
 * under 1/2; returns it), 1 above the last (every one over; returns it); NAN where fewer
 * than two counts reached. */
double bs_bend(const bs_counts *c, int n, int *side);

#endif
