#!/bin/sh
# scaling.sh [--study NAME] RUN [SBATCH_OPTION...] — `make scaling` (or the one study
# NAME: converge, regime, compose, models) on a Slurm cluster, to the report:
# every round of every study's points runs as a job array, the planning and the tables
# here.  A round is what `make scaling` would run next: the baselines, a grid, the
# refinements it asks for once the grid is read, and so on.  So, until the report is
# written:
#   PLAN=1 build/bin/study scaling RUN   writes the round's points to RUN/array_points.txt
#                                        (exit 4), or the tables and report.md (exit 0);
#   sbatch --wait --array=1-N%J ... point.sh RUN RUN/array_points.txt   runs them,
#                                        J at once (the study's JOBS: 1 for timed points).
# The options (e.g. --time=2:00:00 --partition=long) go to every sbatch.  Settings come
# from the environment as for make scaling (QUICK, GEMM, ...; scaling/study/studies.md):
# export them, as sbatch passes the environment on to the tasks.  Run it from the
# project's root, after make.  A task stopped (scancel, its time limit) keeps its
# checkpoint; when an array leaves its own points still to run, this stops: run it again
# to go on.  A failed point is left out of the arrays; `make scaling RUN=...` here retries
# it.  Exit: 0 the report written; 1 a point failed or an array was stopped; 2 bad usage;
# 3 no sbatch.
set -u
usage="usage: sh scaling/slurm/scaling.sh [--study NAME] RUN [SBATCH_OPTION...] (from the project's root)"
case ${1:-} in --help|-h)
    echo "$usage"
    echo "Every round of points of make scaling (or of one study) as a Slurm job array, the tables here; scaling/slurm/README.md"
    exit 0 ;;
esac
study=scaling
if [ "${1:-}" = --study ]; then
    case ${2:-} in converge|regime|compose|models) study=$2 ;;
        *) echo "scaling.sh: --study '${2:-}': expected converge, regime, compose or models ($usage)" >&2; exit 2 ;;
    esac
    shift 2
fi
[ $# -ge 1 ] && [ -n "$1" ] && case $1 in -*) false ;; esac || { echo "scaling.sh: $usage" >&2; exit 2; }
run=$1
shift
[ -x build/bin/study ] && [ -f scaling/slurm/point.sh ] ||
    { echo "scaling.sh: build/bin/study is missing: run this from the project's root, after make" >&2; exit 2; }
command -v sbatch > /dev/null 2>&1 ||
    { echo "scaling.sh: no sbatch: install slurm-client, or start scaling/slurm/slurmlocal.sh and export SLURM_CONF" >&2; exit 3; }
plan() {
    if [ $study = scaling ]; then PLAN=1 build/bin/study scaling "$run"; else PLAN=1 build/bin/study run $study "$run"; fi
}
last=
while :; do
    plan
    rc=$?
    [ $rc -eq 4 ] || exit $rc   # 0: report.md written; else what the study said
    array=$run/array_points.txt
    now=$(cksum < "$array")
    if [ "$now" = "$last" ]; then
        echo "scaling.sh: the last array left its points still to run (cancelled, or stopped at its time limit);" \
             "run this again to go on from their checkpoints" >&2
        exit 1
    fi
    last=$now
    n=$(grep -c -v '^#' "$array")
    jobs=$(cat "$run/array_jobs.txt")
    echo "scaling.sh: submitting $n points, $jobs at once"
    mkdir -p "$run/slurm" || exit 2   # the tasks' own lines; each point's are in its folder
    sbatch --wait --array="1-$n%$jobs" --output="$run/slurm/%A_%a.out" "$@" scaling/slurm/point.sh "$run" "$array" ||
        echo "scaling.sh: the array ended with a failed or stopped task; planning the next round" >&2
done
