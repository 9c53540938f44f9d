/* dp_buckets_smpi.h — the overlap of --sync bucketed in rnn-train-smpi (scaling/
 * dp_buckets_smpi.c, which stands in for models/dp_buckets.c there).  Where the
 * backward is charged by flops (scaling/train_smpi.c), the buckets that models/
 * train_sync.c started are summed here while the backward's charge goes on:
 *
 *     dp_buckets_overlap(b, ready_s, ctx, backward_s, &exposed_s);   // then dp_buckets_wait */
#ifndef RS_SCALING_DP_BUCKETS_SMPI_H
#define RS_SCALING_DP_BUCKETS_SMPI_H

#include "dp_comm.h"

/* The seconds of the backward's charge done when the bucket starting at buf is ready. */
typedef double (*dp_bucket_ready_fn)(void *ctx, const float *buf);

/* Collective.  This rank sums the buckets started since the last wait, in order (each a
 * blocking dp_exchange_sum), while an actor on its host executes backward_s seconds of
 * flops, bucket k summed only after ready_s of it.  *exposed_s: the simulated seconds the
 * rank spent in the exchange after the backward's charge ended.  A failed allreduce is
 * reported by the next dp_buckets_wait. */
void dp_buckets_overlap(dp_buckets *b, dp_bucket_ready_fn ready_s, void *ctx, double backward_s,
                        double *exposed_s);

#endif
