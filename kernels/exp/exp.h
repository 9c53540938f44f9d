/* exp.h — the expf variants, one file each behind one interface: the kernels
 * `microbench exp` studies (microbench/exp/cmd_exp.c) and the tests check.
 *
 * Every variant computes y[i] = e^x[i] for float arrays (n any size; x and y may
 * not alias; no alignment required).  Each declares the accuracy it promises — a max
 * ULP error over its domain and whether C99 Annex F special values are exact (NaN in
 * -> NaN out, exp(+inf) = +inf, exp(-inf) = +0, exp(±0) = 1, overflow to +inf,
 * underflow to +0 through correctly scaled subnormals) — and the tests hold it to that.
 * The reference is exp() in double precision; errors are measured in ULPs
 * of the float result at the reference (exp_accuracy.h).
 *
 * Names are part of the user-facing contract: variants libm, libmvec, sleef, poly,
 * table, schraudolph; ISAs avx512, avx2, portable. */
#ifndef RS_EXP_H
#define RS_EXP_H

#include <stddef.h>

#include "cpu.h"
#include "registry.h"

typedef void (*exp_fn)(const float *x, float *y, size_t n);

typedef struct {
    const char *variant;   /* "poly" */
    rs_isa isa;            /* instruction set it needs (checked before calling) */
    const char *impl;      /* what actually runs, e.g. "Sleef_expf16_u10" */
    double ulp_bound;      /* declared max ULP error on [domain_lo, domain_hi] */
    int specials;          /* 1: special values exact as above; 0: not handled */
    float domain_lo, domain_hi; /* inputs where ulp_bound holds */
    exp_fn run;
} exp_variant;

/* The registry (exp_registry.c): every variant compiled in, in display order.
 * The scalar libm loop is first: it is the Sunway TaihuLight study's "before". */
extern const exp_variant exp_variants[];
extern const int exp_nvariants;
extern const rs_registry exp_registry;   /* the same rows, for registry.h's lookups */

/* Look up by variant and ISA; NULL if none. */
const exp_variant *exp_find(const char *variant, rs_isa isa);

/* The FMA-port bound: the vector operations per vector that the own polynomial's loop
 * (exp_poly_avx512.c) issues to the FMA ports, divided over the vector FMAs per cycle
 * the machine measured.  Its loop is 13 operations per 16 floats: 9 FMAs (rounding to
 * k, the two-part reduction's 2, Horner's 6) and vscalefps take the FMA/multiply ports;
 * the clamp's max and min and the subtract that recovers k issue to the FP adder
 * ports beside them, so 10 ops bound the loop.  Stated once here so every figure (the
 * report's exp target included) uses the same bound: ~0.3 cycles/element on 2 full
 * 512-bit FMA ports, ~0.44 on a Zen 4, whose 512-bit FMA is double-pumped. */
#define EXP_BOUND_VECOPS 10.0

#endif
