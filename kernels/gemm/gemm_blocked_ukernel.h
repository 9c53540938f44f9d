/* gemm_blocked_ukernel.h — the micro-kernel template of the `blocked` backend, included
 * once per ISA by gemm_blocked_<isa>.c after defining
 *   UKR_LANES   floats per vector (4 SSE, 8 AVX2, 16 AVX-512)
 *   UKR_NR      columns of the C tile (broadcasts of B per k)
 *   UKR_FN      the function's name
 *   UKR_COLS_FN the name of the same tile with B read in place (below)
 * The tile is MR = 2 vectors tall, so 2 x NR accumulators plus two A vectors and one
 * broadcast fit the register file (AVX2 16x6: 15 of 16 ymm; AVX-512 32x12: 27 of 32).
 *
 * Written in C with GCC/Clang vector extensions rather than intrinsics: the compiler
 * turns acc += a * b into FMAs under -mfma (-ffp-contract=fast is GNU C's default), and
 * the same source serves every ISA.  Fixed trip counts let it keep the accumulators in
 * registers; that is the whole point of register blocking (2 NR FMAs per 2 loads + NR
 * broadcasts), the thing a plain triple loop never gets. */
#include <string.h>

typedef float ukr_vf __attribute__((vector_size(UKR_LANES * 4)));
#define UKR_MR (2 * UKR_LANES)

static void UKR_FN(long kc, const float *restrict a, const float *restrict b,
                   float *restrict c, long ldc, float alpha, float beta)
{
    ukr_vf acc0[UKR_NR], acc1[UKR_NR];
#pragma GCC unroll 16
    for (int j = 0; j < UKR_NR; j++)
        acc0[j] = acc1[j] = (ukr_vf){0};
    for (long p = 0; p < kc; p++) {
        ukr_vf a0, a1;
        memcpy(&a0, a + p * UKR_MR, sizeof a0);
        memcpy(&a1, a + p * UKR_MR + UKR_LANES, sizeof a1);
        const float *bp = b + p * UKR_NR;
#pragma GCC unroll 16
        for (int j = 0; j < UKR_NR; j++) {
            acc0[j] += a0 * bp[j];
            acc1[j] += a1 * bp[j];
        }
    }
#pragma GCC unroll 16
    for (int j = 0; j < UKR_NR; j++) {
        float *cj = c + j * ldc;
        ukr_vf c0 = alpha * acc0[j], c1 = alpha * acc1[j];
        if (beta != 0) {
            ukr_vf o0, o1;
            memcpy(&o0, cj, sizeof o0);
            memcpy(&o1, cj + UKR_LANES, sizeof o1);
            c0 += beta * o0;
            c1 += beta * o1;
        }
        memcpy(cj, &c0, sizeof c0);
        memcpy(cj + UKR_LANES, &c1, sizeof c1);
    }
}

/* The same tile with op(B) read in place: column j of the tile takes its broadcasts
 * from cols[j][0..kc) (one contiguous run of K), so a big operand whose rows run along
 * K needs no packing (gemm_blocked_skinny.c).  Writes the MR x NR tile to t
 * (column-major, ld MR, alpha 1, beta 0) for the driver to merge. */
static void UKR_COLS_FN(long kc, const float *restrict a, const float *const *cols,
                        float *restrict t)
{
    ukr_vf acc0[UKR_NR], acc1[UKR_NR];
    const float *bj[UKR_NR];
#pragma GCC unroll 16
    for (int j = 0; j < UKR_NR; j++) {
        bj[j] = cols[j];
        acc0[j] = acc1[j] = (ukr_vf){0};
    }
    for (long p = 0; p < kc; p++) {
        ukr_vf a0, a1;
        memcpy(&a0, a + p * UKR_MR, sizeof a0);
        memcpy(&a1, a + p * UKR_MR + UKR_LANES, sizeof a1);
#pragma GCC unroll 16
        for (int j = 0; j < UKR_NR; j++) {
            acc0[j] += a0 * bj[j][p];
            acc1[j] += a1 * bj[j][p];
        }
    }
#pragma GCC unroll 16
    for (int j = 0; j < UKR_NR; j++) {
        memcpy(t + j * UKR_MR, &acc0[j], sizeof acc0[j]);
        memcpy(t + j * UKR_MR + UKR_LANES, &acc1[j], sizeof acc1[j]);
    }
}
