/* smpi_shim.h — what `allreduce-bench-smpi` needs from SimGrid SMPI that the unchanged
 * sources of collectives/ and common/ do not say themselves.  It is force-included
 * (-include) into every file of that binary by scaling/scaling.mk, and only there: the
 * real-MPI build never sees it.  It redirects, at compile time, a few calls to
 * scaling/smpi_shim.c:
 *
 *   MPI_Init             then the gamma model: ar_set_reduce_charge() charges every
 *                        local reduction bytes * gamma of simulated time, and two
 *                        user-defined MPI_Ops (sum, max) that reduce through the same
 *                        ar_reduce_local(), so SMPI's built-in algorithms pay exactly
 *                        the same gamma as the project's (SMPI 3.32's own
 *                        collectives charge nothing for their arithmetic);
 *   ar_reduce_local      in the algorithm files (RS_SMPI_REDUCE): in a folded run the
 *                        arithmetic is skipped and only its gamma is charged — the data
 *                        are garbage there anyway, and at 1024 ranks x 64 MiB recursive
 *                        doubling's real reductions were ~650 GB of memory traffic per
 *                        call; in a checked run the real ar_reduce_local runs;
 *   malloc, calloc,      past the fold threshold (RS_SMPI_FOLD_BYTES), a slot of the
 *   posix_memalign,      process-wide pool of scaling/smpi_fold.c (preloaded): a rank's
 *   free                 k-th live big buffer is region k, the same for every rank, so
 *                        800 ranks of 64 MiB buffers cost a few regions, not 150 GB;
 *                        below it, SMPI's own malloc (smpi_helpers.h's, replaced here);
 *   MPI_Allreduce        in collectives/allreduce_library.c only (RS_SMPI_LIBRARY_OP):
 *                        MPI_SUM / MPI_MAX replaced by the charged user ops;
 *   MPI_Barrier          in collectives/bench_main.c only (RS_SMPI_SYNC_BARRIER): a
 *                        barrier that releases every rank at the same simulated instant,
 *                        so a timed call starts everywhere at once.  A real barrier
 *                        algorithm releases ranks up to several latencies apart, and the
 *                        benchmark's per-rank times include that skew: at p = 64 the same
 *                        recursive doubling measured 7.7 us after a pairwise barrier and
 *                        74 us after Open MPI's double ring.  Simulated time is free, so
 *                        the ideal barrier costs nothing;
 *   clock_gettime        back to the host's clock in common/timer.c only
 *                        (RS_SMPI_REAL_CLOCK): smpi_helpers.h makes it simulated time,
 *                        but common/ uses it for wall-clock things — the progress
 *                        line's ETA and rs_tsc_ghz(), whose 3 x 50 ms calibration loop
 *                        of simulated-clock reads took ~55 s per run.  Timings of the
 *                        allreduces use MPI_Wtime, which stays simulated;
 *   MPI_Comm_split_type  in collectives/allreduce_hier.c only (RS_SMPI_HIER_GROUPS):
 *                        MPI_COMM_TYPE_SHARED ("the node") becomes the platform's group
 *                        (supernode, leaf switch, torus line), learnt from the SimGrid
 *                        host names or a topology file — see smpi_shim.c.
 *
 * Why a shim and not a change: collectives/ is owned by the allreduce issue; these are
 * the hooks that issue should grow (scaling/README.md, "What collectives/ should
 * offer").  Every redirection is a macro here, so deleting this file's use in
 * scaling.mk gives back the plain sources. */
#ifndef RS_SMPI_SHIM_H
#define RS_SMPI_SHIM_H

#include <stddef.h>
#include <stdlib.h> /* declares posix_memalign before the macro below renames it */

#include <mpi.h>

int rs_smpi_init(int *argc, char ***argv);
int rs_smpi_posix_memalign(void **out, size_t align, size_t size);
void *rs_smpi_malloc(size_t size, const char *file, int line);
void *rs_smpi_calloc(size_t n, size_t size, const char *file, int line);
void rs_smpi_free(void *p);
int rs_smpi_allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm comm);
int rs_smpi_split_type(MPI_Comm comm, int type, int key, MPI_Info info, MPI_Comm *out);
int rs_smpi_barrier(MPI_Comm comm);

#ifndef RS_SMPI_SHIM_IMPL
#define MPI_Init(argc, argv) rs_smpi_init(argc, argv)
#define posix_memalign(out, align, size) rs_smpi_posix_memalign(out, align, size)
#undef malloc
#undef calloc
#undef free
#define malloc(x) rs_smpi_malloc((x), __FILE__, __LINE__)
#define calloc(n, x) rs_smpi_calloc((n), (x), __FILE__, __LINE__)
#define free(x) rs_smpi_free(x)
#ifdef RS_SMPI_LIBRARY_OP
#define MPI_Allreduce(s, r, n, t, o, c) rs_smpi_allreduce(s, r, n, t, o, c)
#endif
#ifdef RS_SMPI_REDUCE /* renames allreduce.h's prototype too: same signature */
#define ar_reduce_local(io, in, n, t, op) rs_smpi_reduce_local(io, in, n, t, op)
#endif
#ifdef RS_SMPI_SYNC_BARRIER
#define MPI_Barrier(c) rs_smpi_barrier(c)
#endif
#ifdef RS_SMPI_REAL_CLOCK
#undef clock_gettime
#endif
#ifdef RS_SMPI_HIER_GROUPS
#define MPI_Comm_split_type(c, t, k, i, o) rs_smpi_split_type(c, t, k, i, o)
#endif
#endif

#endif
