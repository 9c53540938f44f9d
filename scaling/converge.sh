#!/bin/sh
# converge.sh [RUN] — what `make scaling` runs: steps-to-target against the global batch
# B = N x b, N synchronous workers of b streams each (rnn-train --workers N, the exact
# emulation), the learning rate tuned over a grid per N, into a run folder (RUN, or a
# new results/runs/<UTC stamp>-<host>/; a stopped study resumes with RUN=DIR):
#   converge_settings.txt   the grid's settings, fixed when the folder is made
#   converge_points.txt     the points (scaling/study.sh), converge_grid.csv their grid
#   points/NAME/            each point's command line, output, summary.csv, log.csv
#   scaling_convergence.csv/.json, scaling_fit.json, figures/scaling_convergence.png,
#   scaling_report.md       (scaling/converge_collect.sh; a rerun moves old ones to old-K/)
# The target is TARGET_X times the Kneser-Ney trigram's valid perplexity on the same
# split; valid is scored as EVAL_STREAMS streams at every batch (rnn-train
# --eval-streams), so every point meets the same target.
# Settings (environment): QUICK=1 (N = 1,4,16,64, two learning rates, ~10 min), N_LIST,
# B_LIST (per-worker batches, default 4; the issue's claim: "1 4 16"), LR_FACTORS,
# TARGET_X, OPT_N / OPT_LIST (the optimizers compared at the large end), WARMUP_N /
# WARMUP (the warmup steps tried there), EXTEND (rounds that widen a learning-rate grid
# whose best is at its edge), CAP_X / CAP_EPOCHS (the step cap), JOBS, THREADS, SEED,
# GEMM (plan: --gemm auto tunes once per batch, in the point gemm-bX, and the points at
# that batch name its picks, so a point run again gives the same bits; auto: each point
# tunes itself, picks that vary with load; or one backend);
# PLAN=1 writes the base grid's points (after the baseline) and stops, for a cluster.
# Exit: 0 ok, 1 a point failed (the rest still ran), 2 bad input, 130/143 interrupted.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)
die() { echo "converge: $*" >&2; exit 2; }

. scaling/study_lib.sh
study_run_name "${1:-${RUN:-}}"
[ -x build/bin/rnn-train ] && [ -x build/bin/scaling-fit ] || die "build/bin/rnn-train or scaling-fit missing: run make"

# ---- settings: checked, then written once, so a resumed study runs the grid it started;
# nothing is created before every check passed (STUDY_CHECK=1: the checks alone) ------
settings="$run/converge_settings.txt"
settings_new "$settings"
if [ "$src" != "$settings" ]; then
    if [ -n "${QUICK:-}" ]; then
        dN="1 4 16 64"; dF="0.5 1"; dON=""; dWN=""; dE=0
    else
        # the optimizers compared at N = 256, the warmup tried at 800: both at 800 would
        # triple the study's cost, past its budget of 3 hours on 2 cores
        dN="1 2 4 8 16 32 64 100 128 256 400 512 800"; dF="0.5 1 2"; dON="256"; dWN="800"; dE=2
    fi
    cat > "$src" <<EOF
N_LIST="${N_LIST:-$dN}"
B_LIST="${B_LIST:-4}"
LR_FACTORS="${LR_FACTORS:-$dF}"
TARGET_X="${TARGET_X:-1.5}"
OPT_N="${OPT_N-$dON}"
OPT_LIST="${OPT_LIST:-adam lars lamb}"
WARMUP_N="${WARMUP_N-$dWN}"
WARMUP="${WARMUP:-10}"
EXTEND="${EXTEND:-$dE}"
CAP_X="${CAP_X:-3}"
CAP_EPOCHS="${CAP_EPOCHS:-50}"
EVAL_STREAMS="${EVAL_STREAMS:-64}"
THREADS="${THREADS:-1}"
SEED="${SEED:-1}"
MODEL="${MODEL:---model lstm --hidden 128 --classes 100 --bptt 35}"
GEMM="${GEMM:-plan}"
EOF
fi
case "$src" in /*) . "$src" ;; *) . "./$src" ;; esac
grep -q '^GEMM=' "$src" || GEMM=auto   # a folder made before the setting ran auto
case "$GEMM" in plan|auto|openblas|blis|onednn|blocked|naive) ;;
    *) die "GEMM=$GEMM: expected plan, auto or a backend (openblas, blis, onednn, blocked, naive)" ;; esac
# bad settings: one line, exit 2, before anything is written
JOBS=${JOBS:-1}
positive_ints N_LIST B_LIST CAP_EPOCHS EVAL_STREAMS THREADS JOBS
for name in LR_FACTORS TARGET_X CAP_X; do
    eval "vals=\$$name"
    [ -n "$vals" ] || die "$name is empty: expected a number > 0"
    for v in $vals; do
        awk -v x="$v" 'BEGIN { exit !(x ~ /^[0-9.eE+-]+$/ && x + 0 > 0) }' ||
            die "$name=$vals: '$v' is not a number > 0"
    done
done
# the settings rnn-train takes, checked by rnn-train itself (--check-args reads nothing)
train_check "MODEL=$MODEL" $MODEL
train_check "SEED=$SEED" $MODEL --seed "$SEED"
train_check "THREADS=$THREADS" $MODEL --threads "$THREADS"
case "$GEMM" in plan|auto) ;; *) train_check "GEMM=$GEMM" $MODEL --gemm "$GEMM" ;; esac
for b in $B_LIST; do train_check "B_LIST=$B_LIST" $MODEL --batch "$b"; done
[ -z "${STUDY_CHECK:-}" ] || exit 0
study_run_folder
settings_save "$settings"
BPTT=$(echo "$MODEL" | awk '{ for (i = 1; i < NF; i++) if ($i == "--bptt") print $(i + 1) }')
BPTT=${BPTT:-35}
echo "converge: run folder $run"
echo "converge: N = $N_LIST; b = $B_LIST; lr x ($LR_FACTORS); target $TARGET_X x kn3"
sed 's/^/converge:   /' "$settings"

points="$run/converge_points.txt"
grid="$run/converge_grid.csv"
[ -f "$grid" ] || echo "point,N,b,optimizer,lr,warmup,eval_every,steps_cap,refines" > "$grid"
touch "$points"
status=0

study() { run_points converge; }

# add NAME WEIGHT OK GRIDROW COMMAND: one point, unless the file has it already.
add() {
    name=$1; weight=$2; ok=$3; row=$4; shift 4
    awk -v n="$name" '$1 == n { f = 1 } END { exit !f }' "$points" && return 0
    echo "$name $weight $ok $*" >> "$points"
    [ -n "$row" ] && echo "$name,$row" >> "$grid"
    return 0
}

# ---- the baseline and the target --------------------------------------------------------
add kn3 1 0 "" rnn-train --model kn3 --csv summary.csv
study
kn3=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["valid_ppl"]; exit }' \
    "$run/points/kn3/summary.csv" 2>/dev/null)
ntrain=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["tokens"]; exit }' \
    "$run/points/kn3/summary.csv" 2>/dev/null)
[ -n "$kn3" ] && [ -n "$ntrain" ] || point_failed converge kn3
target=$(awk -v k="$kn3" -v x="$TARGET_X" 'BEGIN { printf "%.2f\n", k * x }')
echo "converge: kn3 valid ppl $kn3; target valid ppl $target ($TARGET_X x kn3); $ntrain train tokens"

# The grid's arithmetic, one awk program: the centre learning rate of an optimizer at a
# global batch (sqrt scaling from its reference at B = 4, capped: past B_crit a larger
# batch no longer allows a larger step; LARS and LAMB at their defaults, which their
# trust ratio makes batch-independent), the evaluation interval (~1/20 of the fewest
# steps the target could take, so the first evaluation under the target is within 10%
# of the crossing; refine() catches a point that needed fewer), the step cap and the
# expected cost (tokens).
calc() {
    awk -v what="$1" -v opt="$2" -v B="$3" -v f="${4:-1}" -v ntrain="$ntrain" -v T="$BPTT" \
        -v capx="$CAP_X" -v cape="$CAP_EPOCHS" 'BEGIN {
        ref["momentum"] = 1; ref["nesterov"] = 1; ref["sgd"] = 10; ref["adam"] = 0.002
        top["momentum"] = 4; top["nesterov"] = 4; top["sgd"] = 40; top["adam"] = 0.02
        fixed["lars"] = 10; fixed["lamb"] = 0.1
        est = 60 + 1600 / B                        # S_min + E_min / B, guessed
        least = 1600 / B; if (least < 40) least = 40   # the fewest steps, guessed low
        spe = int((int(ntrain / B) - 1 + T - 1) / T)
        cap = int(capx * est); if (cap > cape * spe) cap = cape * spe; if (cap < 20) cap = 20
        c = ref[opt] * sqrt(B / 4); if (c > top[opt]) c = top[opt]
        if (what == "lr") printf "%.4g\n", f * ((opt in fixed) ? fixed[opt] : c)
        else if (what == "eval") { k = int(least / 20); print (k < 1 ? 1 : k) }
        else if (what == "cap") print cap
        else if (what == "weight") printf "%.0f\n", (est < cap ? est : cap) * B * T
        else if (what == "stream") print int(ntrain / B) }'
}

# eval_streams b: EVAL_STREAMS rounded up to a multiple of b (rnn-train's layout).
eval_streams() { echo $(( (EVAL_STREAMS + $1 - 1) / $1 * $1 )); }

# group N b: K, the workers a group of the grid runs as one (see lr_point).
group() {
    es=$(eval_streams "$2")
    K=$1; [ "$1" -gt 1 ] && K=$(($1 / 2))
    while [ "$K" -gt 1 ] && { [ $(($1 % K)) -ne 0 ] || [ $((es % (K * $2))) -ne 0 ]; }; do K=$((K - 1)); done
    echo "$K"
}

# GEMM=plan: one point per batch the grid runs, gemm-bX, tunes --gemm auto (on a
# one-step bench); every point at batch X then names its picks (gemm_of X).
plans() {
    [ "$GEMM" = plan ] || return 0
    for b in $B_LIST; do
        for N in $N_LIST; do echo $(( $(group "$N" "$b") * b )); done
    done | sort -un | while read -r x; do
        add "gemm-b$x" 1 0 "" rnn-train $MODEL --threads "$THREADS" --seed "$SEED" --batch "$x" \
            --bench 1 --json summary.json
    done
    study
}
gemm_of() {
    [ "$GEMM" = plan ] || { echo "$GEMM"; return 0; }
    p=$(json_meta gemm_plan "$run/points/gemm-b$1/summary.json")
    [ -n "$p" ] || point_failed converge "gemm-b$1"   # the plan of batch $1
    echo "'$p'"
}

# lr_point N b OPT LR WARMUP: one training point of the grid.
lr_point() {
    N=$1; b=$2; opt=$3; lr=$4; wu=$5; B=$((N * b))
    name="b$b-n$N-$opt-lr$lr-w$wu"
    if [ "$(calc stream "$opt" "$B")" -lt "$BPTT" ]; then
        add "$name" 0 x "$N,$b,$opt,$lr,$wu,,," "infeasible: $ntrain train tokens as $B streams of" \
            "$(calc stream "$opt" "$B") tokens, shorter than bptt $BPTT"
        return 0
    fi
    ev=$(calc eval "$opt" "$B"); cap=$(calc cap "$opt" "$B")
    es=$(eval_streams "$b")
    # The N workers run as N/K groups of K (--workers N/K --batch K b): the same streams
    # and the same summed gradient, in wider, faster GEMMs.  K: the largest divisor of N
    # below N (b_simple needs two groups) whose K b streams divide the valid layout.
    K=$(group "$N" "$b")
    g=$(gemm_of $((K * b))) || exit 1
    add "$name" "$(calc weight "$opt" "$B")" 0,1 "$N,$b,$opt,$lr,$wu,$ev,$cap," \
        rnn-train $MODEL --gemm "$g" --threads "$THREADS" --seed "$SEED" \
        --schedule const --eval-streams "$es" \
        --batch $((K * b)) --workers $((N / K)) --optimizer "$opt" --lr "$lr" --warmup "$wu" \
        --target-ppl "$target" --eval-every "$ev" --steps "$cap" \
        --log log.csv --csv summary.csv --json summary.json
}

# The base grid: momentum at every N and b, the other optimizers and the warmup at the
# large end.
base_grid() {
    for b in $B_LIST; do
        for N in $N_LIST; do
            B=$((N * b))
            opts="momentum"
            echo " $OPT_N " | grep -q " $N " && opts="$opts $OPT_LIST"
            wus=0
            echo " $WARMUP_N " | grep -q " $N " && wus="0 $WARMUP"
            for opt in $opts; do
                for f in $LR_FACTORS; do
                    for wu in $wus; do lr_point "$N" "$b" "$opt" "$(calc lr "$opt" "$B" "$f")" "$wu"; done
                done
            done
        done
    done
}

# Refinement: a point whose evaluation interval is over 1/11 of its steps-to-target is
# run again (the same seed gives the same run up to the target) with one ~1/20 of it.
refine() {
    sh scaling/converge_collect.sh rows "$run" "$grid" "$target" > "$run/converge_rows.tmp" || status=1
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        $c["steps_to_target"] != "" && $c["resolved"] == 0 && $c["point"] !~ /-fine$/ { print $c["point"], $c["steps_to_target"] }' \
        "$run/converge_rows.tmp" | while read -r name s; do
        line=$(awk -v n="$name" '$1 == n' "$points")
        ev=$(( s / 20 )); [ "$ev" -ge 1 ] || ev=1
        cmd=$(echo "$line" | cut -d' ' -f4- | sed "s/--eval-every [0-9]*/--eval-every $ev/; s/--steps [0-9]*/--steps $s/")
        row=$(awk -F, -v p="$name" '$1 == p' "$grid" | cut -d, -f2- |
            awk -F, -v ev="$ev" -v s="$s" -v p="$name" 'BEGIN { OFS = "," } { $6 = ev; $7 = s; $8 = p; print }')
        add "$name-fine" "$(echo "$line" | cut -d' ' -f2)" 0,1 "$row" $cmd
    done
    rm -f "$run/converge_rows.tmp"
    study
}

# Widening: where the best learning rate of an (N, b, optimizer, warmup) is the grid's
# largest or smallest and reached the target, the next one out (x2 or /2) joins.
widen() {
    sh scaling/converge_collect.sh rows "$run" "$grid" "$target" > "$run/converge_rows.tmp" || status=1
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
        { k = $c["N"] " " $c["b"] " " $c["optimizer"] " " $c["warmup"]; lr = $c["lr"] + 0
          if (!(k in lo) || lr < lo[k]) lo[k] = lr; if (!(k in hi) || lr > hi[k]) hi[k] = lr
          s = $c["steps_to_target"]
          if (s != "" && (!(k in best) || s + 0 < best[k])) { best[k] = s + 0; blr[k] = lr } }
        END { for (k in best) { if (blr[k] == hi[k]) print k, hi[k] * 2; if (blr[k] == lo[k]) print k, lo[k] / 2 } }' \
        "$run/converge_rows.tmp" > "$run/converge_widen.tmp"
    rm -f "$run/converge_rows.tmp"
    while read -r N b opt wu lr; do
        lr_point "$N" "$b" "$opt" "$(awk -v x="$lr" 'BEGIN { printf "%.4g\n", x }')" "$wu"
    done < "$run/converge_widen.tmp"
    more=$(wc -l < "$run/converge_widen.tmp")
    rm -f "$run/converge_widen.tmp"
    [ "$more" -gt 0 ] && study
    [ "$more" -gt 0 ]
}

plans
base_grid
if [ -n "${PLAN:-}" ]; then
    echo "converge: PLAN=1: $(grep -c . "$points") points in $points, none run yet" \
        "(scaling/study.sh point $run $points K runs the K-th; RUN=$run make scaling finishes)"
    exit 0
fi
study
refine
round=0
while [ "$round" -lt "$EXTEND" ] && widen; do
    round=$((round + 1))
    refine
done

sh scaling/converge_collect.sh all "$run" "$grid" "$target" "$kn3" || status=1
exit $status
