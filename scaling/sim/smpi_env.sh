# smpi_env.sh — the smpirun settings study simulate and study train-sim share,
# sourced (POSIX sh) by their jobs, simulate_job.sh and train_sim_job.sh.  Each function
# prints words to splice into a command line:
#
#   smpi_cfg EAGER        the network model and collectives: CM02 without cross-traffic,
#                         no injected MPI_Wtime delay, eager sends up to EAGER bytes,
#                         binomial bcast/reduce, warnings only
#   smpi_heap_env         glibc's heap kept instead of trimmed and re-faulted: SMPI
#                         allocates a buffer per small message; at 256 ranks that was
#                         0.9 M page faults and 40% of the wall time
#   smpi_fold_cfg         with smpi_fold_env: every buffer of SMPI_FOLD_BYTES or more, the
#   smpi_fold_env LIB     SMPI built-ins' temporaries too, from the pool of LIB
#                         (build/lib/rs-smpi-fold.so, scaling/sim/smpi_fold.c), one
#                         shared-malloc block each (so one covers any folded buffer)
#
#   env $(smpi_heap_env) $(smpi_fold_env "$lib") smpirun ... $(smpi_cfg 65536) $(smpi_fold_cfg) BIN ...
SMPI_FOLD_BYTES=1048576          # fold every buffer of 1 MiB or more in a folded run
SMPI_BLOCK_BYTES=$((256 << 20))  # one shared-malloc block covers any folded buffer (<= 256 MiB)

smpi_cfg() {
    echo "--cfg=network/model:CM02 --cfg=network/crosstraffic:0 --cfg=smpi/wtime:0" \
        "--cfg=smpi/bcast:binomial_tree --cfg=smpi/reduce:binomial" \
        "--cfg=smpi/async-small-thresh:$1 --cfg=smpi/send-is-detached-thresh:$(( $1 > 65536 ? $1 : 65536 ))" \
        "--log=root.thres:warning"
}
smpi_heap_env() {
    echo "MALLOC_TOP_PAD_=268435456 MALLOC_TRIM_THRESHOLD_=1073741824 MALLOC_MMAP_THRESHOLD_=1073741824"
}
smpi_fold_cfg() { echo "--cfg=smpi/shared-malloc-blocksize:$SMPI_BLOCK_BYTES"; }
smpi_fold_env() { echo "RS_SMPI_FOLD_BYTES=$SMPI_FOLD_BYTES LD_PRELOAD=$1"; }
