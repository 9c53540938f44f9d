#!/bin/sh
# netcheck.sh OUT [--hosts "2 4"] [--rate MBIT] [--algo LIST] [--sizes FILE] [--quick] — the
# simulator held against a real network: netcluster.sh's hosts, calibrated by a
# ping-pong, then allreduce-bench on them against study simulate on the platform made
# from that calibration.  Into the new folder OUT:
#   pingpong.csv/.json   half round trips, host 1 <-> 2, 8 B to 4 MiB, and alpha, beta
#   real-pP.csv/.json    allreduce-bench across P hosts (isolated mode, medians)
#   sim.csv              study simulate: a fat-tree group of P nodes whose route has
#                        the measured alpha (two node links of alpha/2) and beta
#   netcheck.csv/.md     study netcheck: the prediction error per algorithm and size
#   real-train-pP.csv    rnn-train --bench's data-parallel step across P hosts (not with
#   sim-train.csv        --quick), and study train-sim's on the same platform;
#   train.md, netcheck-train.csv
#                        study netcheck on those: step and exchange times side by side
# --quick: 2 hosts, 4 KiB and 256 KiB, ring and library, a short ping-pong (a check).
# The study beside it, if any, should be paused: ranks share the two cores with it.
# Exit: 0 done, 1 a step failed, 2 bad usage, 3 the machine cannot make the hosts.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=$root/build/bin
die() { echo "netcheck: $*" >&2; exit 2; }

[ $# -ge 1 ] || die "usage: netcheck.sh OUT [--hosts \"2 4\"] [--rate MBIT] [--algo LIST] [--sizes FILE]"
out=$1; shift
hosts=unset rate=100 algo=unset sizes= quick=0
while [ $# -gt 0 ]; do
    [ "$1" = --quick ] && { quick=1; shift; continue; }
    [ $# -ge 2 ] || die "$1 needs a value"
    case $1 in
        --hosts) hosts=$2 ;;
        --rate) rate=$2 ;;
        --algo) algo=$2 ;;
        --sizes) sizes=$2 ;;
        *) die "unknown option '$1' (expected --hosts, --rate, --algo, --sizes, --quick)" ;;
    esac
    shift 2
done
if [ $quick = 1 ]; then dh=2 da=ring,library; else dh="2 4" da=ring,segring,recdbl,rabenseifner,binomial,library; fi
[ "$hosts" = unset ] && hosts=$dh
[ "$algo" = unset ] && algo=$da
[ -n "$hosts" ] || die "--hosts: expected host counts 2-16, e.g. \"2 4\""
for h in $hosts; do
    case $h in
        [2-9]|1[0-6]) ;;
        *) die "--hosts '$hosts': expected host counts 2-16, e.g. \"2 4\"" ;;
    esac
done
# no leading zero: the shell's arithmetic would read it as octal
case $rate in ''|0*|*[!0-9]*) die "--rate $rate: a whole number of Mbit/s above 0, e.g. 100 (the platform needs a rate)" ;; esac
for a in $(echo "$algo" | tr ',' ' '); do   # both sides run these: the project's and the library
    case $a in
        ring|segring|recdbl|rabenseifner|binomial|library) ;;
        *) die "--algo $algo: '$a' is not one of ring, segring, recdbl, rabenseifner, binomial, library" ;;
    esac
done
[ -n "$(echo "$algo" | tr -d ', ')" ] || die "--algo: name one or more of ring, segring, recdbl, rabenseifner, binomial, library"
[ -z "$sizes" ] || [ -f "$sizes" ] || die "--sizes $sizes: no such file (one size in bytes a line)"
[ -e "$out" ] && die "$out exists: give a new folder (results are never overwritten)"
need="pingpong-bench allreduce-bench allreduce-bench-smpi study"
[ $quick = 1 ] || need="$need rnn-train rnn-train-smpi"
for b in $need; do
    [ -x "$bin/$b" ] || die "$bin/$b is missing: run make first"
done
mkdir -p "$out" || die "cannot make $out"
# the hosts come down however this ends: done, a failed step, or a signal
trap 'sh "$here/netcluster.sh" down > /dev/null 2>&1' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [ -z "$sizes" ]; then
    sizes=$out/sizes.txt
    if [ $quick = 1 ]; then printf '%s\n' 4096 262144; else printf '%s\n' 4096 16384 65536 262144 1048576 4194304 16777216; fi > "$sizes"
fi
ppmax=4M ppfrom=256k
[ $quick = 1 ] && ppmax=1M ppfrom=128k
up() {
    sh "$here/netcluster.sh" up --hosts "$1" --rate "$rate"; rc=$?
    [ $rc -eq 0 ] || { echo "netcheck: the cluster did not come up (exit $rc)" >&2; exit $rc; }
}
mpi() { sh "$here/netcluster.sh" mpirun "$@"; }

up 2
echo "netcheck: calibration: ping-pong between 2 hosts at $rate Mbit/s"
pingpong() {
    mpi "$bin/pingpong-bench" --sizes "8:$ppmax" --fit-from "$ppfrom" --reps 10 --csv "$out/pingpong.csv" \
        --json "$out/pingpong.json"
}
# exit 3: the medians did not rise with the size (a stall on the link), measured once more
pingpong; rc=$?
[ $rc -eq 3 ] && { echo "netcheck: the ping-pong found no rate; once more" >&2; pingpong; rc=$?; }
[ $rc -eq 0 ] || { echo "netcheck: the ping-pong failed (exit $rc)" >&2; exit 1; }
alpha=$("$bin/study" get "$out/pingpong.json" meta.alpha_us) &&
    beta=$("$bin/study" get "$out/pingpong.json" meta.link_gbytes_per_s) &&
    nodelat=$("$bin/study" get "$out/pingpong.json" meta.node_lat_us) || exit 1
nodes=
set --   # the real tables, one argument each
for h in $hosts; do
    up "$h"
    echo "netcheck: allreduce-bench across $h hosts"
    mpi "$bin/allreduce-bench" --algo "$algo" --sizes "$sizes" --mode isolated --alpha-us "$alpha" \
        --link-gbytes-per-s "$beta" --csv "$out/real-p$h.csv" --json "$out/real-p$h.json" > "$out/real-p$h.txt" ||
        { echo "netcheck: allreduce-bench across $h hosts failed (its output: $out/real-p$h.txt)" >&2; exit 1; }
    set -- "$@" "$out/real-p$h.csv"
    nodes=$nodes${nodes:+,}$h
done
sh "$here/netcluster.sh" down > /dev/null   # before the simulation: its cores are free again
gamma=$("$bin/study" get "$out/real-p${hosts%% *}.json" meta.model_lo_reduce_gbytes_per_s) || exit 1
simalgo=$(echo "$algo" | sed 's/library/smpi:ompi/')
simsizes=$(tr '\n' ',' < "$sizes" | sed 's/,*$//')
echo "netcheck: study simulate: fat tree, node links alpha/2 = $nodelat us, $beta GB/s; reduce $gamma GB/s"
"$bin/study" simulate --platform fattree --nodes "$nodes" --sizes "$simsizes" --algo "$simalgo" \
    --platform-args "--node-lat-us $nodelat --switch-lat-us 0 --node-gbytes-per-s $beta" \
    --reduce-gbytes-per-s "$gamma" --csv "$out/sim.csv" > "$out/sim.txt" 2>&1 ||
    { echo "netcheck: study simulate failed (its output: $out/sim.txt)" >&2; exit 1; }
"$bin/study" netcheck "$@" "$out/sim.csv" --csv "$out/netcheck.csv" --md "$out/netcheck.md" || exit 1
[ $quick = 1 ] && exit 0

# The data-parallel step: an LSTM-256 on a 10k vocabulary (5.65 M parameters, 22.6 MB a
# step to exchange, about 2 s at 100 Mbit/s against ~0.2 s of compute), ring allreduce.
set -- --model lstm --hidden 256 --vocab 10000 --batch 16 --bptt 35 --threads 1 --gemm openblas \
    --allreduce ring --seed 1
for h in $hosts; do
    up "$h"
    echo "netcheck: rnn-train --bench across $h hosts"
    (cd "$out" && mpi "$bin/rnn-train" "$@" --bench 3 --csv "real-train-p$h.csv" > "real-train-p$h.txt" 2>&1) ||
        { echo "netcheck: rnn-train across $h hosts failed (its output: $out/real-train-p$h.txt)" >&2; exit 1; }
done
sh "$here/netcluster.sh" down > /dev/null
echo "netcheck: study train-sim on the same platform (compute sampled here)"
"$bin/study" train-sim --platform fattree --nodes "$nodes" --allreduce ring --compute sample:3 --bench 3 \
    --platform-args "--node-lat-us $nodelat --switch-lat-us 0 --node-gbytes-per-s $beta" \
    --csv "$out/sim-train.csv" -- "$@" > "$out/sim-train.txt" 2>&1 ||
    { echo "netcheck: study train-sim failed (its output: $out/sim-train.txt)" >&2; exit 1; }
set --   # the real trainer's tables, one argument each
for h in $hosts; do set -- "$@" "$out/real-train-p$h.csv"; done
"$bin/study" netcheck "$@" "$out/sim-train.csv" --csv "$out/netcheck-train.csv" --md "$out/train.md" || exit 1

