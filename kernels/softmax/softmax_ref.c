/* softmax_ref.c — the double-precision reference softmax and cross-entropy: the oracle
 * every variant is checked against (tests and `microbench softmax`).  Plain loops,
 * written for clarity; the special-row rules of softmax.h are spelled out here. */
#include <math.h>

#include "softmax.h"

int softmax_ref_norm(const float *x, int cols, double *m, double *s) // x (cols)
{
    double mx = -INFINITY;
    int nan = 0;
    for (int c = 0; c < cols; c++) {
        nan |= isnan(x[c]);
        if (x[c] > mx)
            mx = x[c];
    }
    *m = mx;
    /* A NaN, a +inf, or no finite entry at all: the row is NaN (softmax.h). */
    if (nan || isinf(mx)) {
        *s = NAN;
        return 1;
    }
    double sum = 0;
    for (int c = 0; c < cols; c++)
        sum += exp((double)x[c] - mx);   /* exact difference of two floats in double */
    *s = sum;
    return 0;
}

void softmax_ref(const float *x, double *y, int rows, int cols) // x, y (rows, cols)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        double *yr = y + (size_t)r * cols;
        double m, s;
        int nan = softmax_ref_norm(xr, cols, &m, &s);
        for (int c = 0; c < cols; c++)
            yr[c] = nan ? NAN : exp((double)xr[c] - m) / s;
    }
}

void softmax_xent_ref(const float *x, const int *targets, double *dlogits, double *loss,
                      int rows, int cols) // x, dlogits (rows, cols); targets, loss (rows)
{
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (size_t)r * cols;
        double *dr = dlogits ? dlogits + (size_t)r * cols : NULL;
        int t = targets[r];
        if (t < 0) {   /* ignored (padding) row */
            loss[r] = 0;
            for (int c = 0; dr && c < cols; c++)
                dr[c] = 0;
            continue;
        }
        double m, s;
        int nan = softmax_ref_norm(xr, cols, &m, &s);
        loss[r] = nan ? NAN : m + log(s) - (double)xr[t];
        for (int c = 0; dr && c < cols; c++)
            dr[c] = nan ? NAN : exp((double)xr[c] - m) / s - (c == t);
    }
}
