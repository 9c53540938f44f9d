/* pointwise_avx512.c — the cells' point-wise math, 16 lanes of AVX-512
 * (pointwise_core.h on exp_poly_core.h; built with the AVX-512 flags by the *_avx512
 * rule, called only where CPUID reports AVX-512). */
#define EXP_POLY_W 16
#include "pointwise_core.h"

POINTWISE_DEFINE(avx512)

const pointwise_kernels pointwise_avx512 = {.name = "poly avx512", .isa = RS_ISA_AVX512,
                                            .lstm_fwd = pw_lstm_fwd_avx512,
                                            .tanh_inplace = pw_tanh_inplace_avx512};
