/* exp_registry.c — the one table of expf variants: it drives `microbench exp`, the
 * tests and the sweeps.  Adding a variant = one file + one row here.
 *
 * Each row states what the variant promises; the tests hold it to that, and
 * `microbench exp` reports a wrong result (exit 1) when a run breaks it:
 *   ulp_bound  max ULP error over [domain_lo, domain_hi] — measured over every float
 *              in [-104, 89] on this project's machine where the ISA runs here, then
 *              rounded up (the comment gives the measured maximum);
 *   specials   1: NaN, ±inf, ±0, overflow to +inf and underflow to +0 exact.
 * Rows of optional libraries are compiled only where the Makefile found them.
 * Order: the scalar libm loop first (the Sunway TaihuLight study's "before"), then the libraries, then
 * the project's own variants, fastest-but-crudest last. */
#include <math.h>
#include "check.h"
#include "exp.h"
#include "exp_kernels.h"

/* every input: the bound holds for all floats */
#define ALL_FLOATS .domain_lo = -INFINITY, .domain_hi = INFINITY

const exp_variant exp_variants[] = {
    /* glibc 2.36: 0.5014 measured (every float in [-104, 89]) */
    {.variant = "libm", .isa = RS_ISA_PORTABLE, .impl = "expf (glibc, scalar loop)",
     .ulp_bound = 0.51, .specials = 1, ALL_FLOATS, .run = exp_libm_portable},
#ifdef HAVE_LIBMVEC
    /* glibc promises <= 4 ULP for libmvec; 2.56 measured on an AVX-512 Xeon */
    {.variant = "libmvec", .isa = RS_ISA_AVX512, .impl = "_ZGVeN16v_expf (glibc libmvec)",
     .ulp_bound = 4.0, .specials = 1, ALL_FLOATS, .run = exp_libmvec_avx512},
    /* 2.637 measured; the row keeps libmvec's own 4-ULP promise */
    {.variant = "libmvec", .isa = RS_ISA_AVX2, .impl = "_ZGVdN8v_expf (glibc libmvec)",
     .ulp_bound = 4.0, .specials = 1, ALL_FLOATS, .run = exp_libmvec_avx2},
#endif
#ifdef HAVE_SLEEF
    /* SLEEF documents 1.0 ULP for *_u10; same algorithm as the AVX2 build */
    {.variant = "sleef", .isa = RS_ISA_AVX512, .impl = "Sleef_expf16_u10avx512f",
     .ulp_bound = 1.0, .specials = 1, ALL_FLOATS, .run = exp_sleef_avx512},
    /* 0.988 measured */
    {.variant = "sleef", .isa = RS_ISA_AVX2, .impl = "Sleef_expf8_u10avx2",
     .ulp_bound = 1.0, .specials = 1, ALL_FLOATS, .run = exp_sleef_avx2},
#endif
    /* 0.753 measured (0.51 for normal results; subnormal ones round twice) */
    {.variant = "table", .isa = RS_ISA_AVX2, .impl = "2^(j/32) table, vgatherdps",
     .ulp_bound = 0.8, .specials = 1, ALL_FLOATS, .run = exp_table_avx2},
    /* 0.755 measured */
    {.variant = "table", .isa = RS_ISA_PORTABLE, .impl = "2^(j/32) table, scalar",
     .ulp_bound = 0.8, .specials = 1, ALL_FLOATS, .run = exp_table_portable},
    /* 0.901 measured on its arithmetic built for AVX2 (exp_poly_w16_avx2.c) */
    {.variant = "poly", .isa = RS_ISA_AVX512, .impl = "degree-6 poly + vscalefps",
     .ulp_bound = 1.0, .specials = 1, ALL_FLOATS, .run = exp_poly_avx512},
    /* 0.901 measured */
    {.variant = "poly", .isa = RS_ISA_AVX2, .impl = "degree-6 poly + exponent add",
     .ulp_bound = 1.0, .specials = 1, ALL_FLOATS, .run = exp_poly_avx2},
    /* 0.543 measured (evaluated in double) */
    {.variant = "poly", .isa = RS_ISA_PORTABLE, .impl = "degree-6 poly in double",
     .ulp_bound = 0.55, .specials = 1, ALL_FLOATS, .run = exp_poly_portable},
    /* same arithmetic as the AVX2 build */
    {.variant = "schraudolph", .isa = RS_ISA_AVX512, .impl = "Schraudolph 1999, float bits",
     .ulp_bound = 5e5, .specials = 0, .domain_lo = -87.0f, .domain_hi = 88.0f,
     .run = exp_schraudolph_avx512},
    /* 486452 measured on [-87, 88] (the ~4% relative error, in ULPs) */
    {.variant = "schraudolph", .isa = RS_ISA_AVX2, .impl = "Schraudolph 1999, float bits",
     .ulp_bound = 5e5, .specials = 0, .domain_lo = -87.0f, .domain_hi = 88.0f,
     .run = exp_schraudolph_avx2},
    /* 486416 measured on [-87, 88] */
    {.variant = "schraudolph", .isa = RS_ISA_PORTABLE, .impl = "Schraudolph 1999, double high word",
     .ulp_bound = 5e5, .specials = 0, .domain_lo = -87.0f, .domain_hi = 88.0f,
     .run = exp_schraudolph_portable},
};

const int exp_nvariants = RS_ARRAY_LEN(exp_variants);
const rs_registry exp_registry = RS_REGISTRY_ROWS(exp_variants, exp_variant, variant, isa);

const exp_variant *exp_find(const char *variant, rs_isa isa)
{
    return rs_registry_find(&exp_registry, variant, isa);
}
