#!/bin/sh
# converge_report.sh — the convergence study's report pieces from a run folder's
# scaling_convergence.csv and scaling_fit.txt (scaling/converge_collect.sh calls it):
#   converge_report.sh gp RUN   gnuplot -e assignments for plot/scaling_convergence.gp:
#                               per fitted b its S_min, E_min, B_crit and steps at N = 1
#   converge_report.sh md RUN   the markdown section scaling_report.md (and at its end the
#                               model-size study's, scaling_models.md, where it exists)
set -u
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: converge_report.sh gp|md RUN" >&2; exit 2; }
what=$1; run=$2
csv="$run/scaling_convergence.csv"; fit="$run/scaling_fit.txt"
[ -f "$csv" ] || { echo "converge_report: no $csv" >&2; exit 2; }
CSVAWK=$(cat plot/csv.awk)

# Steps at N = 1 of the best point, per b: "b steps" lines.
steps_n1() {
    awk -F, "$CSVAWK"' function emit() { if (v["best"] == 1 && v["N"] == 1) print v["b"], v["steps_to_target"] }' "$csv"
}

# The fits (b S_min E_min B_crit R2 ratio) from scaling-fit's table.
fits() { [ -f "$fit" ] && awk 'NR > 1 && $3 != "no" { print $1, $3, $4, $5, $6, $7 }' "$fit"; }

gp() {
    fits | awk -v n1="$(steps_n1 | tr '\n' ';')" 'BEGIN { k = split(n1, L, ";"); for (i = 1; i <= k; i++) { split(L[i], x, " "); s1[x[1]] = x[2] } }
        { b = b " " $1; s = s " " $2; e = e " " $3; c = c " " $4; p = p " " (($1 in s1) ? s1[$1] : "0") }
        END { printf "fb=\"%s\"; fs=\"%s\"; fe=\"%s\"; fc=\"%s\"; p1=\"%s\";", b, s, e, c, p }'
    # the base optimizer: the one the grid runs at every N (its first row's)
    [ -f "$run/converge_grid.csv" ] && awk -F, 'NR == 2 { printf " base=\"%s\";", $4 }' "$run/converge_grid.csv"
    echo
}

setting() { sed -n "s/^$1=\"\\(.*\\)\"\$/\\1/p" "$run/converge_settings.txt"; }
meta_of() { awk -F, "$CSVAWK"' function emit() { if (!done) print v["'"$1"'"]; done = 1 }' "$csv"; }

# The table of best points per (b, N), with the fit's regime.
best_table() {
    echo "| b | N | global batch | optimizer | lr | warmup | steps to target | tokens | epochs | fit | regime |"
    echo "| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    awk -F, -v fits="$(fits | tr '\n' ';')" "$CSVAWK"'
        BEGIN { k = split(fits, L, ";"); for (i = 1; i <= k; i++) if (split(L[i], x, " ") >= 4) { S[x[1]] = x[2]; E[x[1]] = x[3]; C[x[1]] = x[4] } }
        function emit() {
            if (v["best"] != 1) return
            b = v["b"]; B = v["global_batch"] + 0; f = ""; r = ""
            if (b in S) { f = sprintf("%.0f", S[b] + E[b] / B)
                r = (B <= C[b] / 10) ? "perfect" : (B >= C[b] * 10) ? "maximal" : "diminishing" }
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", b, v["N"], B, v["optimizer"],
                v["lr"], v["warmup"], v["steps_to_target"], v["tokens"], v["epochs"], f, r }' "$csv" |
        sort -t'|' -k2,2n -k3,3n
}

# Each (N, b) without a best point, and the points that did not reach the target.
misses() {
    awk -F, "$CSVAWK"' function emit() { k = v["b"] " " v["N"]; if (v["best"] == 1) got[k] = 1
            else if (v["status"] != "reached") { n[k]++; why[k] = v["status"] } ; keys[k] = 1 }
        END { for (k in keys) if (!(k in got)) { split(k, x, " "); printf "- b = %s, N = %s: no point reached the target (%d tried; last: %s)\n", x[1], x[2], n[k], why[k] } }' "$csv" | sort -t= -k2,2n -k3,3n
    awk -F, "$CSVAWK"' function emit() { t++; if (v["status"] == "reached") r++; else if (v["status"] == "diverged") d++; else if (v["status"] ~ /^infeasible/) f++; else o++ }
        END { printf "\nPoints: %d; %d reached the target, %d diverged, %d infeasible, %d other (not reached within the cap, failed).\n", t, r, d, f, o }' "$csv"
}

# The optimizers side by side where more than one ran: per (b, N) each one's best point.
optimizers() {
    awk -F, "$CSVAWK"' function emit() { k = v["b"] " " v["N"]; o = v["optimizer"]; if (!((k, o) in seen)) { seen[k, o] = 1; n[k]++ }
            if (v["best_of_optimizer"] == 1) row[k, o] = sprintf("| %s | %s | %s | %s | %s | %s | %s |", v["b"], v["N"], v["global_batch"], o, v["lr"], v["warmup"], v["steps_to_target"]) }
        END { for (ko in row) { split(ko, x, SUBSEP); if (n[x[1]] > 1) print row[ko] } }' "$csv" | sort -t'|' -k2,2n -k3,3n -k8,8n
}

# The scaling rule of the best momentum learning rate, per b: the least-squares slope of
# log lr against log B (0.5: the square-root rule, 1: the linear rule).
lr_rule() {
    awk -F, "$CSVAWK"' function emit() {
            if (v["optimizer"] != "momentum" || v["steps_to_target"] == "") return
            k = v["b"] SUBSEP v["global_batch"]; s = v["steps_to_target"] + 0
            if (!(k in best) || s < best[k]) { best[k] = s; lr[k] = v["lr"] + 0 } }
        END { for (k in best) { split(k, x, SUBSEP); b = x[1]; X = log(x[2]); Y = log(lr[k])
                  n[b]++; sx[b] += X; sy[b] += Y; sxx[b] += X * X; sxy[b] += X * Y; pts[b] = pts[b] sprintf(" %g:%g", x[2], lr[k]) }
              for (b in n) { d = n[b] * sxx[b] - sx[b] * sx[b]
                  if (n[b] >= 2 && d > 0) printf "- b = %s: best momentum lr ~ B^%.2f over B = %s (B:lr)\n", b, (n[b] * sxy[b] - sx[b] * sy[b]) / d, pts[b] } }' "$csv"
}

md() {
    echo "## Steps to target against batch size"
    echo
    echo "Model: \`rnn-train $(setting MODEL)\` on Moby Dick; N synchronous"
    echo "workers of b streams each (\`--workers N --batch b\`, global batch B = N b sequences of"
    others=""
    [ -n "$(setting OPT_N)" ] && others=" (plus $(setting OPT_LIST) at N = $(setting OPT_N))"
    echo "bptt tokens), momentum SGD$others, constant learning rate"
    echo "over a grid of $(setting LR_FACTORS) x a centre that follows sqrt(B), seed $(setting SEED)."
    echo "Target: valid ppl $(meta_of target_ppl) = $(setting TARGET_X) x the Kneser-Ney trigram's on the same split"
    echo "(valid scored as $(setting EVAL_STREAMS) streams at every B, \`--eval-streams\`). Steps to target is the"
    echo "first evaluation at or under it; evaluations every ~1/20 of the fewest steps it could take,"
    echo "and a point whose interval came out over 1/11 of its steps is rerun with a finer one, so"
    echo "every count is within 10% of the crossing (\`resolved\` = 1 in scaling_convergence.csv)."
    echo
    best_table
    echo
    misses
    echo
    if [ -n "$(optimizers)" ]; then
        echo "### Optimizers at the large end (the best point of each)"
        echo
        echo "| b | N | global batch | optimizer | lr | warmup | steps to target |"
        echo "| ---: | ---: | ---: | --- | ---: | ---: | ---: |"
        optimizers
        echo
    fi
    echo "### The learning rate against the batch"
    echo
    lr_rule
    echo
    echo "### The Sunway TaihuLight study's claim: ~100x fewer steps at N = 100 than at N = 1"
    echo
    fits | awk -v tx="$(setting TARGET_X)" '{ if ($6 == "nan" || $6 == "") printf "- b = %s: not measured (N = 1 or N = 100 has no point that reached the target)\n", $1
        else printf "- b = %s: steps(N = 1) / steps(N = 100) = %s (perfect scaling: 100; the fit predicts %.3g) at %s x kn3\n", $1, $6, ($2 + $3 / $1) / ($2 + $3 / (100 * $1)), tx }'
    echo
    echo "### Fit S = S_min + E_min / B (per b, the best momentum point per N)"
    echo
    echo "The fit follows momentum SGD, the optimizer run at every N; the other optimizers,"
    echo "tried at the large end only, are in the table above and as open marks in the figure."
    echo
    if [ -f "$fit" ]; then echo '```'; cat "$fit"; echo '```'; fi
    echo
    echo "B_crit = E_min / S_min. Regimes: perfect scaling for B <= B_crit / 10 (steps within"
    echo "10% of E_min / B), maximal data parallelism for B >= 10 B_crit (steps within 10% of"
    echo "S_min), diminishing returns between. Residuals, R^2 and the median b_simple (where the"
    echo "trainer logs it): scaling_fit.json. claim_ratio: steps at N = 1 over steps at N = 100"
    echo "for the same b (the Sunway TaihuLight study's ~100x); perfect scaling would give 100."
    echo
    [ -f "$run/figures/scaling_convergence.png" ] &&
        echo "![steps to target against the global batch](figures/scaling_convergence.png)"
    [ -f "$run/figures/scaling_convergence_lr.png" ] &&
        printf '\n![best learning rate against the global batch](figures/scaling_convergence_lr.png)\n'
    [ -f "$run/figures/scaling_bsimple.png" ] &&
        printf '\n![B_simple over training, the best point of each N](figures/scaling_bsimple.png)\n'
    # the model-size study's section (scaling/models.sh), where it has run on this folder
    [ -f "$run/scaling_models.md" ] &&
        printf '\n<!-- scaling_models -->\n%s\n<!-- /scaling_models -->\n' "$(cat "$run/scaling_models.md")"
    return 0
}

case "$what" in
gp) gp ;;
md) md ;;
*) echo "converge_report: unknown command '$what' (expected gp or md)" >&2; exit 2 ;;
esac
