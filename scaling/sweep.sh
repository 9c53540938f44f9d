#!/bin/sh
# sweep.sh [RUN] — what `make simulate` runs: issue 5's full sweep under SimGrid SMPI,
# into a run folder (RUN, or a new results/runs/<UTC stamp>-<host>/):
#   simulate.csv/.json            TaihuLight model, consecutive placement, every project
#                                 algorithm, the SMPI built-ins and the bound, p = 2..1024
#   simulate_placement.csv/.json  800 nodes, round-robin and random placements
#   simulate_platforms.csv/.json  the fat tree and the 3D torus at 64 and 512 nodes
#   caffe.csv/.json               the seed's experiment (Caffe-style vs fused hier), 1..800
#   simulate_*.txt                console output;  figures/simulate_*.png;
#   simulate_report.md            the report section (scaling/report.sh)
# QUICK=1: a few small points of each (a few minutes).  SIM_JOBS=N simulations at once.
# Cost: ring-like algorithms take ~2p^2 simulated messages per call (~50 s of wall time
# per call at 800 ranks here), so at 512 nodes and more they run at 4 and 64 MiB only
# (--sizes-ring); everything else at every size.
set -u
cd "$(dirname "$0")/.."
run=${1:-${RUN:-}}
if [ -z "$run" ]; then
    host=$(hostname -s 2>/dev/null || hostname)
    run="results/runs/$(date -u +%Y%m%dT%H%M%SZ)-$host"
    mkdir -p results/runs
    mkdir "$run" || { echo "simulate: $run already exists; not overwriting it" >&2; exit 2; }
fi
[ -d "$run" ] || { echo "simulate: $run is not a folder" >&2; exit 2; }
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
if [ -n "${QUICK:-}" ]; then
    sim simulate --platform taihulight --nodes 4,16,64,256 --sizes 4,1k,64k,1M,4M --algo all
    sim simulate_placement --platform taihulight --nodes 256 --sizes 64k,4M --placement random \
        --algo recdbl,rabenseifner,hier,torus2d,smpi:rab_rdb,bound
    sim simulate_platforms_fattree --platform fattree --nodes 64 --sizes 64k,4M \
        --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,bound
    sim simulate_platforms_torus --platform torus --platform-args "--torus 4x4x4" --nodes 64 \
        --sizes 64k,4M --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,bound
    sim caffe --experiment caffe --nodes 1,4,16,64,256
else
    sim simulate --platform taihulight --nodes 2,4,8,16,32,64,128,256,512,800,1024 \
        --sizes 4:64M:4 --sizes-large 4,1k,16k,256k,1M,4M,16M,64M --sizes-ring 4M,64M --algo all
    for pl in roundrobin random; do
        sim simulate_placement_$pl --platform taihulight --nodes 800 --sizes 4,64k,1M,4M,64M \
            --placement $pl --algo recdbl,rabenseifner,hier,torus2d,smpi:rab_rdb,smpi:mvapich2,bound
    done
    sim simulate_platforms_fattree --platform fattree --nodes 64,512 --sizes 4,64k,4M,64M \
        --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,smpi:rab_rdb,bound
    sim simulate_platforms_torus --platform torus --nodes 64,512 --sizes 4,64k,4M,64M \
        --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,smpi:rab_rdb,bound
    sim caffe --experiment caffe --nodes 1,2,4,8,16,32,64,128,256,512,800
fi
# one CSV per study family (header once) for the figures and the report
for fam in simulate_placement simulate_platforms; do
    set -- "$run"/${fam}_*.csv
    [ -f "$1" ] || continue
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
