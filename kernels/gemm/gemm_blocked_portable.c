/* gemm_blocked_portable.c — the `blocked` backend's baseline micro-kernel, 8x4 on the
 * 16-byte vectors every x86-64 has (SSE2: separate multiply and add, no FMA), for
 * CPUs without AVX2.  8 accumulators leave room for the products in 16 xmm registers. */
#include "gemm_blocked.h"

#define UKR_LANES 4
#define UKR_NR 4
#define UKR_FN gemm_blocked_ukernel_portable_8x4
#define UKR_COLS_FN gemm_blocked_ukernel_portable_8x4_cols
#include "gemm_blocked_ukernel.h"

const gemm_ukernel gemm_ukernel_portable = {
    .name = "gemm_blocked_ukernel_portable_8x4", .label = "portable 8x4", .isa = RS_ISA_PORTABLE,
    .mr = 8, .nr = 4, .mc = 128, .kc = 256, .nc = 2048, .run = UKR_FN,
    .cols = UKR_COLS_FN,
};
