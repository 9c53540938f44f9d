/* bench_native.c — bench_platform.h for `allreduce-bench` on real MPI: no hooks (plain
 * MPI and libc) and no platform description, so bench_fit.c measures the model.  The
 * SMPI build links scaling/sim/smpi_hooks.c and scaling/sim/smpi_fit.c in its place. */
#include "bench_platform.h"

int ar_platform_start(void) { return 0; }

int ar_fit_from_platform(MPI_Comm comm, ar_model_range *m, char *how, size_t howlen)
{
    (void)comm, (void)m, (void)how, (void)howlen;
    return 0;
}
