#!/bin/sh
# sweep.sh [RUN] — what `make simulate` runs: the allreduce sweep under SimGrid SMPI, into
# a run folder (RUN, or a new results/runs/<UTC stamp>-<host>/):
#   simulate.csv                  TaihuLight model, consecutive placement: the join of
#     simulate_small.csv/.json      p = 2..256, 4 B..64 MiB (x4), every algorithm;
#     simulate_large.csv/.json      p = 512, 800, 1024 at 4 B, 64 KiB (512: and 4, 64
#                                   MiB; 800: and 1, 4, 16, 64 MiB): the project's
#                                   algorithms with O(p log p) messages per call;
#     simulate_large_smpi.csv/.json the SMPI built-ins among them, at 800 nodes;
#     simulate_ring.csv/.json       a ring-like one (2p^2 messages) at 800 nodes:
#                                   smpi:lr at 64 MiB (FULL=1: ring too, 4 MiB too)
#   simulate_placement.csv/.json  800 nodes, round-robin and random placements
#   simulate_platforms.csv/.json  the fat tree and the 3D torus at 64 and 512 nodes
#   caffe.csv/.json               the Sunway TaihuLight study's experiment (Caffe-style vs fused hier), 1..800
#   simulate_*.txt, .log          console output;  figures/simulate_*.png;
#   simulate_report.md            the report section (scaling/report.sh)
#   simulate_cost.txt             each part's simulations one after another (seconds),
#                                 and the whole sweep's wall time
#   simulate_points.txt           every simulation: part, nodes, algorithm, sizes, seconds
# Every part is planned first (scaling/simulate --plan), then all their simulations run
# as one list, SIM_JOBS at once (default: the cores), the longest first (the point
# driver scaling/study.sh: rerunning with the same RUN resumes), then each part's CSV
# and JSON are written (--collect); if no simulation gave a row, none is: exit 1 with
# one line naming the logs (kept in RUN/simulate_work).  SimGrid 3.32 costs ~50-75 us
# of wall time per simulated message here, so one ring allreduce at 800 nodes is
# 1.5-5 min: the default sweep runs the ring-like algorithms at 512 nodes and more only
# as smpi:lr at 800 nodes and 64 MiB, and leaves out what repeats another point
# (scaling/README.md, "Cost"; scaling/sweep_plan.sh).  FULL=1 runs every algorithm
# at every size at every node count instead (hours).  QUICK=1: a few points of each,
# up to 256 nodes (what `make bench` runs; minutes).  SIM_PARTS=FILE:
# its lines "NAME scaling/simulate-options" instead of a preset.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
. scaling/sweep_plan.sh   # sweep_parts, plan_part, write_points, collect_part, record_costs
. scaling/study_lib.sh    # study_none_done
run=${1:-${RUN:-}}
jobs=${SIM_JOBS:-$(nproc 2>/dev/null || echo 2)}   # checked before anything is made
case "$jobs" in ''|*[!0-9]*|0) echo "simulate: SIM_JOBS=$jobs is not a positive integer (e.g. SIM_JOBS=2)" >&2; exit 2 ;; esac
if [ -z "$run" ]; then
    host=$(hostname -s 2>/dev/null || hostname)
    run="results/runs/$(date -u +%Y%m%dT%H%M%SZ)-$host"
    mkdir -p results/runs
    mkdir "$run" || { echo "simulate: $run already exists; not overwriting it" >&2; exit 2; }
fi
[ -d "$run" ] || mkdir -p "$run" || { echo "simulate: cannot create $run" >&2; exit 2; }
mkdir -p "$run/figures"
work="$run/simulate_work"   # the planned parts and the point driver's folders
mkdir -p "$work"
status=0

echo "simulate: run folder $run"
t0=$(date +%s)
sweep_parts > "$work/parts"
while read -r name args; do plan_part "$name" "$args"; done < "$work/parts"
write_points "$work/parts" > "$work/points.txt"
echo "simulate: $(grep -c . "$work/points.txt") points, $jobs at once, the longest first"
rc=0
[ -s "$work/points.txt" ] && { JOBS=$jobs sh scaling/study.sh run "$work" "$work/points.txt"; rc=$?; }
{ [ $rc -eq 130 ] || [ $rc -eq 143 ]; } && { echo "simulate: interrupted; rerun with RUN=$run to resume"; exit $rc; }
[ $rc -eq 0 ] || status=1
# no simulation gave a row: exit 1 with one line, no table, the logs kept for a rerun
if [ -s "$work/points.txt" ]; then
    (run=$work; study_none_done simulate "$work/points.txt" "" "$work/*/jobs/*.err") ||
        { rmdir "$run/figures" 2> /dev/null; exit 1; }
fi
while read -r name args; do collect_part "$name" "$args"; done < "$work/parts"
record_costs "$work/parts" $(( $(date +%s) - t0 ))
[ $status -eq 0 ] && rm -rf "$work"   # a failed sweep keeps its logs and resumes
# one CSV per study family (header once) for the figures and the report
for fam in simulate simulate_placement simulate_platforms; do
    if [ $fam = simulate ]; then
        set --; for part in small large large_smpi ring; do
            [ -f "$run/simulate_$part.csv" ] && set -- "$@" "$run/simulate_$part.csv"; done
    else
        set -- "$run"/${fam}_*.csv
    fi
    [ $# -gt 0 ] && [ -f "$1" ] || continue
    awk 'FNR == 1 && NR != 1 { next } { print }' "$@" > "$run/$fam.csv.tmp" &&
        mv "$run/$fam.csv.tmp" "$run/$fam.csv"
done
for gp in plot/simulate_nodes.gp plot/simulate_sizes.gp; do
    name=$(basename "$gp" .gp)
    csv="$run/simulate.csv"
    [ -f "$csv" ] || continue
    gnuplot -e "csv='$csv'; out='$run/figures/$name.png'" "$gp" &&
        echo "simulate: $run/figures/$name.png" || { echo "simulate: $gp failed"; status=1; }
done
# no rows to report (every simulation failed): exit 1, no report, no temporary left
sh scaling/report.sh "$run" > "$run/simulate_report.md.tmp" &&
    mv "$run/simulate_report.md.tmp" "$run/simulate_report.md" && echo "simulate: report $run/simulate_report.md" ||
    { rm -f "$run/simulate_report.md.tmp"; status=1; }
exit $status
