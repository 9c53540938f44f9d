/* softmax_w16_avx2.c — the AVX-512 variants' 16-lane code (fast and xent) compiled for
 * AVX2: the same source and the same IEEE operations as softmax_fast_avx512.c and
 * softmax_xent_avx512.c (GCC splits each 16-lane operation into two 8-lane ones; max
 * is maxps either way), so running it verifies the AVX-512 arithmetic — block and
 * tail handling included — on machines without AVX-512.  Not in the registry: the
 * tests call it (softmax.h). */
#define EXP_POLY_W 16
#include "softmax_fast_core.h"

SOFTMAX_FAST_DEFINE(w16_avx2)
XENT_FAST_DEFINE(w16_avx2)
