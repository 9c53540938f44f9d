#!/bin/sh
# compose.sh [RUN] — weak and strong scaling and time-to-target for a convergence study's
# run folder (`make scaling` runs it after scaling/converge.sh; rerun it alone on a
# folder to resume or redo it).  The step at N nodes is composed:
#   T(N) = compute(b) + optimizer + exchange(N) + evaluation / eval_every
# compute and the optimizer measured on this machine's core (rnn-train --bench, one
# thread, the study's MODEL, the fastest of REPEATS interleaved repeats) or charged to a node of stated speed (NODE_GFLOPS), the
# exchange simulated under SMPI on the TaihuLight model (scaling/simulate) for the
# model's own gradient and tensors.  Points (scaling/study.sh, resumable, JOBS=K):
#   compute-bB-rK   rnn-train --bench at per-node batch B (the study's b and STRONG_B / N),
#                   REPEATS times, interleaved (repeat K of every B, then K + 1)
#   opt-NAME        the optimizer's time of each optimizer the study ran
#   eval            one evaluation of the validation split (EVAL_STREAMS streams)
#   exchange-rdb    the gradient and each tensor under `library` (SMPI's rdb, as train-sim)
#   exchange-hier   the gradient under hier
#   check-nN-ALGO   scaling/train-sim at CHECK_N (flops mode at NODE_GFLOPS)
# Files: compose_settings.txt, compose_points.txt, compose_preset.txt (the tensors), and
# through scaling/compose_tables.sh and compose_report.sh the tables scaling_weak.csv,
# scaling_strong.csv, scaling_time_to_target.csv, scaling_compose_check.csv, figures and
# a section of scaling_report.md.
# Settings (environment, fixed when the folder gets compose_settings.txt): STRONG_B,
# NODE_GFLOPS (default 100: an SW26010 node's 3060 GFLOP/s at the ~3% of peak the step
# reaches on this core at b = 4; auto: that fraction measured by this run), EVAL_EVERY
# (weak and strong tables), EVAL_ASYNC=1 (evaluation not exposed), BENCH_STEPS, REPEATS,
# CHECK_N, CHECK_ALGOS; QUICK=1 picks the quick grid's.
# Exit: 0 ok, 1 a point failed (the tables are made from the rest), 2 bad input,
# 130/143 interrupted.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
die() { echo "compose: $*" >&2; exit 2; }

. scaling/study_lib.sh
run=${1:-${RUN:-}}
[ -n "$run" ] || die "no run folder: give one made by scaling/converge.sh (compose.sh RUN)"
[ -d "$run" ] && run=$(cd "$run" && pwd)
# STUDY_CHECK=1 (make scaling, before the convergence study made the folder): this
# study's own settings checked alone, nothing created
if [ -n "${STUDY_CHECK:-}" ] && [ ! -f "$run/converge_settings.txt" ]; then :; else
    [ -f "$run/converge_settings.txt" ] || die "$run/converge_settings.txt missing: run scaling/converge.sh on $run first"
    . "$run/converge_settings.txt"
fi
[ -x build/bin/rnn-train ] && [ -x build/bin/platform-gen ] || die "build/bin/rnn-train or platform-gen missing: run make"

settings="$run/compose_settings.txt"
# NODE_GFLOPS=auto was replaced in the folder by the speed it measured: the same setting
[ "${NODE_GFLOPS:-}" = auto ] && grep -q '^NODE_GFLOPS_WHY="auto:' "$settings" 2>/dev/null && unset NODE_GFLOPS
settings_new "$settings"
if [ "$src" != "$settings" ]; then
    if [ -n "${QUICK:-}" ]; then dC="4 16 64"; dS=10; dR=2; else dC="16 100 800"; dS=20; dR=3; fi
    host=$(build/bin/platform-gen --platform taihulight --describe | awk '$1 == "host_gflops" { print $2 }')
    cat > "$src" <<EOF
STRONG_B="${STRONG_B:-256}"
NODE_GFLOPS="${NODE_GFLOPS:-100}"
NODE_GFLOPS_WHY="$(if [ -n "${NODE_GFLOPS:-}" ]; then echo "set by NODE_GFLOPS"; else
    echo "the default: an SW26010, the platform's node, 3060 GFLOP/s peak, at 3.3%, the fraction of peak the trainer's step reached on this core at b = 4 (2.4% and 3.9% measured under load)"; fi)"
NODE_PEAK_GFLOPS="$host"
EVAL_EVERY="${EVAL_EVERY:-50}"
EVAL_ASYNC="${EVAL_ASYNC:-0}"
BENCH_STEPS="${BENCH_STEPS:-$dS}"
REPEATS="${REPEATS:-$dR}"
CHECK_N="${CHECK_N-$dC}"
CHECK_ALGOS="${CHECK_ALGOS:-library hier}"
GAMMA_GBYTES_PER_S="$(build/bin/platform-gen --platform taihulight --describe | awk '$1 == "reduce_gbytes_per_s" { print $2 }')"
EOF
fi
. "$src"
JOBS=${JOBS:-1}
for name in STRONG_B EVAL_EVERY BENCH_STEPS REPEATS JOBS; do
    eval "vals=\$$name"
    case "$vals" in ''|*[!0-9]*|0) die "$name=$vals: expected a positive integer" ;; esac
done
for v in $CHECK_N; do
    case "$v" in *[!0-9]*|0) die "CHECK_N=$CHECK_N: '$v' is not a positive integer" ;; esac
done
[ "$NODE_GFLOPS" = auto ] || awk -v x="$NODE_GFLOPS" 'BEGIN { exit !(x ~ /^[0-9.eE+-]+$/ && x + 0 > 0) }' ||
    die "NODE_GFLOPS=$NODE_GFLOPS: expected auto or a speed in GFLOP/s > 0"
for a in $CHECK_ALGOS; do
    case "$a" in library|hier) ;; *) die "CHECK_ALGOS=$CHECK_ALGOS: '$a' is not library or hier" ;; esac
done
[ -z "${STUDY_CHECK:-}" ] || exit 0
settings_save "$settings"
sed 's/^/compose:   /' "$settings"

points="$run/compose_points.txt"
touch "$points"
status=0
study() {
    sh scaling/study.sh run "$run" "$points"
    rc=$?
    { [ $rc -eq 130 ] || [ $rc -eq 143 ]; } && { echo "compose: interrupted; rerun scaling/compose.sh $run to resume"; exit $rc; }
    [ $rc -eq 0 ] || status=1
}
add() { # NAME WEIGHT COMMAND...: one point, unless the file has it already
    awk -v n="$1" '$1 == n { f = 1 } END { exit !f }' "$points" && return 0
    n=$1; w=$2; shift 2
    echo "$n $w 0 $*" >> "$points"
}
b0=$(echo $B_LIST | awk '{ print $1 }')
es=$(( (EVAL_STREAMS + b0 - 1) / b0 * b0 ))
bench="rnn-train $MODEL --threads $THREADS --seed $SEED --optimizer momentum --bench $BENCH_STEPS --csv bench.csv"

# ---- compute, the optimizers, the evaluation: measured here ----------------------------
batches=$( { for b in $B_LIST; do echo "$b"; done
    for N in $N_LIST; do [ $((STRONG_B % N)) -eq 0 ] && echo $((STRONG_B / N)); done; } | sort -n -u)
# interleaved, so that a change in the machine's load touches every b alike
for k in $(seq 1 "$REPEATS"); do
    for b in $batches; do add "compute-b$b-r$k" $((BENCH_STEPS * (20 + b))) "$bench --batch $b"; done
done
opts=$(echo "momentum ${OPT_N:+$OPT_LIST}" | tr ' ' '\n' | awk 'NF && !s[$0]++ && $0 != "momentum"')
for o in $opts; do
    add "opt-$o" $((BENCH_STEPS * (20 + b0))) "$(echo "$bench" | sed "s/--optimizer momentum/--optimizer $o/") --batch $b0"
done
add eval $((BENCH_STEPS * (20 + b0) * 3)) "$bench --batch $b0 --eval-streams $es --eval-every $((BENCH_STEPS / 2))"
study
study_none_done compose "$points" ""
first="$run/points/compute-b$b0-r1/bench.csv"
[ -f "$first" ] || point_failed compose "compute-b$b0-r1"

params=$(col "$first" params 2> /dev/null)   # col: scaling/study/get.sh, via study_lib.sh
[ -n "$params" ] || die "$first has no params column (rebuild rnn-train)"

# ---- the model's tensors, as model_layout lays them out; their sum must be params -----
preset="$run/compose_preset.txt"
if [ ! -f "$preset" ]; then
    awk -F, -v params="$params" "$(cat plot/csv.awk)"' function emit() {
        if (d++) return
        G = (v["model"] == "lstm" ? 4 : 1) * v["hidden"]; V = v["vocab"]; H = v["hidden"]
        print "# " v["model"] " hidden " H " layers " v["layers"] " embed " v["embed"] " vocab " V " classes " v["classes"]
        t("embed", V * v["embed"])
        for (l = 0; l < v["layers"]; l++) {
            t("l" l ".wx", G * (l == 0 ? v["embed"] : H)); t("l" l ".wh", G * H); t("l" l ".b", G) }
        t("out.w", V * H); t("out.b", V)
        if (v["classes"] > 0) { t("cls.w", v["classes"] * H); t("cls.b", v["classes"]) }
        print "bptt", v["bptt"] }
        function t(name, n) { printf "%-8s %d 1\n", name, n; total += int((n + 15) / 16) * 16 }
        END { if (total != params) { print "compose: the tensors sum to " total " floats, rnn-train has " params > "/dev/stderr"; exit 2 } }' \
        "$first" > "$preset.tmp" && mv "$preset.tmp" "$preset" ||
        { rm -f "$preset.tmp"; die "cannot lay out the model's tensors (models/model.c changed?)"; }
fi

# ---- the node of stated speed ---------------------------------------------------------
if [ "$NODE_GFLOPS" = auto ]; then
    frac=$(col "$first" frac_of_peak 2> /dev/null)
    [ -n "$frac" ] || die "NODE_GFLOPS=auto: compute-b$b0-r1 measured no frac_of_peak; set NODE_GFLOPS=G"
    g=$(awk -v p="$NODE_PEAK_GFLOPS" -v f="$frac" 'BEGIN { printf "%.3g\n", p * f }')
    sed -i "s/^NODE_GFLOPS=\"auto\"\$/NODE_GFLOPS=\"$g\"/; s/^NODE_GFLOPS_WHY=.*/NODE_GFLOPS_WHY=\"auto: the platform node's peak $NODE_PEAK_GFLOPS GFLOP\/s x $frac, the fraction of peak the step reached here at b = $b0\"/" "$settings"
    NODE_GFLOPS=$g
    echo "compose: NODE_GFLOPS = $g ($NODE_PEAK_GFLOPS GFLOP/s x $frac)"
fi

# ---- the exchange, simulated; the composition check --------------------------------------
nodes=$(for N in $N_LIST; do [ "$N" -ge 2 ] && echo "$N"; done | tr '\n' ',' | sed 's/,$//')
sizes=$( { awk '{ sub(/#.*/, "") } NF >= 3 { print $2 * 4 }' "$preset"; echo $((params * 4)); } | sort -n -u | tr '\n' ',' | sed 's/,$//')
if [ -n "$nodes" ]; then
    add exchange-rdb 400 "$ROOT/scaling/simulate" --platform taihulight --nodes "$nodes" --algo smpi:rdb --sizes "$sizes" --csv exchange.csv
    add exchange-hier 400 "$ROOT/scaling/simulate" --platform taihulight --nodes "$nodes" --algo hier --sizes $((params * 4)) --csv exchange.csv
fi
for N in $CHECK_N; do
    for a in $CHECK_ALGOS; do
        # from the root: rnn-train-smpi finds the corpus from the working folder
        add "check-n$N-$a" $((N * 4)) cd "$ROOT" "&&" scaling/train-sim --platform taihulight --nodes "$N" \
            --allreduce "$a" --compute "flops:$NODE_GFLOPS" --csv "$run/points/check-n$N-$a/check.csv" \
            -- $MODEL --batch "$b0" --optimizer momentum
    done
done
study

sh scaling/compose_tables.sh "$run" || status=1
sh scaling/compose_report.sh "$run" || status=1
exit $status
