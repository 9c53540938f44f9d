/* softmax_xent_avx512.c — the fused cross-entropy (`xent`: log-softmax + NLL forward, and
 * dlogits = softmax - onehot) for AVX-512 (16 lanes; built with -mavx512f by the Makefile, called only where rs_isa_supported says so):
 * softmax_fast_core.h instantiated at EXP_POLY_W = 16, the same row kernels as `fast`. */
#define EXP_POLY_W 16
#include "softmax_fast_core.h"

XENT_FAST_DEFINE(avx512)
