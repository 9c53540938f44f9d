/* gemm_dl.h — loading a BLAS-like library privately, with its kernel dispatch either
 * corrected (the peak probe's fix) or left to the library (its own default).
 *
 * Why dlopen and not linking: OpenBLAS and BLIS export the same symbols (sgemm_,
 * cblas_sgemm), so linking both would silently run one of them twice.  Each library is
 * opened RTLD_LOCAL and its entry points taken with dlsym; a library that is missing
 * only makes its backend unavailable. */
#ifndef RS_GEMM_DL_H
#define RS_GEMM_DL_H

#include "peak.h"

typedef enum {
    GEMM_DL_FIXED,    /* dlopen here, after the probe set OPENBLAS_CORETYPE / BLIS_ARCH_TYPE */
    GEMM_DL_DEFAULT,  /* a second, independent copy: dlmopen into a new link namespace
                         with `var` hidden while it loads and `init` runs */
} gemm_dl_mode;

/* kernels/peak's probe (peak_blas_probe with allow_fix), run once per process:
 * the entry for "openblas" or "blis", or NULL if the probe did not find the library. */
const peak_blas *gemm_blas_probe(const char *lib);

/* Open `soname` (the probe runs first in either mode, so every setenv of this process
 * happens before any copy is loaded).  `init(h)`, if given, runs right after the load,
 * still inside the hidden-variable window (BLIS reads BLIS_ARCH_TYPE in bli_init).
 * NULL with rs_lasterr when the library cannot be loaded. */
void *gemm_dl_open(const char *soname, const char *var, gemm_dl_mode mode,
                   void (*init)(void *h));
/* Before any copy of OpenBLAS loads (gemm_dl_open calls it first, the probe's children
 * included): OPENBLAS_NUM_THREADS lowered, unless the user set it, to the threads whose
 * buffers the process can still map (gemm_openblas.c). */
void gemm_openblas_fit_threads(void);

/* dlsym that records "<lib>: no symbol <name>" when missing. */
void *gemm_dl_sym(void *h, const char *lib, const char *name);

/* "Zen", "SkylakeX (fixed from Prescott)", "Haswell (OPENBLAS_CORETYPE=Haswell set by
 * the user)" or "Prescott (default)": what the copy runs and how it was chosen. */
void gemm_dl_describe(char *buf, size_t len, const char *kernel, const peak_blas *pb,
                      const char *var, gemm_dl_mode mode);

#endif
