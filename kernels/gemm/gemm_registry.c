/* gemm_registry.c — the one table of GEMM backends: it drives the CLI (--backend,
 * --list), the default campaign and the tests.  Adding a backend = one file + one row.
 * naive comes first: it is the oracle.  A ":default" row follows the library it pairs
 * with, so a table shows corrected and default dispatch side by side. */
#include "check.h"
#include "gemm.h"

const gemm_backend *const gemm_backends[] = {
    &gemm_backend_naive,
    &gemm_backend_blocked,
    &gemm_backend_openblas,
    &gemm_backend_openblas_default,
    &gemm_backend_blis,
    &gemm_backend_blis_default,
    &gemm_backend_libxsmm,
    &gemm_backend_onednn,
};
const int gemm_nbackends = RS_ARRAY_LEN(gemm_backends);

const rs_registry gemm_registry = RS_REGISTRY_PTRS(gemm_backends, gemm_backend, name);

const gemm_backend *gemm_find(const char *name)
{
    return rs_registry_find(&gemm_registry, name, RS_REGISTRY_ANY_ISA);
}
