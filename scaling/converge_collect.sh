#!/bin/sh
# converge_collect.sh — the convergence study's results from its points (scaling/converge.sh
# calls it; rerun it alone to redo the tables, figure and report of a run):
#   converge_collect.sh rows RUN GRID TARGET       one CSV row per point on stdout
#   converge_collect.sh all RUN GRID TARGET KN3    scaling_convergence.csv/.json (best
#       flags), scaling_fit.json and .txt (build/bin/scaling-fit over the best point
#       per N of the optimizer the grid runs at every N),
#       scaling_bsimple.csv (b_simple over training, the best point per N), figures
#       (plot/figures.sh: scaling_convergence*.gp, scaling_bsimple.gp), scaling_report.md
# A point's row: its grid values, then from points/NAME/: steps_to_target (empty when
# not reached), resolved (the evaluation interval is 1 or at most 1/11 of the steps, so
# the first evaluation under the target is within 10% of the crossing), tokens and seconds
# at the stop (at the target when reached), epochs, the final valid ppl, b_simple (the
# evaluation log's last value, where the trainer logs it) and a status.  A point run
# again with a finer evaluation (NAME-fine) stands in for NAME.  Files that exist are
# moved to RUN/old-K/ first: results are never overwritten.
set -u
cd "$(dirname "$0")/.."
die() { echo "converge_collect: $*" >&2; exit 2; }
[ $# -ge 4 ] || die "usage: converge_collect.sh rows|all RUN GRID TARGET [KN3]"
what=$1; run=$2; grid=$3; target=$4; kn3=${5:-}
[ -f "$grid" ] || die "no grid $grid"
ntrain=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["tokens"]; exit }' \
    "$run/points/kn3/summary.csv" 2>/dev/null)
[ -n "$ntrain" ] || die "$run/points/kn3/summary.csv: no baseline"

. scaling/study_lib.sh
col() { csv_last "$@"; }

# One point's row (without best).
point_row() {
    name=$1; gridrow=$2; d="$run/points/$name"
    set -- $(echo "$gridrow" | tr ',' ' ')
    N=$1; b=$2; opt=$3; lr=$4; wu=$5; ev=${6:-}
    s=""; tok=""; sec=""; ppl=""; bs=""
    if [ -f "$d/infeasible" ]; then st="infeasible: $(cat "$d/infeasible" | sed 's/^infeasible: //' | tr ',' ';')"
    elif [ ! -f "$d/rc" ]; then st="not run"
    else
        s=$(col steps_to_target "$d/summary.csv"); tok=$(col tokens "$d/summary.csv")
        sec=$(col seconds "$d/summary.csv"); ppl=$(col valid_ppl "$d/summary.csv")
        bs=$(col b_simple "$d/log.csv")
        rc=$(cat "$d/rc")
        if [ -n "$s" ]; then st=reached
        elif [ "$rc" = 0 ]; then st="not reached within $(col steps "$d/summary.csv") steps"
        elif grep -q diverg "$d/stderr.txt"; then st=diverged; ppl=""
        else st="failed (exit $rc)"; fi
    fi
    res=""
    [ -n "$s" ] && res=$(awk -v s="$s" -v e="$ev" 'BEGIN { print (e == 1 || e <= s / 11) ? 1 : 0 }')
    ep=""
    [ -n "$tok" ] && ep=$(awk -v t="$tok" -v n="$ntrain" 'BEGIN { printf "%.3g\n", t / n }')
    echo "$name,$N,$b,$((N * b)),$opt,$lr,$wu,$ev,$s,$res,$tok,$sec,$ep,$ppl,$target,$bs,$st"
}

rows() {
    echo "point,N,b,global_batch,optimizer,lr,warmup,eval_every,steps_to_target,resolved,tokens,seconds,epochs,final_ppl,target_ppl,b_simple,status"
    fine=$(awk -F, 'NR > 1 && $9 != "" { print $9 }' "$grid")
    awk -F, 'NR > 1' "$grid" | while IFS=, read -r name rest; do
        # a refined point stands in for its coarse run once it has run
        if echo "$fine" | grep -Fqx -- "$name" && [ -f "$run/points/$name-fine/rc" ]; then continue; fi
        case "$name" in *-fine) [ -f "$run/points/$name/rc" ] || continue ;; esac
        point_row "$name" "$rest"
    done
}

# The rows with two flags: best, the fewest steps to the target per (N, b) over every
# optimizer, learning rate and warmup tried; best_of_optimizer, per (N, b, optimizer).
with_best() {
    awk -F, 'NR == FNR { if (FNR > 1 && $9 != "") { k = $2 "," $3; o = k "," $5
                  if (!(k in m) || $9 + 0 < m[k]) { m[k] = $9 + 0; w[k] = $1 }
                  if (!(o in mo) || $9 + 0 < mo[o]) { mo[o] = $9 + 0; wo[o] = $1 } } next }
        FNR == 1 { print $0 ",best,best_of_optimizer"; next }
        { k = $2 "," $3; o = k "," $5
          print $0 "," ((k in w) && w[k] == $1 ? 1 : 0) "," ((o in wo) && wo[o] == $1 ? 1 : 0) }' "$1" "$1"
}

aside() { keep_aside "$run" "$1"; }

[ "$what" = rows ] && { rows; exit 0; }
[ "$what" = all ] || die "unknown command '$what' (expected rows or all)"
study_none_done converge_collect "$run/converge_points.txt" b
status=0
tmp="$run/.collect.tmp"
rows > "$tmp.rows" && with_best "$tmp.rows" > "$tmp.best" || die "cannot collect the rows"
{
    echo "command scaling/converge.sh $run"
    echo "date_utc $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "commit $(git describe --always --dirty 2>/dev/null || echo unknown)"
    echo "target_ppl $target"
    echo "kn3_valid_ppl $kn3"
    echo "train_tokens $ntrain"
    sed 's/^\([A-Z_]*\)="\(.*\)"$/setting_\1 \2/' "$run/converge_settings.txt"
} > "$tmp.meta"
for f in scaling_convergence.csv scaling_convergence.json scaling_fit.json scaling_fit.txt \
         scaling_report.md figures/scaling_convergence.png; do aside "$run/$f"; done
build/bin/simulate-write --rows "$tmp.best" --study scaling_convergence --meta "$tmp.meta" \
    --csv "$run/scaling_convergence.csv" --json "$run/scaling_convergence.json" || status=1
# The fit follows the optimizer the grid runs at every N (its first row's): the others,
# tried at the large end only, are compared beside it in the report.
base=$(awk -F, 'NR == 2 { print $4 }' "$grid")
build/bin/scaling-fit --rows "$run/scaling_convergence.csv" --json "$run/scaling_fit.json" \
    --optimizer "$base" --best-col best_of_optimizer > "$run/scaling_fit.txt" 2>&1 || status=1
cat "$run/scaling_fit.txt"
# B_simple over training: the evaluation logs of the best point per (N, b)
aside "$run/scaling_bsimple.csv"
{
    echo "N,b,global_batch,step,tokens,b_simple"
    awk -F, "$(cat plot/csv.awk)"' function emit() { if (v["best"] == 1) print v["point"], v["N"], v["b"], v["global_batch"] }' \
        "$run/scaling_convergence.csv" | while read -r name N b B; do
        log="$run/points/$name/log.csv"
        [ -f "$log" ] && awk -F, -v p="$N,$b,$B" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            c["b_simple"] && $c["b_simple"] != "" { print p "," $c["step"] "," $c["tokens"] "," $c["b_simple"] }' "$log"
    done
} > "$tmp.bs" && mv "$tmp.bs" "$run/scaling_bsimple.csv"
[ "$(wc -l < "$run/scaling_bsimple.csv")" -gt 1 ] || rm -f "$run/scaling_bsimple.csv"
# every figure the run's CSVs draw (plot/figures.sh: make figures does the same)
if [ -f "$run/scaling_fit.json" ] && command -v gnuplot >/dev/null; then
    for f in scaling_convergence_lr scaling_bsimple; do aside "$run/figures/$f.png"; done
    sh plot/figures.sh "$run" | grep scaling_ || status=1
fi
sh scaling/converge_report.sh md "$run" > "$tmp.md" && mv "$tmp.md" "$run/scaling_report.md" &&
    echo "converge: report $run/scaling_report.md" || status=1
rm -f "$tmp.rows" "$tmp.best" "$tmp.meta" "$tmp.md" "$tmp.bs"
exit $status
