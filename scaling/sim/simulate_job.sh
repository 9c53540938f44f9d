#!/bin/sh
# simulate_job.sh PLAT SIZES OUT RSS — one smpirun of a planned simulation:
# allreduce-bench-smpi on the platform PLAT (PLAT.xml, .hosts, .groups) over the sizes
# in the file SIZES, its CSV into OUT, GNU time's peak memory (KB) appended to RSS.
# `build/bin/study simulate --run-job` launches it (scaling/study/simulate_job.c decides
# which sizes run and what a failure means) with the job in the environment:
#   SIM_P SIM_KIND (project|smpi) SIM_NAME SIM_ALGOS SIM_SEL (SMPI's coll-selector)
#   SIM_FOLD (1: folded buffers) SIM_EAGER SIM_HIER_GROUPS SIM_HIER_MAX SIM_REDUCE
#   SIM_PLATFORM SIM_BENCH SIM_FOLDLIB SMPIRUN
# The smpirun settings are scaling/sim/smpi_env.sh's (scaling/sim/train_sim_job.sh shares them).
# Exit: smpirun's.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scaling/sim/smpi_env.sh"
plat=$1; sizes=$2; out=$3; rssf=$4
# smpi:NAME is `library` under smpi/allreduce:NAME; the benchmark's own allreduces stay
# recursive doubling (scaling/sim/smpi_hooks.c), whatever NAME is
alg=rdb; [ "$SIM_KIND" = smpi ] && alg=$SIM_NAME
cfg="--cfg=smpi/simulate-computation:no $(smpi_cfg "$SIM_EAGER")"
cfg="$cfg --cfg=smpi/coll-selector:$SIM_SEL --cfg=smpi/allreduce:$alg"
# one call per point: a simulated call takes the same time every time, so a checked
# call before each timed one doubled the cost (the timed output is checked); a small
# first size keeps it, as some algorithms' first small call differs slightly
bargs="--timed-only"
# hier's unequal platform groups cut into equal ones (the library's --group-max)
[ "$SIM_HIER_GROUPS" = equal ] && bargs="$bargs --group-max $SIM_HIER_MAX"
set -- $(smpi_heap_env)
[ -n "$SIM_REDUCE" ] && set -- "$@" RS_SMPI_REDUCE_GBYTES_PER_S=$SIM_REDUCE
[ "$SIM_PLATFORM" = torus ] && set -- "$@" RS_SMPI_GROUPS=$plat.groups
if [ "$SIM_FOLD" = 1 ]; then
    cfg="$cfg $(smpi_fold_cfg)"
    set -- "$@" $(smpi_fold_env "$SIM_FOLDLIB")
    bargs="$bargs --no-check"
fi
rss=""; [ -x /usr/bin/time ] && rss="/usr/bin/time -a -o $rssf -f %M"
exec $rss env "$@" "$SMPIRUN" -np "$SIM_P" -platform "$plat.xml" -hostfile "$plat.hosts" $cfg "$SIM_BENCH" \
    --algo "$SIM_ALGOS" --sizes "$sizes" --iters 1 --warmup 0 --mode isolated $bargs --csv "$out"
