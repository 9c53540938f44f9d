/* exp_schraudolph_portable.c — Schraudolph's exp as the 1999 paper wrote it
 * (variant schraudolph, portable): a*x + b truncated to an int in the high word of
 * a double, then rounded to float.  The speed-for-accuracy extreme: ~4% relative
 * error, no special values, x in [-87, 88] only (exp_schraudolph.h). */
#include <stdint.h>
#include <string.h>

#include "exp_kernels.h"
#include "exp_schraudolph.h"

void exp_schraudolph_portable(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int32_t hi = (int32_t)(EXP_SCHR_A_D * (double)x[i] + EXP_SCHR_B_D);
        uint64_t bits = (uint64_t)(uint32_t)hi << 32;
        double d;
        memcpy(&d, &bits, sizeof d);
        y[i] = (float)d;
    }
}
