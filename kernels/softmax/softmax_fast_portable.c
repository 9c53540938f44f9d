/* softmax_fast_portable.c — the `fast` softmax for portable C (4 lanes: SSE2 on x86-64, generic vectors elsewhere):
 * softmax_fast_core.h instantiated at EXP_POLY_W = 4.  The algorithm, its paths and its
 * special values are described there; registered in softmax_registry.c. */
#define EXP_POLY_W 4
#include "softmax_fast_core.h"

SOFTMAX_FAST_DEFINE(portable)
