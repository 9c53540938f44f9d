/* exp_table.h — constants of the table-driven expf (Tang, ACM TOMS 15, 1989), shared
 * by exp_table_portable.c and exp_table_avx2.c.
 *
 *   n = round(x * 32/ln2), j = n mod 32, m = floor(n / 32)
 *   r = x - n*L1 - n*L2          L1 = (ln 2)/32 to 11 bits: n*L1 is exact for
 *                                |n| <= 2^13, and x - n*L1 is exact (Sterbenz)
 *   p = r + C2 r^2 + C3 r^3      e^r - 1 on |r| <= ln2/64
 *   e^x = 2^m * (T_hi[j] + (T_lo[j] + T_hi[j] * p))   T = 2^(j/32) = T_hi + T_lo
 * |r| is so small that its rounding costs < 0.01 ULP; the final add rounds once
 * onto T_hi, which gives ~0.51 ULP.
 *
 * Origin of the numbers (computed for this project): T_hi = 2^(j/32) rounded to
 * float, T_lo = the rest rounded to float, both from 60-digit decimal arithmetic;
 * C2, C3: relative-error minimax of e^r = 1 + r + C2 r^2 + C3 r^3 on
 * |r| <= 1.01 * ln2/64 by Lawson's iteration, rounded to float one at a time
 * (max relative error 1.04e-10; the 1% margin covers an n off by one when x*32/ln2
 * is rounded twice without FMA). */
#ifndef RS_EXP_TABLE_H
#define RS_EXP_TABLE_H

#define EXP_TABLE_INV_L 0x1.715476p+5f     /* 32/ln2 */
#define EXP_TABLE_L1    0x1.63p-6f         /* (ln 2)/32, 11 significant bits */
#define EXP_TABLE_L2    -0x1.bd0106p-18f   /* (ln 2)/32 - L1 */
#define EXP_TABLE_C2    0x1.00008ap-1f
#define EXP_TABLE_C3    0x1.555566p-3f
#define EXP_TABLE_SHIFT 0x1.8p23f          /* adding it rounds to an integer */
#define EXP_TABLE_SHIFT_BITS 0x4b400000
#define EXP_TABLE_CLAMP 104.5f             /* beyond: +inf or +0 after rounding anyway */
#define EXP_TABLE_FAST  86.0f              /* |x| <= this: result normal, m in [-125, 124] */

/* 2^(j/32) = hi + lo, j = 0..31. */
static const float exp_table_hi[32] = {
    0x1p+0f,        0x1.059b0ep+0f, 0x1.0b5586p+0f, 0x1.11301ep+0f, 0x1.172b84p+0f,
    0x1.1d4874p+0f, 0x1.2387a6p+0f, 0x1.29e9e0p+0f, 0x1.306fe0p+0f, 0x1.371a74p+0f,
    0x1.3dea64p+0f, 0x1.44e086p+0f, 0x1.4bfdaep+0f, 0x1.5342b6p+0f, 0x1.5ab07ep+0f,
    0x1.6247ecp+0f, 0x1.6a09e6p+0f, 0x1.71f75ep+0f, 0x1.7a1148p+0f, 0x1.82589ap+0f,
    0x1.8ace54p+0f, 0x1.93737cp+0f, 0x1.9c4918p+0f, 0x1.a5503cp+0f, 0x1.ae89fap+0f,
    0x1.b7f770p+0f, 0x1.c199bep+0f, 0x1.cb720ep+0f, 0x1.d5818ep+0f, 0x1.dfc974p+0f,
    0x1.ea4afap+0f, 0x1.f50766p+0f,
};
static const float exp_table_lo[32] = {
    0x0p+0f,         -0x1.9d4f52p-25f, 0x1.9f3122p-25f,  -0x1.fdb496p-25f, -0x1.c15742p-27f,
    -0x1.d2e8cap-25f, 0x1.ceac48p-25f,  -0x1.5c0424p-25f, 0x1.4636e2p-25f,  -0x1.18aac6p-25f,
    0x1.824684p-25f,  0x1.8624b4p-30f,  -0x1.593abcp-25f, -0x1.2c5610p-25f, -0x1.5bd5ecp-27f,
    -0x1.f8b550p-25f, 0x1.9fcef4p-26f,  0x1.1d8beep-25f,  -0x1.829fd0p-25f, -0x1.accc7cp-26f,
    0x1.15506ep-27f,  -0x1.e64744p-25f, 0x1.51f848p-27f,  -0x1.b83b54p-25f, -0x1.a94b14p-26f,
    -0x1.a09438p-25f, -0x1.3d56b2p-27f, -0x1.8837ccp-27f, -0x1.822dbcp-27f, -0x1.908c94p-25f,
    0x1.52486cp-27f,  -0x1.246eb0p-26f,
};

#endif
