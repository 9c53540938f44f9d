/* stats.h — summary statistics of timing samples: min, median, max, mean, CV.
 * Quote the median (robust to a noisy neighbour); use the min for peaks. */
#ifndef RS_STATS_H
#define RS_STATS_H

typedef struct {
    int n;          /* number of samples */
    double min;
    double median;  /* middle value; mean of the two middle ones for even n */
    double p99;     /* 99th percentile, nearest rank: the ceil(0.99 n)-th smallest */
    double max;
    double mean;
    double cv;      /* coefficient of variation: sample stddev / mean (0 if n < 2) */
} rs_stats;

/* Summarize x[0..n-1] (not modified). Returns 0, or -1 if n < 1. */
int rs_stats_compute(const double *x, int n, rs_stats *out);

#endif
