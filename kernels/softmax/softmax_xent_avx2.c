/* softmax_xent_avx2.c — the fused cross-entropy (`xent`: log-softmax + NLL forward, and
 * dlogits = softmax - onehot) for AVX2+FMA (8 lanes):
 * softmax_fast_core.h instantiated at EXP_POLY_W = 8, the same row kernels as `fast`. */
#define EXP_POLY_W 8
#include "softmax_fast_core.h"

XENT_FAST_DEFINE(avx2)
