/* exp_libm.c — glibc's scalar expf in a plain loop (variant libm, portable).
 *
 * The Sunway TaihuLight study's "before" and the accuracy yardstick among the fast variants: glibc
 * >= 2.27 expf is the table-driven Arm optimized-routines algorithm, 0.502 ULP.
 * The loop must stay one scalar call per element: with -ffast-math GCC could turn it
 * into calls to libmvec's vector expf, so vectorization is switched off here. */
#include <math.h>

#include "exp_kernels.h"

__attribute__((optimize("no-tree-vectorize")))
void exp_libm_portable(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = expf(x[i]);
}
