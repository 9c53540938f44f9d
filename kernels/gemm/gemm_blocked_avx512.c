/* gemm_blocked_avx512.c — the `blocked` backend's AVX-512 micro-kernel, 32x12 (the
 * shape of BLIS's skx sgemm kernel), built with the AVX-512 flags.  Cache blocks: an
 * mc x kc block of A (192 x 384 x 4 B = 288 KiB) sits in Skylake-SP's 1 MiB L2. */
#include "gemm_blocked.h"

#define UKR_LANES 16
#define UKR_NR 12
#define UKR_FN gemm_blocked_ukernel_avx512_32x12
#define UKR_COLS_FN gemm_blocked_ukernel_avx512_32x12_cols
#include "gemm_blocked_ukernel.h"

const gemm_ukernel gemm_ukernel_avx512 = {
    .name = "gemm_blocked_ukernel_avx512_32x12", .label = "avx512 32x12", .isa = RS_ISA_AVX512,
    .mr = 32, .nr = 12, .mc = 192, .kc = 384, .nc = 3072, .run = UKR_FN,
    .cols = UKR_COLS_FN,
};
