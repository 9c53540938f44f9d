# env.sh — what the MPI test scripts share, sourced by run.sh and train.sh: mpirun
# allowed as root (containers, CI), more ranks than cores, busy-polling ranks yield, and
# mpirun_q NP CMD... under a 120 s timeout (-q: no banner adding lines to stderr).
# Under `make test SAN=1`, ranks run without LeakSanitizer (rank_asan): Open MPI's
# components leak at MPI_Finalize and, without frame pointers, cannot be suppressed
# narrowly; the timeout is 360 s (sanitized ranks run several times slower).
MPIRUN=${MPIRUN:-mpirun}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1
rank_asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:detect_leaks=0}
mpi_timeout=120; [ -z "${ASAN_OPTIONS:-}" ] || mpi_timeout=360
mpirun_q() { np=$1; shift; ASAN_OPTIONS=$rank_asan timeout $mpi_timeout $MPIRUN -q --oversubscribe --bind-to none -np "$np" "$@"; }
