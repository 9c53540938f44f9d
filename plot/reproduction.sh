#!/bin/sh
# reproduction.sh RUN — report.md's "Reproduction" section: each claim of the two studies
# rnnscale reproduces (the Sunway TaihuLight thesis on scaling RNN training, and the GPU
# study of large RNN language models), the published figure beside this run's, and a
# verdict: met, NOT met, or not reproducible here (and why).  A claim whose files are not
# in RUN names the make target that measures it.  Everything quoted comes from RUN.
set -u
run=${1:?usage: reproduction.sh RUN}
cd "$(dirname "$0")/.."
run=${run%/}

. scaling/study/get.sh
# pick CSV FILTER OUT: awk over a CSV by column name (csv_rows: read by build/bin/study):
# OUT for every row where FILTER holds, e.g. pick f.csv 'v["p"] == 4' 'v["algo"], v["time_us"]'.
pick() { [ -f "$1" ] && csv_rows "$1" '*' 'function emit() { if ('"$2"') print '"$3"' }'; }
claim() { printf -- '- **%s** (seed: %s). This run: %s — %s\n' "$1" "$2" "$3" "$4"; }
missing() { printf -- '- **%s** (seed: %s). Not in this run: `%s` measures it.\n' "$1" "$2" "$3"; }

echo "## Reproduction"
echo
echo "The claims of the two studies this suite reproduces, each beside this run's figure."
echo "Sunway: \"Scaling the training of recurrent neural networks on Sunway TaihuLight\";"
echo "GPU: \"Large scale recurrent neural network on GPU\" (two-stage pipeline, no class layer)."
echo

# exp + softmax, the Sunway TaihuLight study's two computational hot spots: "an overall acceleration of 12.63x"
c="exp and softmax optimised: 12.63x"
l=$(grep -h 'in L2, 1 thread: best speedup over naive' "$run/softmax.txt" 2>/dev/null | head -n 1)
if [ -n "$l" ]; then
    k=$(echo "$l" | sed -n 's/.*>= 12.63x on \([0-9]*\) of \([0-9]*\) shapes.*/\1 \2/p')
    set -- $k
    # the Sunway TaihuLight study's figure is one overall speedup: met when every shape reaches it
    v="NOT met"; [ "${1:-0}" -gt 0 ] && [ "${1:-0}" -eq "${2:-0}" ] && v="met"
    claim "$c" "12.63x over the original" "softmax, $(echo "$l" | sed 's/^ *//; s/;.*//'); reached on ${1:-0} of ${2:-0} shapes" "$v"
else
    missing "$c" "12.63x over the original" "make bench"
fi

# communication: redundant exchanges removed + a topology-mapped allreduce, "20 times"
c="redundant communication removed and MPI_Allreduce mapped to the topology: 20x"
r=$(pick "$run/caffe.csv" 'v["algo"] == "fused_hier" && v["improvement"] != ""' 'v["p"], v["improvement"]' | sort -n | tail -n 1)
if [ -n "$r" ]; then
    set -- $r
    v="NOT met"; awk -v x="$2" 'BEGIN { exit !(x >= 20) }' && v="met"
    claim "$c" "20x" "one fused hier allreduce against Caffe-style per-tensor, per-step exchanges, LSTM-512, $1 simulated TaihuLight nodes: $(printf '%.1f' "$2")x" "$v"
else
    missing "$c" "20x" "make simulate"
fi

# the distributed testing module: evaluation hidden behind training
c="model testing hidden in high-frequency evaluation"
r=$(pick "$run/train_eval.csv" 'v["eval_mode"] == "async" && v["eval_exposed_fraction"] != ""' 'v["eval_exposed_fraction"], v["eval_every"], v["eval_ms"]')
r2=$(pick "$run/train_eval.csv" 'v["eval_mode"] == "serial"' 'v["eval_exposed_fraction"]')
if [ -n "$r" ] && [ -n "$r2" ]; then
    set -- $r $r2
    pct() { awk -v x="$1" 'BEGIN { printf "%.1f%%", 100 * x }'; }
    v="NOT met"; awk -v x="$1" 'BEGIN { exit !(x <= 0.10) }' && v="met"
    claim "$c" "completely hidden" "evaluation every $2 steps ($(printf '%.0f' "$3") ms each): $(pct "$1") of it exposed with --eval-async, $(pct "$4") serial (target <= 10%)" "$v"
else
    missing "$c" "completely hidden" "make bench"
fi

# convergence: "100 training nodes reduce the iterations to converge by roughly 100 times"
c="100 nodes need ~100x fewer iterations than one"
# b:ratio of every fitted b (fits.K in scaling_fit.json) whose ratio is a number
fit="$run/scaling_fit.json"; r=""; k=0
while b=$(study_get "$fit" fits.$k.b 2> /dev/null); do
    x=$(study_get "$fit" fits.$k.claim.ratio --optional)
    [ -n "$x" ] && [ -z "$(study_get "$fit" fits.$k.no_fit --optional)" ] && r="${r:+$r }$b:$(printf '%.4g' "$x")"
    k=$((k + 1))
done
if [ -n "$r" ]; then
    best=$(echo "$r" | tr ' ' '\n' | sort -t: -k2 -g | tail -n 1)
    v="NOT met"; awk -v x="${best#*:}" 'BEGIN { exit !(x >= 80) }' && v="met"
    claim "$c" "~100x" "steps(N = 1) / steps(N = 100) per per-worker batch b (b:ratio) $r; where it stops: B_crit in the convergence section (target >= 80x)" "$v"
elif [ -f "$fit" ]; then
    printf -- '- **%s** (seed: ~100x). Not in this run: its grid has no point at N = 1 and N = 100 that reached the target (`make scaling` without QUICK has both).\n' "$c"
else
    missing "$c" "~100x" "make scaling"
fi

# scale: "expanded to 800 nodes"
c="training carried to 800 nodes"
a=$(pick "$run/simulate.csv" 'v["p"] == 800' 'v["algo"]' | sort -u | tr '\n' ' ')
t=$(pick "$run/scaling_train_sim.csv" 'v["ranks"] == 800' 'v["sync"] "/" v["allreduce"]' | sort -u | tr '\n' ' ')
if [ -n "$a$t" ]; then
    s=""; [ -n "$a" ] && s="allreduce at 800 simulated nodes ($a)"
    [ -n "$t" ] && s="${s:+$s; }training steps at 800 simulated nodes ($t)"
    claim "$c" "800 nodes" "$s, simulated under SMPI on the TaihuLight model (no 800-node machine here)" "met"
else
    missing "$c" "800 nodes" "make simulate"
fi

# the GPU study's two-stage pipeline: "2-11x over the CPU implementation with MKL"
c="two-stage pipeline on a GPU: 2-11x over MKL on the CPU"
r=$(pick "$run/train_pipeline.csv" 'v["mode"] == "pipelined"' 'v["speedup_vs_sequential"], v["bit_identical"]' | sort -g | tail -n 1)
if [ -n "$r" ]; then
    set -- $r
    claim "$c" "2-11x" "the same pipeline on CPU threads: $(printf '%.2f' "$1")x over the sequential order (bit-identical: $2)" \
        "not reproducible here (no GPU)"
else
    missing "$c" "2-11x" "make bench"
fi

# the GPU study's model comparison: a large model without a class layer beats a modest
# class-based one (47% on the MSR sentence-completion challenge)
c="a large model without a class layer beats a modest class-based one"
r=$(pick "$run/scaling_models.csv" 'v["valid_ppl"] != ""' 'v["hidden"], v["classes"], v["valid_ppl"], v["completion_accuracy"]')
if [ -n "$r" ]; then
    modest=$(echo "$r" | awk '$2 > 0' | sort -n | head -n 1)
    large=$(echo "$r" | awk '$2 == 0' | sort -n | tail -n 1)
    if [ -n "$modest" ] && [ -n "$large" ]; then
        set -- $modest $large
        v="NOT met"; awk -v m="$3" -v l="$7" 'BEGIN { exit !(l < m) }' && v="met"
        # the study's own verdict where it wrote one: test ppl and completion beyond noise
        if [ -f "$run/scaling_models.md" ]; then
            v="NOT met"; grep -q '^\*\*Verdict: holds here' "$run/scaling_models.md" && v="met"
        fi
        claim "$c" "47% completion, the best single RNN" \
            "at an equal time budget, class-based hidden $1: valid ppl $3, completion $4; full softmax hidden $5: valid ppl $7, completion $8 (not the MSR set: questions built from this corpus)" "$v"
    else
        missing "$c" "47% completion" "make scaling"
    fi
else
    missing "$c" "47% completion" "make scaling"
fi
