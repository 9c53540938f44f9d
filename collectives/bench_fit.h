/* bench_fit.h — the model fit of `allreduce-bench` (bench_fit.c): the alpha-beta-gamma
 * parameters its predictions use, measured or taken from the platform. */
#ifndef RS_AR_BENCH_FIT_H
#define RS_AR_BENCH_FIT_H

#include "allreduce.h"

/* The model's parameters as a range (bench_fit.c):
 *   lo: the best case — one pair of ranks talking while the others wait, data in cache;
 *   hi: the allreduce's own conditions at their worst — every rank talking at once
 *       (pairs), data out of cache, every rank reducing at once.
 * model_us uses lo (the classic ping-pong fit), model_hi_us uses hi; a measurement in
 * [model_us, model_hi_us] is "within the range its model predicts". */
typedef struct {
    ar_model lo, hi;
} ar_model_range;

/* Collective over comm; every rank gets rank 0's (lo) and the slowest rank's (hi)
 * numbers.  max_bytes bounds the buffers used (the run's largest size, at least 4 MiB
 * for the out-of-cache fits).  `how` receives one line saying what was measured.
 * net = 0: no ping-pong or ring steps (the caller states alpha and beta; they stay 0). */
void ar_fit_model(MPI_Comm comm, ar_dtype t, ar_op op, int quick, int net, ar_model_range *m,
                  char *how, size_t howlen);

/* ar_fit_model asks ar_fit_from_platform (bench_platform.h) first. */

#endif
