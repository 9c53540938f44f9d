/* ar_pattern.h — checking inputs for allreduce: a pure function of (seed, rank, index),
 * so every rank knows the exact answer without communicating.
 *
 * Element i of rank r is  v = ((h(seed, i) + r) mod 1021) - 510,  an integer in
 * [-510, 510] (h a 64-bit mix).  Integers of this size are exact in float, double and
 * int32, and any partial sum over up to 32768 ranks stays below 2^24 in magnitude, so
 * every summation order gives the same float: results are compared bitwise, for every
 * type and both operations.  Across ranks an element's values step by one (mod 1021),
 * so a rank counted twice or left out changes the sum (by a nonzero amount, unless
 * that rank's value is 0), and the expected sum and max have closed forms: checking
 * costs O(1) per element whatever p is. */
#ifndef RS_AR_PATTERN_H
#define RS_AR_PATTERN_H

#include <stddef.h>
#include <stdint.h>

#include "allreduce.h"

enum { AR_PATTERN_MAX_P_EXACT = 32768 };  /* float sums exact up to this many ranks */

void ar_pattern_fill(void *buf, size_t count, ar_dtype t, uint64_t seed, int rank);
/* The exact allreduce result at element i over ranks 0..p-1. */
double ar_pattern_expect(uint64_t seed, int p, size_t i, ar_op op);
/* Elements of buf that are not bitwise the expected result; *first_bad = the first
 * such index (or count if none). */
size_t ar_pattern_check(const void *buf, size_t count, ar_dtype t, ar_op op, uint64_t seed,
                        int p, size_t *first_bad);
/* The value stored at element i by ar_pattern_fill (for messages). */
double ar_pattern_value(uint64_t seed, int rank, size_t i);

#endif
