#!/bin/sh
# compose_report.sh RUN — the figures and report section of scaling/compose.sh's tables
# (it calls this; rerun it alone on a run folder):
#   figures/scaling_efficiency.png      plot/scaling_efficiency.gp (weak and strong)
#   figures/scaling_breakdown.png       plot/scaling_breakdown.gp (the step's parts)
#   figures/scaling_time_to_target.png  plot/scaling_time_to_target.gp
#   scaling_report.md                   the section "Weak and strong scaling, time to
#                                       target", replacing an earlier one at its end
set -u
cd "$(dirname "$0")/.."
die() { echo "compose_report: $*" >&2; exit 2; }
[ $# -eq 1 ] || die "usage: compose_report.sh RUN"
run=$1
for f in scaling_weak.csv scaling_strong.csv scaling_time_to_target.csv scaling_compose_check.csv; do
    [ -f "$run/$f" ] || die "$run/$f missing: run scaling/compose_tables.sh $run"
done
. "$run/converge_settings.txt"
. "$run/compose_settings.txt"
CSVAWK=$(cat plot/csv.awk)
MARK="<!-- compose_report.sh: weak and strong scaling, time to target -->"
status=0

mkdir -p "$run/figures"
draw() { # NAME GNUPLOT-ASSIGNMENTS
    gnuplot -e "$2; out='$run/figures/$1.png'" "plot/$1.gp" && echo "compose: $run/figures/$1.png" ||
        { echo "compose: plot/$1.gp failed" >&2; status=1; }
}
if command -v gnuplot >/dev/null; then
    draw scaling_efficiency "weak='$run/scaling_weak.csv'; strong='$run/scaling_strong.csv'"
    draw scaling_breakdown "csv='$run/scaling_weak.csv'"
    # no time to target before the convergence study has a best point
    [ "$(wc -l < "$run/scaling_time_to_target.csv")" -gt 1 ] &&
        draw scaling_time_to_target "csv='$run/scaling_time_to_target.csv'"
fi

# One markdown table per node kind: per N (and b), the column FIRST and each scheme's
# COLS (column:label ...).
by_scheme() { # CSV KIND FIRST:LABEL COLS...
    f=$1; k=$2; first=${3%%:*}; flabel=${3#*:}; shift 3
    awk -F, -v k="$k" -v cols="$*" -v first="$first" -v flabel="$flabel" "$CSVAWK"'
        BEGIN { nc = split(cols, C, " "); ns = split("fused-library fused-hier per-tensor", S, " ")
            printf "| N | b | %s |", flabel; for (s = 1; s <= ns; s++) for (i = 1; i <= nc; i++) { split(C[i], x, ":"); printf " %s: %s |", S[s], x[2] }
            printf "\n| ---: | ---: | ---: |"; for (i = 1; i <= ns * nc; i++) printf " ---: |"; print "" }
        function emit() { if (v["node"] != k) return
            r = v["nodes"] SUBSEP v["b"]; if (!(r in seen)) { seen[r] = 1; order[++n] = r; cm[r] = v[first] }
            for (i = 1; i <= nc; i++) { split(C[i], x, ":"); val[r, v["scheme"], i] = v[x[1]] } }
        END { for (j = 1; j <= n; j++) { r = order[j]; split(r, y, SUBSEP); printf "| %s | %s | %s |", y[1], y[2], fmt(cm[r])
                  for (s = 1; s <= ns; s++) for (i = 1; i <= nc; i++) printf " %s |", fmt(val[r, S[s], i])
                  print "" } }
        function fmt(x) { return x == "" ? "-" : sprintf(x + 0 >= 1000 ? "%.0f" : "%.3g", x) }' "$f"
}

# The fastest node count per (node kind, b, scheme) of the time-to-target table.
fastest() {
    awk -F, "$CSVAWK"' function emit() { if (v["fastest"] == 1)
        printf "- %s, b = %s, %s: N = %s, %.3g s (%s steps of %.3g ms; %sx faster than N = 1)\n",
            v["node"] == "core" ? "this core" : v["node_gflops"] " GFLOP/s node", v["b"], v["scheme"], v["nodes"],
            v["time_to_target_s"], v["steps_to_target"], v["step_ms"], v["speedup"] == "" ? "-" : sprintf("%.3g", v["speedup"]) }' "$1"
}

# compute's spread over the repeats per b, from the strong table (every b it needs)
spread() {
    awk -F, "$CSVAWK"' function emit() { if (v["node"] == "core" && !s[v["b"]]++) printf "%sb = %s: %.4g - %.4g ms", n++ ? "; " : "", v["b"], v["compute_ms_min"], v["compute_ms_max"] }' \
        "$run/scaling_strong.csv" "$run/scaling_weak.csv"
}

section() {
    echo "$MARK"
    echo "## Weak and strong scaling, time to target"
    echo
    echo "The step at N nodes is composed: T(N) = compute(b) + optimizer + exposed exchange(N) +"
    echo "exposed evaluation. compute and the optimizer (momentum) are \`rnn-train --bench\` on this"
    echo "machine, one thread (\`$MODEL\`), at every per-node batch b, the fastest of $REPEATS interleaved"
    echo "repeats (the machine was loaded; compute per b, fastest - slowest: $(spread)); the exchange is the model's"
    echo "own gradient ($(awk '{ sub(/#.*/, "") } NF >= 3 { n++ } END { print n }' "$run/compose_preset.txt") tensors, compose_preset.txt) simulated under SMPI on the TaihuLight model"
    echo "(\`scaling/simulate\`): \`fused-library\` one allreduce of the flat gradient with SMPI's rdb"
    echo "(train-sim's \`library\`), \`fused-hier\` the same with hier, \`per-tensor\` one library allreduce"
    echo "per tensor per unrolled step (Caffe-style, each size simulated once and multiplied out). All"
    echo "three are blocking, so the exchange is all exposed."
    if [ "$EVAL_ASYNC" = 1 ]; then echo "Evaluation: asynchronous (\`--eval-async\`), not exposed (0)."
    else echo "Evaluation: synchronous, one evaluation of valid ($EVAL_STREAMS streams) every $EVAL_EVERY steps in every"
        echo "table (the study's own interval, ~1/20 of the steps to resolve the crossing, would dominate T(N))."; fi
    echo "Two nodes: \`core\`, this machine's core as measured (the machine was loaded); \`gflops\`, a"
    echo "node of $NODE_GFLOPS GFLOP/s (${NODE_GFLOPS_WHY:-set by NODE_GFLOPS}): compute = the"
    echo "step's flops / $NODE_GFLOPS GFLOP/s, the optimizer its memory traffic at $GAMMA_GBYTES_PER_S GB/s (as"
    echo "\`rnn-train-smpi\` charges it), evaluation scaled by this core's GFLOP/s over the node's."
    echo
    for k in core gflops; do
        echo "### Weak scaling, $k node (per-node batch fixed): step ms, efficiency"
        echo
        by_scheme "$run/scaling_weak.csv" "$k" "compute_ms:compute ms" step_ms:ms efficiency:eff
        echo
    done
    for k in core gflops; do
        echo "### Strong scaling, $k node (global batch $STRONG_B, b = $STRONG_B / N): step ms, efficiency"
        echo
        by_scheme "$run/scaling_strong.csv" "$k" "compute_ms:compute ms" step_ms:ms efficiency:eff
        echo
    done
    echo "### Time to target (steps of the study's best point x T(N)), seconds"
    echo
    for k in core gflops; do
        echo "$k node:"
        echo
        by_scheme "$run/scaling_time_to_target.csv" "$k" "steps_to_target:steps" time_to_target_s:s
        echo
    done
    echo "The node count that reaches the target first:"
    echo
    fastest "$run/scaling_time_to_target.csv"
    echo
    echo "### The composition against the simulated trainer (scaling/train-sim, flops mode)"
    echo
    echo "| N | scheme | node GFLOP/s | composed ms | simulated ms | difference | exchange composed / simulated ms |"
    echo "| ---: | --- | ---: | ---: | ---: | ---: | --- |"
    awk -F, "$CSVAWK"' function emit() { printf "| %s | %s | %s | %.4g | %.4g | %+.1f%% | %.4g / %.4g |\n", v["nodes"], v["scheme"],
        v["node_gflops"], v["composed_step_ms"], v["simulated_step_ms"], 100 * v["rel_diff"], v["composed_exchange_ms"], v["simulated_exchange_ms"] }' \
        "$run/scaling_compose_check.csv" | sort -t'|' -k2,2n -k3,3
    echo
    for f in scaling_efficiency scaling_breakdown scaling_time_to_target; do
        [ -f "$run/figures/$f.png" ] && echo "![$f](figures/$f.png)"
    done
    return 0
}

report="$run/scaling_report.md"
{ [ -f "$report" ] && awk -v m="$MARK" '$0 == m { exit } { print }' "$report"; section; } > "$report.tmp" &&
    mv "$report.tmp" "$report" && echo "compose: report section in $report" || status=1
exit $status
