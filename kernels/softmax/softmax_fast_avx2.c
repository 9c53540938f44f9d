/* softmax_fast_avx2.c — the `fast` softmax for AVX2+FMA (8 lanes):
 * softmax_fast_core.h instantiated at EXP_POLY_W = 8.  The algorithm, its paths and its
 * special values are described there; registered in softmax_registry.c. */
#define EXP_POLY_W 8
#include "softmax_fast_core.h"

SOFTMAX_FAST_DEFINE(avx2)
