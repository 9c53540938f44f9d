/* pointwise_avx2.c — the cells' point-wise math, 8 lanes of AVX2 + FMA
 * (pointwise_core.h on exp_poly_core.h; built with -mavx2 -mfma by the *_avx2 rule). */
#define EXP_POLY_W 8
#include "pointwise_core.h"

POINTWISE_DEFINE(avx2)

const pointwise_kernels pointwise_avx2 = {.name = "poly avx2", .isa = RS_ISA_AVX2,
                                          .lstm_fwd = pw_lstm_fwd_avx2,
                                          .tanh_inplace = pw_tanh_inplace_avx2};
