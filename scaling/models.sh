#!/bin/sh
# models.sh [RUN] — the model-size study `make scaling` runs after the convergence study
# (alone, on any run folder): class-based modest models against larger full-softmax ones
# at an equal training-time budget.  For each hidden size, an LSTM with a class layer
# (--classes ~ sqrt(V)) and one with the full softmax train for BUDGET_S seconds of one
# thread (rnn-train --max-seconds, evaluations excluded), then are scored on valid, test
# and the sentence-completion test; the Kneser-Ney trigram is scored beside them.
#   models_settings.txt   the settings, fixed when the folder first runs this study
#   models_points.txt     the points (scaling/study.sh): points/models-*/
#   scaling_models.csv/.json, figures/scaling_models.png, scaling_models.md (a section of
#   scaling_report.md)    (scaling/models_collect.sh; a rerun moves old ones to old-K/)
# Settings (environment): QUICK=1 (hidden 128 and 256, 30 s: ~2 min), HIDDEN_LIST,
# BUDGET_S (seconds per point), CORPUS, CLASSES (0: the nearest integer to sqrt(V)),
# BATCH, BPTT, OPT_FLAGS, COMPLETION (questions), THREADS, SEED; JOBS (default 2: the
# class and full points of a hidden size run side by side, under the same machine load).
# Exit: 0 ok, 1 a point failed (the rest still ran), 2 bad input, 130/143 interrupted.
set -u
cd "$(dirname "$0")/.."
die() { echo "models: $*" >&2; exit 2; }

. scaling/study_lib.sh
study_run_name "${1:-${RUN:-}}"
[ -x build/bin/rnn-train ] && [ -x build/bin/simulate-write ] || die "build/bin/rnn-train or simulate-write missing: run make"

# ---- settings: checked, then written once, so a resumed study runs the points it
# started; nothing is created before every check passed (STUDY_CHECK=1: the checks alone)
settings="$run/models_settings.txt"
settings_new "$settings"
if [ "$src" != "$settings" ]; then
    if [ -n "${QUICK:-}" ]; then dH="128 256"; dS=30; else dH="128 256 512 1024"; dS=300; fi
    cat > "$src" <<EOF
HIDDEN_LIST="${HIDDEN_LIST:-$dH}"
BUDGET_S="${BUDGET_S:-$dS}"
CORPUS="${CORPUS:-mobydick}"
CLASSES="${CLASSES:-0}"
BATCH="${BATCH:-32}"
BPTT="${BPTT:-35}"
OPT_FLAGS="${OPT_FLAGS:---optimizer adam --lr 0.002 --schedule const}"
COMPLETION="${COMPLETION:-300}"
THREADS="${THREADS:-1}"
SEED="${SEED:-1}"
EOF
fi
case "$src" in /*) . "$src" ;; *) . "./$src" ;; esac
# bad settings: one line, exit 2, before anything is written
JOBS=${JOBS:-2}
export JOBS
positive_ints HIDDEN_LIST BATCH BPTT COMPLETION THREADS JOBS
case "$CLASSES" in ''|*[!0-9]*) die "CLASSES=$CLASSES: not an integer >= 0 (0: sqrt of the vocabulary)" ;; esac
awk -v x="$BUDGET_S" 'BEGIN { exit !(x ~ /^[0-9.eE+-]+$/ && x + 0 > 0) }' ||
    die "BUDGET_S=$BUDGET_S: not a number of seconds > 0"
# the settings rnn-train takes, checked by rnn-train itself (--check-args reads nothing)
train_check "CORPUS=$CORPUS" --corpus "$CORPUS"
train_check "OPT_FLAGS=$OPT_FLAGS" --corpus "$CORPUS" $OPT_FLAGS
train_check "SEED=$SEED" --seed "$SEED"
train_check "THREADS=$THREADS" --threads "$THREADS"
train_check "BUDGET_S=$BUDGET_S" --max-seconds "$BUDGET_S"
train_check "COMPLETION=$COMPLETION" --completion "$COMPLETION"
for h in $HIDDEN_LIST; do
    train_check "HIDDEN_LIST=$HIDDEN_LIST, BATCH=$BATCH, BPTT=$BPTT, CLASSES=$CLASSES" --model lstm \
        --hidden "$h" --classes "$CLASSES" --batch "$BATCH" --bptt "$BPTT" --corpus "$CORPUS" $OPT_FLAGS
done
[ -z "${STUDY_CHECK:-}" ] || exit 0
study_run_folder
settings_save "$settings"
echo "models: run folder $run"
sed 's/^/models:   /' "$settings"

points="$run/models_points.txt"
touch "$points"
status=0

study() { run_points models; }

# add NAME WEIGHT COMMAND: one point, unless the file has it already.
add() {
    name=$1; weight=$2; shift 2
    awk -v n="$name" '$1 == n { f = 1 } END { exit !f }' "$points" && return 0
    echo "$name $weight 0 $*" >> "$points"
}

# The baseline first: its vocabulary sets the class count.
add models-kn3 1 rnn-train --model kn3 --corpus "$CORPUS" --seed "$SEED" --completion "$COMPLETION" --csv summary.csv
study
vocab=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["vocab"]; exit }' \
    "$run/points/models-kn3/summary.csv" 2>/dev/null)
[ -n "$vocab" ] || point_failed models models-kn3
classes=$CLASSES
[ "$classes" -gt 0 ] || classes=$(awk -v v="$vocab" 'BEGIN { printf "%d\n", sqrt(v) + 0.5 }')
echo "models: vocabulary $vocab; class layer of $classes classes; budget $BUDGET_S s per point"

# Every (hidden, output layer) point; larger models cost more outside the budget
# (evaluation, the completion test), hence the weight.
for h in $HIDDEN_LIST; do
    for out in class full; do
        c=0; [ "$out" = class ] && c=$classes
        add "models-h$h-$out" "$(awk -v s="$BUDGET_S" -v h="$h" 'BEGIN { printf "%.0f\n", s + h / 16 }')" \
            rnn-train --model lstm --hidden "$h" --classes "$c" --corpus "$CORPUS" \
            --batch "$BATCH" --bptt "$BPTT" $OPT_FLAGS --threads "$THREADS" --seed "$SEED" \
            --max-seconds "$BUDGET_S" --epochs 1000 --completion "$COMPLETION" \
            --log log.csv --csv summary.csv --json summary.json
    done
done
study
sh scaling/models_collect.sh "$run" || status=1
exit $status
