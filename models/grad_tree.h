/* grad_tree.h — the one order in which a rank sums its workers' gradients: the
 * binary-counter tree of collectives/allreduce_ordered.c over workers 0..local-1
 * (complete subtrees of 2^j workers merge as they fill; at the end the subtrees left
 * are added newest first: s = newest; for each older t: s = t + s).  With local a
 * power of two and --allreduce ordered, the sum over all N workers is then the same
 * tree whatever the number of ranks, so P ranks and one emulating process agree bit
 * for bit (train_dp.c).
 *
 *     grad_tree t;
 *     grad_tree_create(&t, local, n);           // O(log2 local) buffers of n floats
 *     for (k = 0; k < local; k++) {
 *         ... worker k's backward into g ...
 *         grad_tree_add(&t, k, g, 0, n);        // or range by range, any order of ranges
 *     }
 *     float *sum = grad_tree_sum(&t);           // the same buffer every step
 *     grad_tree_free(&t);
 *
 * The schedule is planned once (which buffer each worker's gradient is copied or added
 * into), so every element of a range sees the same additions as a whole-vector call:
 * the last worker's gradient may be added piece by piece as its backward finishes
 * ranges (--sync bucketed). */
#ifndef RS_MODELS_GRAD_TREE_H
#define RS_MODELS_GRAD_TREE_H

typedef struct {
    signed char dst, src;   /* buffer indices; src -1: the worker's gradient */
    char copy;              /* 1: dst = src (the first leaf of a subtree), 0: dst += src */
} grad_tree_op;

typedef struct {
    int leaves, nbuf;
    long n;                 /* floats per buffer */
    float *buf[32];
    grad_tree_op *ops;      /* every worker's operations, in order */
    int *first_op;          /* worker k's are ops[first_op[k] .. first_op[k+1]) */
    int result;             /* the buffer holding the sum after the last worker */
} grad_tree;

/* leaves >= 2 workers of n floats: 0, or -1 (rs_lasterr: out of memory). */
int grad_tree_create(grad_tree *t, int leaves, long n);
void grad_tree_free(grad_tree *t);
/* Worker k's gradient g, elements [from, to), into the tree. */
void grad_tree_add(const grad_tree *t, int k, const float *g, long from, long to);
/* Where the sum of all leaves is once the last one is added. */
float *grad_tree_sum(const grad_tree *t);

#endif
