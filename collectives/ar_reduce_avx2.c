/* ar_reduce_avx2.c — the local reduction compiled for AVX2 (the Makefile gives *_avx2.c
 * files -mavx2 -mfma); called only where CPUID reports AVX2 (allreduce.c). */
#include "ar_reduce_loops.h"

AR_DEFINE_REDUCE(ar_reduce_avx2)
