/* bench_platform.h — what each build of `allreduce-bench` links from exactly one of two
 * files, chosen by the Makefile: collectives/bench_native.c (real MPI: nothing to adapt,
 * the model measured) or scaling/sim/smpi_hooks.c with scaling/sim/smpi_fit.c (SimGrid SMPI:
 * hooks for the simulation, the model from the platform). */
#ifndef RS_AR_BENCH_PLATFORM_H
#define RS_AR_BENCH_PLATFORM_H

#include <mpi.h>
#include <stddef.h>

#include "bench_fit.h"

/* Right after MPI_Init, before anything collective: installs the build's hooks
 * (ar_hooks.h).  0, or -1 with rs_seterr (main exits 2). */
int ar_platform_start(void);

/* Collective; called first by ar_fit_model: 1 if the parameters are known without
 * measuring (the simulated platform states them), else 0 and ar_fit_model measures. */
int ar_fit_from_platform(MPI_Comm comm, ar_model_range *m, char *how, size_t howlen);

#endif
