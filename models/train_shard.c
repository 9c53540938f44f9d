/* train_shard.c — --shard-update: weight-update sharding (Xu et al. 2020, "Automatic
 * cross-replica sharding of weight update in data-parallel training").  With P ranks
 * each keeping all the parameters, the replicated update repeats the same optimizer
 * work P times.  Here the fused exchange runs its reduce-scatter, each rank updates
 * only its block of the parameters from its block of the summed gradient
 * (train_update), and the allgather spreads the updated parameters instead of the
 * gradient: the same messages, the optimizer's work per rank divided by P.
 *
 * The same parameters as the replicated update with the same cut of the vector, bit
 * for bit (the sharded cut is on norm chunks, so against the default cut: at P = 2 or
 * with ordered): the blocks are the sums the allreduce would have produced
 * (collectives: ar_allreduce_mid); the global norm
 * that clipping needs is summed from fixed chunks of GRAD_NORM_CHUNK floats, each whole in
 * one rank's block, the chunk sums exchanged with zeros elsewhere (x + 0 = x), so every
 * rank adds the same numbers in the same order; the update is element by element.
 * Optimizer state stays valid only in a rank's own block; a checkpoint gathers it on
 * rank 0 first (train_shard_gather_state).  LARS and LAMB need whole-tensor norms of
 * the weights and the update, so they are refused, as are bucketed and sparse (the
 * update waits for the whole sum; sparse reorders the gradient). */
#include <string.h>

#include "check.h"
#include "train_ctx.h"
#include "train_platform.h"

int train_shard_check(const train_opts *o)
{
    if (!o->shard_update)
        return 0;
    RS_CHECK(optim_elementwise(o->optim), "--shard-update: --optimizer %s scales each tensor "
             "by its own norms, which a block of the parameters does not have (use sgd, "
             "momentum, nesterov or adam)", optim_name(o->optim));
    RS_CHECK(strcmp(o->sync, "fused") == 0, "--shard-update updates between the reduce-scatter "
             "and the allgather of one fused exchange: use --sync fused (not %s)", o->sync);
    RS_CHECK(strcmp(o->embed_exchange, "dense") == 0, "--shard-update and --embed-exchange "
             "sparse cannot be combined (sparse packs the gradient in another order): use "
             "--embed-exchange dense");
    return dp_comm_size() > 1 ? dp_exchange_check_mid(&o->exchange) : 0;
}

static float *update_block(void *ctx, float *buf, long off, long len)
{
    run_ctx *r = ctx;
    r->dp.shard_off = off, r->dp.shard_len = len;
    train_update(r, buf, off, len);
    r->dp.updated = 1;
    return r->m.params;   /* the allgather spreads the parameters */
}

void train_shard_exchange(run_ctx *r, float *grad)
{
    uint64_t t0 = train_now_ns();
    RS_ASSERT(dp_exchange_sum_mid(r->dp.exchange, grad, r->m.lay.total, update_block, r) == 0);
    r->dp.exchange_total_s = train_seconds_since(t0) - r->dp.update_s;   /* the update's own */
}

void train_shard_gather_state(run_ctx *r)
{
    const dp_ctx *d = &r->dp;
    if (!d->shard)
        return;
    float *state[2] = {r->opt.m, r->opt.v};
    for (int i = 0; i < optim_nstate(r->opt.kind); i++)
        dp_comm_gather_blocks(state[i], d->shard_off, d->shard_len);
}
