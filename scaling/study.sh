#!/bin/sh
# study.sh — runs a study's points (scaling/study/points_file.h has the file's format):
#   scaling/study.sh run RUN POINTS      every point not yet done, JOBS=K at once (default
#                                        1), by GNU parallel (its log: RUN/joblog.txt)
#   scaling/study.sh point RUN POINTS NAME|N   one point (by name, or the N-th: a Slurm
#                                        array task: sbatch --array=1-M ... point RUN
#                                        POINTS '$SLURM_ARRAY_TASK_ID')
#   scaling/study.sh status RUN POINTS   done / failed / infeasible / pending counts
# `build/bin/study point` runs one point in RUN/points/NAME/ and skips a done one, so a
# stopped study resumes where it stopped.  LAUNCH is put before each command.
# Exit: 0 every point done, 1 some point failed (the others still ran), 2 bad usage,
# 130 interrupted.
set -u
STUDY_ROOT=$(cd "$(dirname "$0")/.." && pwd) || exit 2
export STUDY_ROOT   # build/bin goes first on the points' PATH
study=$STUDY_ROOT/build/bin/study
die() { echo "study: $*" >&2; exit 2; }
[ -x "$study" ] || die "$study missing: run make"
[ $# -ge 1 ] || die "usage: study.sh run RUN POINTS | point RUN POINTS NAME | status RUN POINTS"
cmd=$1; shift
case "$cmd" in
point) exec "$study" point "$@" ;;
status) exec "$study" status "$@" ;;
run) [ $# -eq 2 ] || die "usage: study.sh run RUN POINTS" ;;
*) die "unknown command '$cmd' (expected run, point or status)" ;;
esac
run=$1; points=$2
jobs=${JOBS:-1}
case "$jobs" in ''|*[!0-9]*|0) die "JOBS=$jobs: not a positive integer" ;; esac
command -v parallel > /dev/null || die "GNU parallel is missing: run make deps (Debian package parallel)"
names=$("$study" pending "$run" "$points") || exit 2
set -- $("$study" status "$run" "$points" --tally)
echo "study: $run: $1 of $2 points done; running the rest, $jobs at once"
STUDY_T0=$(date +%s); STUDY_SESSION="$STUDY_T0.$$"
export STUDY_T0 STUDY_SESSION
stopped=
trap 'stopped=1' INT TERM
[ -z "$names" ] || printf '%s\n' $names |
    parallel --will-cite --jobs "$jobs" --joblog "+$run/joblog.txt" --line-buffer \
        "$study" point "$run" "$points" '{}'
# a point neither done nor failed was stopped (Ctrl-C, or parallel killed it)
left=$("$study" pending "$run" "$points"); failed=$("$study" pending "$run" "$points" --failed)
[ -z "$stopped" ] && [ "$left" = "$failed" ] ||
    { echo "study: interrupted; $run keeps every finished point"; exit 130; }
[ -z "$failed" ] || { echo "study: failed points (rerun to retry):" $failed; exit 1; }
echo "study: all $2 points done"
