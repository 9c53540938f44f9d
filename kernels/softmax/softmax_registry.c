/* softmax_registry.c — the one table of softmax variants: it drives the CLI (`microbench
 * softmax`), the check suite and the tests.  Adding a variant = one file + one row.
 * naive comes first: speedups are measured against it. */
#include "check.h"
#include "softmax.h"

/* ---- the kernels (one file each) ---- */
void softmax_naive(const float *x, float *y, int rows, int cols);
void softmax_safe(const float *x, float *y, int rows, int cols);
void softmax_online(const float *x, float *y, int rows, int cols);

#define DECLARE_FAST(isa)                                                                  \
    void softmax_fast_##isa(const float *x, float *y, int rows, int cols);                 \
    void softmax_fast_##isa##_path(const float *x, float *y, int rows, int cols,           \
                                   softmax_path p);                                        \
    void softmax_xent_##isa(const float *x, const int *targets, float *dlogits, float *loss, \
                            int rows, int cols);                                           \
    void softmax_xent_##isa##_path(const float *x, const int *targets, float *dlogits,     \
                                   float *loss, int rows, int cols, softmax_path p);       \
    void softmax_xent_loss_##isa(const float *x, const int *targets, float *loss, int rows, \
                                 int cols);
DECLARE_FAST(avx512)
DECLARE_FAST(avx2)
DECLARE_FAST(portable)

#define ALGO_FAST "vector poly exp; exp+sum into y (optimistic max), scale pipelined; NT stores beyond the LLC"
#define ALGO_XENT "fast's row kernels + loss = max + log(sum) - x[t], dlogits = p - onehot"

#define FAST(lower_isa)                                                                    \
    {.variant = "fast", .isa = RS_ISA_##lower_isa, .algo = ALGO_FAST, .overflow_safe = 1,  \
     .run = softmax_fast_##lower_isa, .run_path = softmax_fast_##lower_isa##_path}
#define XENT(lower_isa)                                                                    \
    {.variant = "xent", .isa = RS_ISA_##lower_isa, .algo = ALGO_XENT, .overflow_safe = 1,  \
     .xent = softmax_xent_##lower_isa, .xent_loss = softmax_xent_loss_##lower_isa,         \
     .xent_path = softmax_xent_##lower_isa##_path}

/* Indices of RS_ISA_* by the names above (lower-case in the file names). */
#define RS_ISA_avx512 RS_ISA_AVX512
#define RS_ISA_avx2 RS_ISA_AVX2
#define RS_ISA_portable RS_ISA_PORTABLE

const softmax_variant softmax_variants[] = {
    {.variant = "naive", .isa = RS_ISA_PORTABLE,
     .algo = "libm expf, sum, divide (2 passes, no max: overflows)", .run = softmax_naive},
    {.variant = "safe", .isa = RS_ISA_PORTABLE,
     .algo = "libm expf; max, exp+sum into y, divide (3 passes)", .overflow_safe = 1,
     .run = softmax_safe},
    {.variant = "online", .isa = RS_ISA_PORTABLE,
     .algo = "libm expf; running max per block + sum, then y (2 passes)", .overflow_safe = 1,
     .run = softmax_online},
    FAST(avx512),
    FAST(avx2),
    FAST(portable),
    XENT(avx512),
    XENT(avx2),
    XENT(portable),
};
const int softmax_nvariants = RS_ARRAY_LEN(softmax_variants);
const rs_registry softmax_registry = RS_REGISTRY_ROWS(softmax_variants, softmax_variant, variant, isa);

const softmax_variant *softmax_find(const char *variant, rs_isa isa)
{
    return rs_registry_find(&softmax_registry, variant, isa);
}
