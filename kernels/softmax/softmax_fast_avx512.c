/* softmax_fast_avx512.c — the `fast` softmax for AVX-512 (16 lanes; built with -mavx512f by the Makefile, called only where rs_isa_supported says so):
 * softmax_fast_core.h instantiated at EXP_POLY_W = 16.  The algorithm, its paths and its
 * special values are described there; registered in softmax_registry.c. */
#define EXP_POLY_W 16
#include "softmax_fast_core.h"

SOFTMAX_FAST_DEFINE(avx512)
