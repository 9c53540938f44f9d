/* kn3.h — the interpolated modified Kneser-Ney trigram baseline (`rnn-train --model kn3`),
 * on the same tokenization, vocabulary and train/valid/test split as the RNNs
 * (corpus.h), so its perplexity is the number an RNN has to beat.
 *
 * Chen & Goodman 1998 ("An empirical study of smoothing techniques", section 3.5),
 * interpolated, three discounts per order:
 *   p3(w|u v) = (max(c(uvw) - D3(c), 0) + gamma(uv) p2(w|v)) / c(uv.)
 *   p2(w|v)   = (max(N1+(.vw) - D2(n), 0) + gamma(v) p1(w)) / N1+(.v.)
 *   p1(w)     = (max(N1+(.w) - D1(n), 0) + gamma() / V) / N1+(..)
 * gamma(ctx) = D(1) N1(ctx.) + D(2) N2(ctx.) + D(3+) N3+(ctx.): the discounted mass,
 * so each level sums to 1 over the V ids; a context never seen falls through to the
 * next lower order.  The lower orders count distinct left contexts (continuation
 * counts), not occurrences.  Discounts per order from that order's count-of-counts
 * n1..n4:  Y = n1 / (n1 + 2 n2),  D(k) = k - (k + 1) Y n(k+1) / n(k),  k = 1, 2, 3.
 * The token stream is one sequence; its first tokens see a start symbol (id V) as
 * context, in training and in evaluation alike.  Every token of a split is scored
 * (<unk> is a word like any other, as for the RNNs). */
#ifndef RS_MODELS_KN3_H
#define RS_MODELS_KN3_H

#include <stdint.h>

typedef struct {
    int V;                   /* ids 0..V-1; V is the start symbol (context only) */
    uint64_t R;              /* key radix, V + 1 */
    /* order 3: trigram types sorted by key (u R + v) R + w, with counts */
    long n3;
    uint64_t *k3;            /* (n3) */
    int *c3;                 /* (n3) */
    /* trigram contexts uv, sorted by key u R + v: total count, N1, N2, N3+ */
    long nc2;
    uint64_t *kc2;           /* (nc2) */
    long *tc2;               /* (nc2) c(uv.) */
    int *nc2_n;              /* (nc2, 3) N1, N2, N3+ of uv. */
    /* order 2: bigram types vw, key v R + w, continuation counts N1+(.vw) */
    long n2;
    uint64_t *k2;
    int *c2;
    /* bigram contexts v (index v, 0..V): N1+(.v.), N1, N2, N3+ */
    long *tc1;               /* (V + 1) */
    int *nc1_n;              /* (V + 1, 3) */
    /* order 1: N1+(.w) and its total */
    int *c1;                 /* (V) */
    long tc0;
    int n0_n[3];             /* N1, N2, N3+ over w */
    double D[3][3];          /* D[order-1][k-1]: the discounts of each order */
} kn3_model;

/* Count and estimate from data (n tokens, ids in 0..V-1).  0, or -1 (rs_lasterr). */
int kn3_train(kn3_model *m, const int *data, long n, int V);
void kn3_free(kn3_model *m);
/* p(w | u v); u, v are ids or V (the start symbol). */
double kn3_prob(const kn3_model *m, int u, int v, int w);
/* Mean -log p (nats) over the n tokens of a split, read as one sequence from the start
 * symbol. */
double kn3_eval(const kn3_model *m, const int *data, long n);

#endif
