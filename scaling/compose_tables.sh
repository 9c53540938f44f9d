#!/bin/sh
# compose_tables.sh RUN — scaling/compose.sh's tables from its points (rerun it alone to
# redo them; earlier tables move to RUN/old-K/):
#   scaling_weak.csv             per-node batch b fixed (the study's B_LIST)
#   scaling_strong.csv           global batch STRONG_B fixed, b = STRONG_B / N where integral
#   scaling_time_to_target.csv   steps-to-target of the study's best point per (N, b) x T(N)
#   scaling_compose_check.csv    the composed step against scaling/train-sim's simulated one
# Each for the exchange schemes fused-library (SMPI's rdb, train-sim's `library`),
# fused-hier and per-tensor (library, one allreduce per tensor per unrolled step), and
# (but the check) for two nodes: `core`, this machine's core as measured, and
# `gflops`, a node of NODE_GFLOPS: compute = the step's flops / NODE_GFLOPS, optimizer =
# its memory traffic at the platform's gamma rate (as train-sim charges it), evaluation
# scaled by this core's GFLOP/s over NODE_GFLOPS.
set -u
cd "$(dirname "$0")/.."
die() { echo "compose_tables: $*" >&2; exit 2; }
[ $# -eq 1 ] || die "usage: compose_tables.sh RUN"
run=$1
for f in converge_settings.txt compose_settings.txt compose_preset.txt; do
    [ -f "$run/$f" ] || die "$run/$f missing: run scaling/compose.sh $run"
done
. "$run/converge_settings.txt"
. "$run/compose_settings.txt"
CSVAWK=$(cat plot/csv.awk)
P="$run/points"

# Each CSV's rows as fact lines, tagged: csvfacts TAG 'awk print of v[...]' FILES...
# (a failed attempt kept aside, NAME.attempt-K, is not a result)
csvfacts() {
    tag=$1; expr=$2; shift 2
    for f in "$@"; do
        case "$f" in *.attempt-*) continue ;; esac
        [ -f "$f" ] && awk -F, -v tag="$tag" "$CSVAWK"' function emit() { print tag, '"$expr"' }' "$f"
    done
    return 0
}

# The measured, simulated and converged facts, one per line (awk reads them below).
facts() {
    csvfacts compute 'v["batch"], v["compute_ms"], v["optimizer_ms"], v["gflop_per_step"], v["gflops"], v["params"], v["bptt"]' \
        "$P"/compute-b*-r*/bench.csv
    for d in "$P"/opt-*; do
        csvfacts optimizer "\"${d##*/opt-}\", v[\"optimizer_ms\"]" "$d/bench.csv"
    done
    csvfacts eval 'v["eval_ms"]' "$P/eval/bench.csv"
    awk '{ sub(/#.*/, "") } NF >= 3 { print "tensor", $2 * 4 }' "$run/compose_preset.txt"
    csvfacts x 'v["algo"], v["p"], v["bytes"], v["p50_us"]' "$P"/exchange-*/exchange.csv
    csvfacts check 'v["workers"], v["allreduce"], v["compute"], v["step_ms_median"], v["compute_ms"], v["exchange_exposed_ms"], v["optimizer_ms"]' \
        "$P"/check-*/check.csv
    [ -f "$run/scaling_convergence.csv" ] && awk -F, "$CSVAWK"' function emit() {
        if (v["best"] == 1 && v["steps_to_target"] != "") print "conv", v["N"], v["b"], v["optimizer"], v["steps_to_target"], v["eval_every"] }' \
        "$run/scaling_convergence.csv"
    return 0
}

aside() {
    [ -e "$1" ] || return 0
    k=1; while [ -e "$run/old-$k/$(basename "$1")" ]; do k=$((k + 1)); done
    mkdir -p "$run/old-$k" && mv "$1" "$run/old-$k/"
}

b0=$(echo $B_LIST | awk '{ print $1 }')
[ -f "$P/compute-b$b0-r1/bench.csv" ] || die "$P/compute-b$b0-r1/bench.csv missing: rerun scaling/compose.sh $run"
tmp="$run/.compose.tmp"
facts > "$tmp.facts"
awk -v out="$tmp" -v nlist="$N_LIST" -v blist="$B_LIST" -v strongB="$STRONG_B" -v G="$NODE_GFLOPS" \
    -v gamma="$GAMMA_GBYTES_PER_S" -v every="$EVAL_EVERY" -v async="$EVAL_ASYNC" -f scaling/compose.awk "$tmp.facts"
rc=$?
[ $rc -eq 0 ] || { rm -f "$tmp".*; die "the composition failed (exit $rc)"; }
for t in weak strong time_to_target compose_check; do
    aside "$run/scaling_$t.csv"
    mv "$tmp.$t" "$run/scaling_$t.csv" && echo "compose: $run/scaling_$t.csv"
done
rm -f "$tmp.facts"
