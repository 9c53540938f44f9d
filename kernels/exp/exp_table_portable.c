/* exp_table_portable.c — table-driven expf in scalar C (variant table, portable).
 *
 * Tang's method with a 32-entry table of 2^(j/32) in two floats (exp_table.h): the
 * reduced argument is 16x smaller than the polynomial variant's, so a cubic is
 * enough and the result is within ~0.51 ULP.  All float arithmetic, no FMA needed.
 * Specials: NaN returns NaN; |x| > 104.5 is clamped (exp is +inf or +0 there);
 * results outside the normal range are scaled by two multiplies, the second of
 * which rounds once — correct overflow and gradual underflow. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "exp_kernels.h"
#include "exp_table.h"

static float f_bits(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static float exp_table_one(float x)
{
    if (isnan(x))
        return x + x;
    float xc = x < -EXP_TABLE_CLAMP ? -EXP_TABLE_CLAMP : x > EXP_TABLE_CLAMP ? EXP_TABLE_CLAMP : x;
    float t = xc * EXP_TABLE_INV_L + EXP_TABLE_SHIFT;
    float n = t - EXP_TABLE_SHIFT;
    uint32_t tb;
    memcpy(&tb, &t, sizeof tb);
    int32_t ni = (int32_t)(tb - EXP_TABLE_SHIFT_BITS);
    int j = ni & 31;
    int32_t m = ni >> 5; /* arithmetic shift: floor(n / 32) */
    float r = (xc - n * EXP_TABLE_L1) - n * EXP_TABLE_L2;
    float p = r + r * r * (EXP_TABLE_C2 + r * EXP_TABLE_C3);
    float v = exp_table_hi[j] + (exp_table_lo[j] + exp_table_hi[j] * p); /* [0.98, 2) */
    if (m >= -125 && m <= 126)
        return v * f_bits((uint32_t)(m + 127) << 23);  /* exact: result is normal */
    int32_t m1 = m >> 1, m2 = m - m1;  /* v*2^m1 exact, the second multiply rounds */
    return v * f_bits((uint32_t)(m1 + 127) << 23) * f_bits((uint32_t)(m2 + 127) << 23);
}

void exp_table_portable(const float *x, float *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = exp_table_one(x[i]);
}
