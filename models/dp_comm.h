/* dp_comm.h — rnn-train's ranks: the only place the trainer touches MPI.
 *
 * MPI is started only when a launcher's environment says so (OMPI_COMM_WORLD_SIZE or
 * PMIX_RANK set, as mpirun does): a plain `rnn-train` never initializes MPI, is one
 * rank (P = 1), and every call below is then a local no-op or copy.  Collective calls
 * must be made by every rank in the same order.  The gradient exchange runs an
 * algorithm of the collectives registry (collectives/allreduce.h) over all ranks.
 *
 * --eval-ranks K sets the last K ranks aside for evaluation: every training call below
 * then runs over the other P - K ranks, which see themselves as ranks 0..P-K-1 of
 * P - K, exactly as a run of P - K ranks.  An eval rank sees the training view of
 * training rank 0 (it sets up the same model, and never trains); it receives parameter
 * snapshots from training rank 0 and sends back its share of their evaluation. */
#ifndef RS_MODELS_DP_COMM_H
#define RS_MODELS_DP_COMM_H

#include <stdint.h>

/* Start MPI if launched by mpirun (before flags are parsed); 0, or -1 (rs_lasterr). */
int dp_comm_start(int *argc, char ***argv);
void dp_comm_finish(void);   /* MPI_Finalize if started */
int dp_comm_rank(void);      /* 0 without MPI */
int dp_comm_size(void);      /* P (the training ranks); 1 without MPI */
int dp_comm_world_size(void);   /* every rank, eval ranks included */
int dp_comm_active(void);    /* MPI was started */
/* A second thread may make MPI calls while this one makes none (MPI started with at
 * least MPI_THREAD_SERIALIZED; 1 without MPI). */
int dp_comm_threads_ok(void);

/* Collective over every rank: the last K ranks set aside for evaluation (K = 0 or no
 * MPI: nothing).  0, or -1 (rs_lasterr). */
int dp_comm_split_eval(int K);
int dp_comm_eval_ranks(void);   /* K */
int dp_comm_eval_index(void);   /* 0..K-1 on an eval rank; -1 on a training rank */

/* Collective: did any rank fail (rc != 0)?  Returns 0 when none did; otherwise -1 on
 * every rank, with rs_lasterr set to the lowest failing rank's line. */
int dp_comm_agree(int rc);
/* The same over every rank, eval ranks included. */
int dp_comm_agree_all(int rc);
/* Collective: the sum of v over ranks (in rank order; P = 1: v). */
void dp_comm_sum_doubles(double *v, int n);
/* Collective: the bitwise OR of v over ranks (no MPI: v). */
void dp_comm_or_u64(uint64_t *v, long n);
/* Collective: 1 when every rank passed the same value, else 0. */
int dp_comm_same_u64(uint64_t v);
/* Collective: rank 0 gets every rank's n floats, in rank order, in all (P * n). */
void dp_comm_gather_floats(const float *mine, long n, float *all);

/* The evaluation link (--eval-ranks): training rank 0 and the eval ranks, one
 * evaluation at a time.  Training rank 0 posts n parameters (nonblocking: params stay
 * untouched until the wait) and later waits for the sum of the eval ranks' results;
 * n = 0 tells them to stop (blocking, nothing comes back).  An eval rank receives
 * (1: parameters, 0: stop) and replies with its part. */
#define DP_EVAL_RESULT 3   /* loss sum, tokens, scoring seconds / K */
int dp_eval_post(const float *params, long n);   /* 0, or -1 (rs_lasterr) */
void dp_eval_progress(void);                     /* a nudge while training goes on */
void dp_eval_wait(double result[DP_EVAL_RESULT]);
int dp_eval_receive(float *params, long n);
void dp_eval_reply(const double part[DP_EVAL_RESULT]);
/* Training rank 0, a run stopping: the evaluation in flight abandoned (each eval rank
 * told, which cuts its scoring short; its result discarded), then waited for. */
void dp_eval_abandon(void);
/* dp_eval_wait, unless stop() (when given) turns non-zero first: then the evaluation
 * is abandoned (dp_eval_abandon) and 1 returned; 0 with the result.  It sleeps between
 * tests (a millisecond), so a waiting rank leaves its core to others. */
int dp_eval_wait_unless(double result[DP_EVAL_RESULT], int (*stop)(void));
/* An eval rank: has training rank 0 abandoned the evaluation (cheap: a test)? */
int dp_eval_abandoned(void);

/* The gradient exchange: an allreduce (sum, float, in place) of up to max_count
 * elements over all ranks with a registry algorithm. */
typedef struct {
    const char *algo;    /* --allreduce NAME (a registry name, or library:K) */
    int group_size;      /* --group-size: hier's ranks per group, torus2d's row (0: default) */
    int group_max;       /* --group-max (hier) */
    const char *inner;   /* --inner (hier) */
    double timeout_s;    /* --exchange-timeout: a rank waiting longer in one collective ends
                          * the run (a peer or its link is gone; 0: wait for ever) */
} dp_exchange_opts;

typedef struct dp_exchange dp_exchange;
/* Checks that need no MPI (the name, the group size against P); 0, or -1 (rs_lasterr). */
int dp_exchange_check(const dp_exchange_opts *xo, int P);
/* Collective.  P = 1 without MPI: *out is NULL and dp_exchange_sum does nothing.
 * max_parts > 0: a second plan, for dp_exchange_sum_parts. */
int dp_exchange_create(const dp_exchange_opts *xo, long max_count, long max_parts,
                       dp_exchange **out);
int dp_exchange_sum(dp_exchange *x, float *buf, long count);   /* collective; 0 or -1 */
/* Weight-update sharding (--shard-update): the same sum, with mid(ctx, buf, off, len)
 * called once on every rank between the reduce-scatter and the allgather, on this
 * rank's finished block buf[off, off + len); the allgather then spreads the blocks of
 * the buffer mid returns (collectives/allreduce.h, ar_allreduce_mid).  An exchange
 * made with max_parts > 0 cuts its blocks on multiples of GRAD_NORM_CHUNK (optim.h), so
 * a block's norm parts are whole chunks.  Without MPI: mid on the whole vector. */
typedef float *(*dp_mid_fn)(void *ctx, float *buf, long off, long len);
int dp_exchange_sum_mid(dp_exchange *x, float *buf, long count, dp_mid_fn mid, void *ctx);
/* Collective: the sum over ranks of n doubles (the norm's chunk sums, each nonzero on
 * one rank only, so exact in any order) with the exchange's algorithm. */
int dp_exchange_sum_parts(dp_exchange *x, double *parts, long n);
/* No MPI needed: 0 when --allreduce has a reduce-scatter and an allgather, else -1. */
int dp_exchange_check_mid(const dp_exchange_opts *xo);
/* Collective: rank 0 gets every rank's block a[off, off + len) in its own a. */
void dp_comm_gather_blocks(float *a, long off, long len);
const char *dp_exchange_name(const dp_exchange *x);   /* "none" without MPI */
void dp_exchange_free(dp_exchange *x);                 /* collective */

/* Buckets (dp_buckets.c): dp_exchange_sum of ranges of a buffer, run in the order
 * started.  threaded: on a communication thread while the caller goes on computing;
 * else (a rank that cannot run one: a simulated rank) by the caller, with
 * dp_buckets_sum_pending or at the wait.  Between a dp_buckets_start and the
 * dp_buckets_wait after it the caller makes no MPI call but those sums and leaves the
 * ranges alone; every rank starts the same ranges in the same order.
 * x NULL (no MPI): *out is NULL and start and wait do nothing. */
typedef struct dp_buckets dp_buckets;
int dp_buckets_create(dp_exchange *x, int threaded, dp_buckets **out);   /* 0, or -1 */
int dp_buckets_start(dp_buckets *b, float *buf, long count);  /* 0, or -1 (rs_lasterr) */
/* Unthreaded: the buckets started and not yet summed, and where the k-th of them starts. */
long dp_buckets_pending(const dp_buckets *b);
const float *dp_buckets_pending_buf(const dp_buckets *b, long k);
/* Unthreaded, collective: the pending buckets summed now, in order, the k-th once
 * ready(ctx, k) returns; their seconds in dp_exchange_sum by clock_s(ctx), for the
 * wait's busy_s.  A failed allreduce is reported by the wait. */
void dp_buckets_sum_pending(dp_buckets *b, void (*ready)(void *ctx, long k),
                            double (*clock_s)(void *ctx), void *ctx);
/* Until every started bucket is summed (unthreaded: those pending summed now, timed on
 * the trainer's clock); *busy_s gets the seconds in dp_exchange_sum since the last
 * wait.  0, or -1 when an allreduce failed. */
int dp_buckets_wait(dp_buckets *b, double *busy_s);
void dp_buckets_free(dp_buckets *b);                          /* after a wait */

#endif
