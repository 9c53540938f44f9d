/* softmax_registry.c — the one table of softmax variants: it drives the CLI (`microbench
 * softmax`), the check suite and the tests.  Adding a variant = one file + one row.
 * naive comes first: speedups are measured against it. */
#include <string.h>

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

#define FAST(isa) {"fast", RS_ISA_##isa, ALGO_FAST, 1, softmax_fast_##isa, NULL, NULL, softmax_fast_##isa##_path, NULL}
#define XENT(isa) {"xent", RS_ISA_##isa, ALGO_XENT, 1, NULL, softmax_xent_##isa, softmax_xent_loss_##isa, NULL, softmax_xent_##isa##_path}

/* Indices of RS_ISA_* by the names above (lower-case in the file names). */
#define RS_ISA_avx512 RS_ISA_AVX512
#define RS_ISA_avx2 RS_ISA_AVX2
#define RS_ISA_portable RS_ISA_PORTABLE

const softmax_variant softmax_variants[] = {
    {"naive", RS_ISA_PORTABLE, "libm expf, sum, divide (2 passes, no max: overflows)", 0,
     softmax_naive, NULL, NULL, NULL, NULL},
    {"safe", RS_ISA_PORTABLE, "libm expf; max, exp+sum into y, divide (3 passes)", 1,
     softmax_safe, NULL, NULL, NULL, NULL},
    {"online", RS_ISA_PORTABLE, "libm expf; running max per block + sum, then y (2 passes)", 1,
     softmax_online, NULL, NULL, NULL, NULL},
    FAST(avx512),
    FAST(avx2),
    FAST(portable),
    XENT(avx512),
    XENT(avx2),
    XENT(portable),
};
const int softmax_nvariants = (int)(sizeof softmax_variants / sizeof softmax_variants[0]);

const softmax_variant *softmax_find(const char *variant, rs_isa isa)
{
    for (int k = 0; k < softmax_nvariants; k++)
        if (strcmp(softmax_variants[k].variant, variant) == 0 && softmax_variants[k].isa == isa)
            return &softmax_variants[k];
    return NULL;
}
