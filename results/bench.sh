#!/bin/sh
# bench.sh — the default campaign behind `make bench`: a new run folder
#   results/runs/<UTC yyyymmddTHHMMSSZ>-<host>/
# with machine.json (peak), one CSV + JSON per study, the console output of each
# step (*.txt), figures/*.png and report.md.  QUICK=1 for a one-minute smoke run,
# THREADS=N for the all-threads count (default: every CPU).
# A study whose correctness check fails still gets its results, figures and report;
# the campaign then exits 1.
set -u
cd "$(dirname "$0")/.."
host=$(hostname -s 2>/dev/null || hostname)
run="results/runs/$(date -u +%Y%m%dT%H%M%SZ)-$host"
mkdir -p results/runs
mkdir "$run" || { echo "bench: $run already exists; not overwriting it" >&2; exit 2; }
mkdir "$run/figures"
q=""; [ -n "${QUICK:-}" ] && q="--quick"
t=""; [ -n "${THREADS:-}" ] && t="--threads 1,$THREADS"
status=0

# step NAME CMD...: runs CMD, keeps its output in $run/NAME.txt, remembers failure.
step() {
    name=$1; shift
    echo "== $name: $*"
    "$@" > "$run/$name.txt" 2>&1
    rc=$?
    cat "$run/$name.txt"
    if [ $rc -eq 130 ]; then echo "bench: interrupted; $run keeps what was written"; exit 130; fi
    if [ $rc -ne 0 ]; then echo "bench: $name exited $rc"; [ $status -eq 0 ] && status=$rc; fi
}

echo "bench: run folder $run"
step peak build/bin/microbench peak $q ${THREADS:+--threads $THREADS} \
    --json "$run/machine.json" --csv "$run/peak.csv"
[ -f "$run/machine.json" ] || { echo "bench: peak wrote no machine.json; stopping"; exit 1; }
step exp build/bin/microbench exp $q $t --machine "$run/machine.json" \
    --csv "$run/exp.csv" --json "$run/exp.json"
step softmax build/bin/microbench softmax $q $t --machine "$run/machine.json" \
    --csv "$run/softmax.csv" --json "$run/softmax.json"
step gemm build/bin/microbench gemm $q $t --machine "$run/machine.json" \
    --csv "$run/gemm.csv" --json "$run/gemm.json"

sh plot/figures.sh "$run" || status=1
sh plot/report.sh "$run" > "$run/report.md.tmp" && mv "$run/report.md.tmp" "$run/report.md"
echo "bench: report $run/report.md"
exit $status
