/* softmax_naive.c — the Sunway TaihuLight study's "before": y = exp(x) / sum exp(x), with libm expf, in
 * two passes (exp and sum, then divide).  No max is subtracted, so exp overflows for
 * x > 88.7 and the row becomes inf/inf: it is declared not overflow-safe (softmax.h)
 * and the huge-input checks skip it.  It is the baseline of speedup_vs_naive. */
#include <math.h>

#include "softmax.h"

void softmax_naive(const float *x, float *y, int rows, int cols) // x, y (rows, cols)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        /* The sum is kept in double so that the baseline stays right on long rows (a
         * float sum of 1e8 terms loses whole terms); one add per expf costs nothing
         * measurable next to the call. */
        double s = 0;
        for (int c = 0; c < cols; c++) {
            float e = expf(xr[c]);
            yr[c] = e;
            s += e;
        }
        float sf = (float)s;   /* NaN in, NaN out; an all -inf row gives 0/0 = NaN */
        for (int c = 0; c < cols; c++)
            yr[c] = yr[c] / sf;
    }
}
