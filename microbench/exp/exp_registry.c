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
 * Order: the scalar libm loop first (the seed's "before"), then the libraries, then
 * the project's own variants, fastest-but-crudest last. */
#include <math.h>
#include <string.h>

#include "exp.h"
#include "exp_kernels.h"

#define ALL -INFINITY, INFINITY /* every input: the bound holds for all floats */

const exp_variant exp_variants[] = {
    /* glibc 2.36: 0.5014 measured (every float in [-104, 89]) */
    {"libm", RS_ISA_PORTABLE, "expf (glibc, scalar loop)", 0.51, 1, ALL, exp_libm_portable},
#ifdef HAVE_LIBMVEC
    /* glibc promises <= 4 ULP for libmvec; 2.56 measured on the seed's AVX-512 machine */
    {"libmvec", RS_ISA_AVX512, "_ZGVeN16v_expf (glibc libmvec)", 4.0, 1, ALL, exp_libmvec_avx512},
    /* 2.637 measured; the row keeps libmvec's own 4-ULP promise */
    {"libmvec", RS_ISA_AVX2, "_ZGVdN8v_expf (glibc libmvec)", 4.0, 1, ALL, exp_libmvec_avx2},
#endif
#ifdef HAVE_SLEEF
    /* SLEEF documents 1.0 ULP for *_u10; same algorithm as the AVX2 build */
    {"sleef", RS_ISA_AVX512, "Sleef_expf16_u10avx512f", 1.0, 1, ALL, exp_sleef_avx512},
    /* 0.988 measured */
    {"sleef", RS_ISA_AVX2, "Sleef_expf8_u10avx2", 1.0, 1, ALL, exp_sleef_avx2},
#endif
    /* 0.753 measured (0.51 for normal results; subnormal ones round twice) */
    {"table", RS_ISA_AVX2, "2^(j/32) table, vgatherdps", 0.8, 1, ALL, exp_table_avx2},
    /* 0.755 measured */
    {"table", RS_ISA_PORTABLE, "2^(j/32) table, scalar", 0.8, 1, ALL, exp_table_portable},
    /* 0.901 measured on its arithmetic built for AVX2 (exp_poly_w16_avx2.c) */
    {"poly", RS_ISA_AVX512, "degree-6 poly + vscalefps", 1.0, 1, ALL, exp_poly_avx512},
    /* 0.901 measured */
    {"poly", RS_ISA_AVX2, "degree-6 poly + exponent add", 1.0, 1, ALL, exp_poly_avx2},
    /* 0.543 measured (evaluated in double) */
    {"poly", RS_ISA_PORTABLE, "degree-6 poly in double", 0.55, 1, ALL, exp_poly_portable},
    /* same arithmetic as the AVX2 build */
    {"schraudolph", RS_ISA_AVX512, "Schraudolph 1999, float bits", 5e5, 0, -87.0f, 88.0f,
     exp_schraudolph_avx512},
    /* 486452 measured on [-87, 88] (the ~4% relative error, in ULPs) */
    {"schraudolph", RS_ISA_AVX2, "Schraudolph 1999, float bits", 5e5, 0, -87.0f, 88.0f,
     exp_schraudolph_avx2},
    /* 486416 measured on [-87, 88] */
    {"schraudolph", RS_ISA_PORTABLE, "Schraudolph 1999, double high word", 5e5, 0, -87.0f,
     88.0f, exp_schraudolph_portable},
};

const int exp_nvariants = (int)(sizeof exp_variants / sizeof exp_variants[0]);

const exp_variant *exp_find(const char *variant, rs_isa isa)
{
    for (int i = 0; i < exp_nvariants; i++)
        if (exp_variants[i].isa == isa && strcmp(exp_variants[i].variant, variant) == 0)
            return &exp_variants[i];
    return NULL;
}
