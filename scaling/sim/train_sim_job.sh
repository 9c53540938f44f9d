#!/bin/sh
# train_sim_job.sh PLAT OUT TRAIN [FLAG...] — one smpirun of study train-sim: TRAIN
# (build/bin/rnn-train-smpi) with its FLAGs, one rank per node of the platform PLAT
# (PLAT.xml, .hosts), under GNU time -v (wall time and peak memory into OUT.time).
# `build/bin/study train-sim` launches it (scaling/study/train_sim.c decides what runs
# and reads the results back) with the run in the environment:
#   TS_P (ranks) TS_COMPUTE (RS_SMPI_COMPUTE) TS_SIMCOMP (yes: SMPI times the
#   computation, --compute run) TS_SPEED (the hosts' flop/s) TS_GROUPS (the torus's
#   groups file, else empty) TS_FOLD (1: folded buffers) TS_FOLDLIB SMPIRUN
# The smpirun settings are scaling/sim/smpi_env.sh's (study simulate shares them).
# Exit: GNU time's (smpirun's).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scaling/sim/smpi_env.sh"
plat=$1; out=$2; shift 2
# sample and run convert host seconds at smpi/host-speed: the node's speed, so 1:1
cfg="--cfg=smpi/simulate-computation:$TS_SIMCOMP --cfg=smpi/host-speed:${TS_SPEED}f $(smpi_cfg 65536)"
# Open MPI's choices for the other collectives (SMPI's default allgather, which
# MPI_Comm_split and hier's set-up use, sends p^2 messages); library is SMPI's rdb
cfg="$cfg --cfg=smpi/coll-selector:ompi --cfg=smpi/allreduce:rdb"
envs="$(smpi_heap_env) RS_SMPI_COMPUTE=$TS_COMPUTE"
[ -z "$TS_GROUPS" ] || envs="$envs RS_SMPI_GROUPS=$TS_GROUPS"
if [ "$TS_FOLD" = 1 ]; then
    cfg="$cfg $(smpi_fold_cfg)"; envs="$envs $(smpi_fold_env "$TS_FOLDLIB")"
fi
exec /usr/bin/time -v -o "$out.time" env $envs "$SMPIRUN" -np "$TS_P" -platform "$plat.xml" \
    -hostfile "$plat.hosts" $cfg "$@"
