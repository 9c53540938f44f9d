/* softmax_online.c — Milakov & Gimelshein 2018 (arXiv 1805.02867), "online normalizer":
 * two passes, scalar with libm expf.  Pass 1 keeps a running max M and a sum S of
 * exp(x - M); pass 2 writes y = exp(x - M) / S.  The paper rescales S per element
 * (S = S * exp(M_old - M) + exp(x - M)): two exps per element in pass 1.  Here the max
 * is taken per block of SOFTMAX_BLOCK elements first (the block stays in L1), so S is
 * rescaled at most once per block and pass 1 costs one exp per element — the CPU form
 * that suits a CPU.  x is read twice and y written once (3 memory accesses per
 * element, against 4 for safe), at the price of recomputing exp in pass 2. */
#include <math.h>

#include "softmax.h"

void softmax_online(const float *x, float *y, int rows, int cols) // x, y (rows, cols)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        float M = -INFINITY;
        double S = 0;
        for (int b = 0; b < cols; b += SOFTMAX_BLOCK) {
            int e = b + SOFTMAX_BLOCK < cols ? b + SOFTMAX_BLOCK : cols;
            float mb = -INFINITY;
            for (int c = b; c < e; c++)
                if (xr[c] > mb)
                    mb = xr[c];
            if (mb > M) {               /* the max grew: rescale what was summed so far */
                S *= exp((double)M - mb);   /* exp(-inf) = 0 on the first block */
                M = mb;
            }
            if (M == -INFINITY) {       /* everything so far is -inf (or NaN, which the */
                for (int c = b; c < e; c++) /* max skips): exp(-inf - -inf) would be NaN */
                    if (isnan(xr[c]))
                        S = NAN;
                continue;
            }
            for (int c = b; c < e; c++)
                S += expf(xr[c] - M);   /* NaN and inf - inf make S NaN: a NaN row */
        }
        /* All -inf: x - M is NaN, so the row is NaN (softmax.h), as in safe. */
        float sf = (float)S;
        for (int c = 0; c < cols; c++)
            yr[c] = expf(xr[c] - M) / sf;
    }
}
