#!/bin/sh
# sweep.sh [RUN] — what `make simulate` runs: the allreduce sweep under SimGrid SMPI, into
# a run folder (RUN, or a new results/runs/<UTC stamp>-<host>/):
#   simulate.csv                  TaihuLight model, consecutive placement: the join of
#     simulate_small.csv/.json      p = 2..256, 4 B..64 MiB (x4), every algorithm;
#     simulate_large.csv/.json      p = 512, 800, 1024 at 4 B, 64 KiB, 1, 4, 16, 64 MiB:
#                                   every algorithm with O(p log p) messages per call;
#     simulate_ring.csv/.json       the ring-like ones (2p^2 messages) at 800 nodes,
#                                   4 and 64 MiB: ring and smpi:lr
#   simulate_placement.csv/.json  800 nodes, round-robin and random placements
#   simulate_platforms.csv/.json  the fat tree and the 3D torus at 64 and 512 nodes
#   caffe.csv/.json               the seed's experiment (Caffe-style vs fused hier), 1..800
#   simulate_*.txt, .log          console output;  figures/simulate_*.png;
#   simulate_report.md            the report section (scaling/report.sh)
#   simulate_cost.txt             wall time of each part and of the whole sweep
# Why this shape: SimGrid 3.32 costs ~50-75 us of wall time per simulated message here
# (more at larger p), so one ring allreduce at 800 nodes (1.3 M messages) is 1.5-5 min.
# FULL=1 runs every algorithm at every size at every node count instead (hours).
# QUICK=1: a few points of each, up to 256 nodes (what `make bench` runs; minutes).  SIM_JOBS=N simulations at once.
set -u
cd "$(dirname "$0")/.."
run=${1:-${RUN:-}}
if [ -z "$run" ]; then
    host=$(hostname -s 2>/dev/null || hostname)
    run="results/runs/$(date -u +%Y%m%dT%H%M%SZ)-$host"
    mkdir -p results/runs
    mkdir "$run" || { echo "simulate: $run already exists; not overwriting it" >&2; exit 2; }
fi
[ -d "$run" ] || mkdir -p "$run" || { echo "simulate: cannot create $run" >&2; exit 2; }
mkdir -p "$run/figures"
jobs=${SIM_JOBS:-2}
status=0
sim() { # NAME ARGS...: scaling/simulate with CSV + JSON NAME in the run folder
    name=$1; shift
    for f in "$run/$name.csv" "$run/$name.json"; do
        [ ! -e "$f" ] || { echo "simulate: $f exists; skipping $name (results are never overwritten)"; return 0; }
    done
    echo "== $name: scaling/simulate $*"
    sh scaling/simulate "$@" --jobs "$jobs" --csv "$run/$name.csv" --json "$run/$name.json" \
        > "$run/$name.txt" 2> "$run/$name.log"
    rc=$?
    cat "$run/$name.txt"; grep -v '^\[' "$run/$name.log" | grep -v '^$' | tail -n 5
    [ $rc -eq 130 ] && { echo "simulate: interrupted; $run keeps what was written"; exit 130; }
    [ $rc -eq 0 ] || { echo "simulate: $name exited $rc"; [ $status -eq 0 ] && status=$rc; }
}

echo "simulate: run folder $run"
t0=$(date +%s)
cost() { # NAME: the part's wall time into simulate_cost.txt
    echo "$1 $(( $(date +%s) - ${tpart:-$t0} ))" >> "$run/simulate_cost.txt"; tpart=$(date +%s)
}
if [ -n "${QUICK:-}" ]; then
    sim simulate_small --platform taihulight --nodes 4,16,64,256 --sizes 4,64k,1M,4M \
        --algo project,smpi:rdb,smpi:rab_rdb,smpi:lr,smpi:ompi,bound; cost simulate_small
    sim simulate_placement_random --platform taihulight --nodes 256 --sizes 64k,4M --placement random \
        --algo recdbl,rabenseifner,hier,torus2d,smpi:rab_rdb,bound; cost simulate_placement
    sim simulate_platforms_fattree --platform fattree --nodes 64 --sizes 64k,4M \
        --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,bound; cost simulate_platforms_fattree
    sim simulate_platforms_torus --platform torus --platform-args "--torus 4x4x4" --nodes 64 \
        --sizes 64k,4M --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,bound; cost simulate_platforms_torus
    sim caffe --experiment caffe --nodes 1,4,16,64,256; cost caffe
elif [ -n "${FULL:-}" ]; then
    sim simulate_small --platform taihulight --nodes 2,4,8,16,32,64,128,256 --sizes 4:64M:4 --algo all; cost simulate_small
    sim simulate_large --platform taihulight --nodes 512,800,1024 --sizes 4,1k,16k,256k,1M,4M,16M,64M \
        --algo all; cost simulate_large
    for pl in roundrobin random; do
        sim simulate_placement_$pl --platform taihulight --nodes 800 --sizes 4,64k,1M,4M,64M \
            --placement $pl --algo recdbl,rabenseifner,hier,torus2d,smpi:rab_rdb,smpi:mvapich2,bound; cost simulate_placement_$pl
    done
    sim simulate_platforms_fattree --platform fattree --nodes 64,512 --sizes 4,64k,4M,64M \
        --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,smpi:rab_rdb,bound; cost simulate_platforms_fattree
    sim simulate_platforms_torus --platform torus --nodes 64,512 --sizes 4,64k,4M,64M \
        --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,smpi:rab_rdb,bound; cost simulate_platforms_torus
    sim caffe --experiment caffe --nodes 1,2,4,8,16,32,64,128,256,512,800; cost caffe
else
    sim simulate_small --platform taihulight --nodes 2,4,8,16,32,64,128,256 --sizes 4:64M:4 --algo all; cost simulate_small
    sim simulate_large --platform taihulight --nodes 512,800,1024 --sizes 4,64k,1M,4M,16M,64M \
        --algo recdbl,rabenseifner,binomial,hier,torus2d,smpi:rdb,smpi:rab_rdb,smpi:ompi,smpi:mpich,smpi:mvapich2,bound
    cost simulate_large
    sim simulate_ring --platform taihulight --nodes 800 --sizes 4M,64M --algo ring,smpi:lr; cost simulate_ring
    sim caffe --experiment caffe --nodes 1,2,4,8,16,32,64,128,256,512,800; cost caffe
    sim simulate_placement_random --platform taihulight --nodes 800 --sizes 4M,64M --placement random \
        --algo rabenseifner,hier,smpi:rab_rdb,bound; cost simulate_placement_random
    sim simulate_platforms_fattree --platform fattree --nodes 64,512 --sizes 64k,4M,64M \
        --algo rabenseifner,hier,torus2d,smpi:ompi,bound; cost simulate_platforms_fattree
    sim simulate_platforms_torus --platform torus --nodes 64,512 --sizes 64k,4M,64M \
        --algo rabenseifner,hier,torus2d,smpi:ompi,bound; cost simulate_platforms_torus
fi
echo "total $(( $(date +%s) - t0 ))" >> "$run/simulate_cost.txt"
# one CSV per study family (header once) for the figures and the report
for fam in simulate simulate_placement simulate_platforms; do
    if [ $fam = simulate ]; then
        set --; for part in small large ring; do
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
sh scaling/report.sh "$run" > "$run/simulate_report.md.tmp" &&
    mv "$run/simulate_report.md.tmp" "$run/simulate_report.md" && echo "simulate: report $run/simulate_report.md"
exit $status
