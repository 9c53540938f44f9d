/* advise_model.h — the arithmetic of `study advise` (cmd_advise.c): how many nodes pay,
 * from a gradient noise scale and a step's cost.  Steps to a target at global batch B
 * follow McCandlish et al.'s S(B) = S_min (1 + B_noise / B), with B_noise taken as the
 * measured B_simple; a step on N nodes costs the node's compute at its per-node batch b
 * plus a ring allreduce of the gradient, 2 (N - 1) alpha + 2 (N - 1) / N x bytes / beta.
 * Tested on planted values in test/test_advise.c. */
#ifndef RS_ADVISE_MODEL_H
#define RS_ADVISE_MODEL_H

typedef struct {
    double b;             /* sequences a node takes a step */
    double bnoise;        /* B_noise, sequences (B_simple) */
    double compute_s;     /* a step's compute on one node at batch b, seconds */
    double bytes;         /* the gradient exchanged each step */
    double alpha_s;       /* link latency, seconds */
    double beta_Bps;      /* link bandwidth, bytes a second */
} adv_in;

typedef struct {
    long N;
    double B;             /* N b */
    double steps_ratio;   /* S(N b) / S(b) */
    double exchange_s;    /* the allreduce's seconds a step */
    double step_s;        /* compute + exchange */
    double time_ratio;    /* time to target against one node's */
    double speedup, efficiency;   /* 1 / time_ratio, and that / N */
} adv_row;

/* S(B) / S(b) under the form: (1 + bnoise / B) / (1 + bnoise / b). */
double adv_steps_ratio(double B, double b, double bnoise);
/* A ring allreduce of `bytes` over N nodes: 0 at N = 1. */
double adv_allreduce_s(long N, double bytes, double alpha_s, double beta_Bps);
/* The row of N nodes. */
adv_row adv_at(const adv_in *in, long N);
/* Doubling N from 1 while the time to target still falls by at least `gain` (0.1: 10%)
 * each time, up to most: the N past which returns diminish. */
long adv_worth(const adv_in *in, long most, double gain);
/* The slope of ln y against ln x over points [from, n) (least squares): how B_simple
 * grows with the tokens seen.  NAN with fewer than two usable points. */
double adv_log_slope(const double *x, const double *y, int from, int n);

#endif
