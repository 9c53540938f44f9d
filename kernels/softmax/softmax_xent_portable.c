/* softmax_xent_portable.c — the fused cross-entropy (`xent`: log-softmax + NLL forward, and
 * dlogits = softmax - onehot) for portable C (4 lanes: SSE2 on x86-64, generic vectors elsewhere):
 * softmax_fast_core.h instantiated at EXP_POLY_W = 4, the same row kernels as `fast`. */
#define EXP_POLY_W 4
#include "softmax_fast_core.h"

XENT_FAST_DEFINE(portable)
