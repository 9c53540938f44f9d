/* dp_buckets_smpi.h — the overlap of --sync bucketed in rnn-train-smpi (scaling/
 * dp_buckets_smpi.c).  A simulated rank has no spare thread (train_hooks.h's
 * no_spare_threads), so the buckets that models/train_sync.c started wait for it; where
 * the backward is charged by flops (scaling/sim/train_smpi.c's compute hook), the rank sums
 * them here while the backward's charge goes on:
 *
 *     double exposed_s = dp_buckets_overlap(r, ready_s, ctx, backward_s);
 *     run_ctx_set_exposed_exchange(r, exposed_s); */
#ifndef RS_SCALING_DP_BUCKETS_SMPI_H
#define RS_SCALING_DP_BUCKETS_SMPI_H

#include "train_hooks.h"

/* The seconds of the backward's charge done when the bucket starting at the gradient's
 * float `offset` is ready. */
typedef double (*dp_bucket_ready_fn)(void *ctx, long offset);

/* Collective.  This rank sums the buckets pending (run_ctx_sum_buckets), in order, while
 * an actor on its host executes backward_s seconds of flops, each bucket summed only
 * after ready_s of it.  Returns the simulated seconds the rank spent in the exchange
 * after the backward's charge ended.  A failed allreduce is reported by the step's wait. */
double dp_buckets_overlap(run_ctx *r, dp_bucket_ready_fn ready_s, void *ctx, double backward_s);

#endif
