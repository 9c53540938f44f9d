/* exp_schraudolph.h — constants of Schraudolph's exp (Neural Computation 11(4), 1999).
 *
 * e^x = 2^(x/ln2): writing a*x + b into a float's bit pattern puts the integer part
 * of x/ln2 in the exponent field and its fraction, linearly, in the mantissa —
 * a piecewise-linear 2^f between powers of two, ~4% worst relative error.  The
 * paper writes into the high 32 bits of a double (20 mantissa bits):
 *   a = 2^20/ln2, b = 1023 * 2^20 - c, c = 60801 (minimizes the RMS relative error).
 * In a float's own 23 mantissa bits the same line is a = 2^23/ln2,
 * b = 127 * 2^23 - 8c.  Valid while the result is a normal float: x in [-87, 88]. */
#ifndef RS_EXP_SCHRAUDOLPH_H
#define RS_EXP_SCHRAUDOLPH_H

#define EXP_SCHR_A_D 1512775.3951951856      /* 2^20 / ln 2 */
#define EXP_SCHR_B_D (1072693248.0 - 60801.0) /* 1023 * 2^20 - c */
#define EXP_SCHR_A_F 12102203.0f              /* 2^23 / ln 2 (12102203.16) */
#define EXP_SCHR_B_F 1064866808.0f            /* 127 * 2^23 - 8 * 60801 (float: ...816) */

#endif
