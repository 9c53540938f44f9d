#!/bin/sh
# models_collect.sh RUN — the model-size study's results from its points
# (scaling/models.sh calls it; rerun it alone to redo the table, figure and section):
#   scaling_models.csv/.json   one row per (hidden, output layer) point, the kn3 beside
#   figures/scaling_models.png plot/scaling_models.gp: ppl and completion against hidden
#   scaling_models.md          the section (scaling/models_report.sh), also put at the end
#                              of scaling_report.md between <!-- scaling_models --> marks
# Files that exist are moved to RUN/old-K/ first: results are never overwritten.
set -u
cd "$(dirname "$0")/.."
die() { echo "models_collect: $*" >&2; exit 2; }
[ $# -eq 1 ] || die "usage: models_collect.sh RUN"
run=${1%/}
[ -f "$run/models_settings.txt" ] && [ -f "$run/models_points.txt" ] || die "$run: no model-size study (run scaling/models.sh $run)"
case "$run" in /*) . "$run/models_settings.txt" ;; *) . "./$run/models_settings.txt" ;; esac
kn3="$run/points/models-kn3/summary.csv"
[ -f "$kn3" ] || die "$kn3: no baseline"

. scaling/study_lib.sh
study_none_done models_collect "$run/models_points.txt" models-h

# One point's row: from its name models-hH-OUT and its folder.
point_row() {
    name=$1; d="$run/points/$name"; s="$d/summary.csv"
    h=$(echo "$name" | sed 's/^models-h\([0-9]*\)-.*/\1/'); out=${name##*-}
    params=$(sed -n 's/.* \([0-9][0-9]*\) parameters$/\1/p' "$d/stdout.txt" 2>/dev/null | head -n 1)
    if [ ! -f "$d/rc" ]; then st="not run"
    elif [ "$(cat "$d/rc")" = 0 ]; then st=$(csv_last stop "$s")
    elif grep -q diverg "$d/stderr.txt"; then st=diverged
    else st="failed (exit $(cat "$d/rc"))"; fi
    n=$(csv_last completion_questions "$s"); acc=$(csv_last completion_accuracy "$s")
    se=""
    [ -n "$n" ] && [ -n "$acc" ] && se=$(awk -v p="$acc" -v n="$n" 'BEGIN { printf "%.4f\n", sqrt(p * (1 - p) / n) }')
    # the fields joined by commas (a status's own commas become ';')
    printf '%s,' "$name" lstm "$out" "$h" "$(csv_last classes "$s")" "$params" "$BUDGET_S" "$(csv_last steps "$s")" \
        "$(csv_last tokens "$s")" "$(csv_last seconds "$s")" "$(csv_last tokens_per_s "$s")" "$(csv_last valid_ppl "$s")" \
        "$(csv_last test_ppl "$s")" "$n" "$acc" "$se" "$(csv_last valid_ppl "$kn3")" "$(csv_last test_ppl "$kn3")" \
        "$(csv_last completion_accuracy "$kn3")"
    echo "$st" | tr ',' ';'
}

rows() {
    echo "point,model,output,hidden,classes,params,budget_s,steps,tokens,seconds,tokens_per_s,valid_ppl,test_ppl,completion_questions,completion_accuracy,completion_se,kn3_valid_ppl,kn3_test_ppl,kn3_completion_accuracy,status"
    awk '$1 ~ /^models-h[0-9]+-(class|full)$/ { print $1 }' "$run/models_points.txt" | while read -r name; do
        point_row "$name"
    done
}

status=0
tmp="$run/.models.tmp"
rows > "$tmp.rows" || die "cannot collect the rows"
{
    echo "command scaling/models.sh $run"
    echo "date_utc $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit $(git describe --always --dirty 2>/dev/null || echo unknown)"
    echo "corpus $CORPUS"
    echo "vocab $(csv_last vocab "$kn3")"
    sed 's/^\([A-Z_]*\)="\(.*\)"$/setting_\1 \2/' "$run/models_settings.txt"
} > "$tmp.meta"
for f in scaling_models.csv scaling_models.json scaling_models.md figures/scaling_models.png; do keep_aside "$run" "$run/$f"; done
build/bin/simulate-write --rows "$tmp.rows" --study scaling_models --meta "$tmp.meta" \
    --csv "$run/scaling_models.csv" --json "$run/scaling_models.json" || status=1
mkdir -p "$run/figures"
if [ -f "$run/scaling_models.csv" ] && command -v gnuplot >/dev/null; then
    gnuplot -e "csv='$run/scaling_models.csv'; out='$run/figures/scaling_models.png'" plot/scaling_models.gp &&
        echo "models: $run/figures/scaling_models.png" || { echo "models: plot/scaling_models.gp failed"; status=1; }
fi
sh scaling/models_report.sh "$run" > "$tmp.md" && mv "$tmp.md" "$run/scaling_models.md" &&
    echo "models: section $run/scaling_models.md" || status=1
# scaling_report.md: the section replaces the one between the marks, or is appended
if [ -f "$run/scaling_models.md" ]; then
    rep="$run/scaling_report.md"
    { [ -f "$rep" ] && awk '/^<!-- scaling_models -->$/ { skip = 1 } !skip { print } /^<!-- \/scaling_models -->$/ { skip = 0 }' "$rep"
      echo "<!-- scaling_models -->"; cat "$run/scaling_models.md"; echo "<!-- /scaling_models -->"; } > "$tmp.rep" &&
        mv "$tmp.rep" "$rep" && echo "models: report $rep" || status=1
fi
rm -f "$tmp.rows" "$tmp.meta" "$tmp.md" "$tmp.rep"
exit $status
