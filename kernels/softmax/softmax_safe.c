/* softmax_safe.c — the max-subtracted softmax in three passes, scalar with libm expf
 * (PyTorch's CPU order): m = max x; e = exp(x - m) into y while summing; y /= sum.
 * Subtracting the max makes every exponent <= 0: no overflow for any finite x, and
 * IEEE arithmetic gives the special rows of softmax.h by itself (NaN - m, inf - inf and
 * -inf - -inf are NaN; exp(-inf - m) = 0).  One exp per element; x is read twice and
 * y written twice (Milakov & Gimelshein count 4 memory accesses per element). */
#include <math.h>

#include "softmax.h"

void softmax_safe(const float *x, float *y, int rows, int cols) // x, y (rows, cols)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        float *yr = y + (size_t)r * cols;
        float m = -INFINITY;
        for (int c = 0; c < cols; c++)
            if (xr[c] > m)
                m = xr[c];
        double s = 0;   /* double: right on long rows, as in naive */
        for (int c = 0; c < cols; c++) {
            float e = expf(xr[c] - m);
            yr[c] = e;
            s += e;
        }
        float sf = (float)s;
        for (int c = 0; c < cols; c++)
            yr[c] = yr[c] / sf;
    }
}
