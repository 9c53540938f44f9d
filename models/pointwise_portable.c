/* pointwise_portable.c — the cells' point-wise math for any x86-64 (SSE2): the same
 * source as pointwise_avx2.c on 4-lane vectors; without FMA the exp's Horner steps
 * round twice (~1.1 ULP instead of 0.9), far below what training can see.  Also the
 * home of the dispatch. */
#define EXP_POLY_W 4
#include "pointwise_core.h"
#include "registry.h"

POINTWISE_DEFINE(portable)

const pointwise_kernels pointwise_portable = {.name = "poly portable", .isa = RS_ISA_PORTABLE,
                                              .lstm_fwd = pw_lstm_fwd_portable,
                                              .tanh_inplace = pw_tanh_inplace_portable};

const pointwise_kernels *const pointwise_all[3] = {&pointwise_avx512, &pointwise_avx2,
                                                   &pointwise_portable};

const pointwise_kernels *pointwise_best(void)
{
    static const rs_registry all = RS_REGISTRY_PTRS_ISA(pointwise_all, pointwise_kernels, name, isa);
    return rs_registry_first_supported(&all);
}
