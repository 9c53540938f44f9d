/* ar_reduce_loops.h — the body of the local reduction, stamped out once per ISA:
 * allreduce.c makes ar_reduce_portable (baseline x86-64: SSE2) and ar_reduce_avx2.c
 * makes ar_reduce_avx2 (compiled with -mavx2 -mfma); ar_reduce_local() picks one at
 * run time by CPUID.  Plain loops over restrict pointers, built with -ftree-vectorize
 * (collectives.mk): the compiler vectorizes them at the file's ISA.  Sum and max are
 * commutative, so a op b == b op a bitwise: two ranks combining the same partials in
 * either order get the same bits, and every ISA gives the same bits (no FMA, no
 * reassociation: element i only ever sees a[i] op b[i]). */
#ifndef RS_AR_REDUCE_LOOPS_H
#define RS_AR_REDUCE_LOOPS_H

#include <stdint.h>

#include "allreduce.h"

#define AR_REDUCE_LOOP(T, EXPR)                                                 \
    do {                                                                        \
        T *restrict a = inout;                                                  \
        const T *restrict b = in;                                               \
        for (size_t i = 0; i < count; i++)                                      \
            a[i] = EXPR;                                                        \
    } while (0)

/* int32 sums wrap (two's complement), as MPI_SUM does in practice: no signed overflow. */
#define AR_DEFINE_REDUCE(FNAME)                                                              \
    void FNAME(void *inout, const void *in, size_t count, ar_dtype t, ar_op op)              \
    {                                                                                        \
        switch (t * AR_NOPS + op) {                                                          \
        case AR_FLOAT * AR_NOPS + AR_SUM: AR_REDUCE_LOOP(float, a[i] + b[i]); break;         \
        case AR_FLOAT * AR_NOPS + AR_MAX: AR_REDUCE_LOOP(float, b[i] > a[i] ? b[i] : a[i]); break; \
        case AR_DOUBLE * AR_NOPS + AR_SUM: AR_REDUCE_LOOP(double, a[i] + b[i]); break;       \
        case AR_DOUBLE * AR_NOPS + AR_MAX: AR_REDUCE_LOOP(double, b[i] > a[i] ? b[i] : a[i]); break; \
        case AR_INT32 * AR_NOPS + AR_SUM:                                                    \
            AR_REDUCE_LOOP(int32_t, (int32_t)((uint32_t)a[i] + (uint32_t)b[i])); break;      \
        case AR_INT32 * AR_NOPS + AR_MAX: AR_REDUCE_LOOP(int32_t, b[i] > a[i] ? b[i] : a[i]); break; \
        default: break;                                                                      \
        }                                                                                    \
    }

#endif
