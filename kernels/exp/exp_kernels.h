/* exp_kernels.h — the entry point of every expf kernel, one per file.
 *
 * Each computes y[i] = e^x[i] for i < n (the exp_fn contract of exp.h) and may only
 * be called when its ISA (the name's suffix) is supported.  exp_registry.c lists them
 * with what they promise; the tests call exp_poly_w16_avx2 directly: it is not a
 * variant but the AVX-512 poly arithmetic built for AVX2 (see exp_poly_core.h). */
#ifndef RS_EXP_KERNELS_H
#define RS_EXP_KERNELS_H

#include <stddef.h>

void exp_libm_portable(const float *x, float *y, size_t n);
void exp_libmvec_avx2(const float *x, float *y, size_t n);
void exp_libmvec_avx512(const float *x, float *y, size_t n);
void exp_sleef_avx2(const float *x, float *y, size_t n);
void exp_sleef_avx512(const float *x, float *y, size_t n);
void exp_table_portable(const float *x, float *y, size_t n);
void exp_table_avx2(const float *x, float *y, size_t n);
void exp_poly_portable(const float *x, float *y, size_t n);
void exp_poly_avx2(const float *x, float *y, size_t n);
void exp_poly_avx512(const float *x, float *y, size_t n);
void exp_poly_w16_avx2(const float *x, float *y, size_t n);
void exp_schraudolph_portable(const float *x, float *y, size_t n);
void exp_schraudolph_avx2(const float *x, float *y, size_t n);
void exp_schraudolph_avx512(const float *x, float *y, size_t n);

#endif
