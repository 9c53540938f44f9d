/* gemm_blocked_avx2.c — the `blocked` backend's AVX2+FMA micro-kernel, 16x6 (the
 * shape of BLIS's haswell sgemm kernel), built with -mavx2 -mfma.  Cache blocks: an
 * mc x kc block of A (144 x 256 x 4 B = 144 KiB) sits in a 256-512 KiB L2. */
#include "gemm_blocked.h"

#define UKR_LANES 8
#define UKR_NR 6
#define UKR_FN gemm_blocked_ukernel_avx2_16x6
#define UKR_COLS_FN gemm_blocked_ukernel_avx2_16x6_cols
#include "gemm_blocked_ukernel.h"

const gemm_ukernel gemm_ukernel_avx2 = {
    .name = "gemm_blocked_ukernel_avx2_16x6", .label = "avx2 16x6", .isa = RS_ISA_AVX2,
    .mr = 16, .nr = 6, .mc = 144, .kc = 256, .nc = 4080, .run = UKR_FN,
    .cols = UKR_COLS_FN,
};
