#!/bin/sh
# models_report.sh RUN — the model-size study's section, Markdown on stdout, from
# RUN/scaling_models.csv (scaling/models_collect.sh calls it): the table, the
# Kneser-Ney trigram beside, and the verdict on the GPU study's claim that a larger
# model without a class layer beats a modest class-based one, at this budget.
set -u
cd "$(dirname "$0")/.."
[ $# -eq 1 ] || { echo "usage: models_report.sh RUN" >&2; exit 2; }
run=${1%/}
csv="$run/scaling_models.csv"
[ -f "$csv" ] || { echo "models_report: no $csv" >&2; exit 2; }
CSVAWK=$(cat plot/csv.awk)
setting() { sed -n "s/^$1=\"\\(.*\\)\"\$/\\1/p" "$run/models_settings.txt"; }
first() { awk -F, "$CSVAWK"' function emit() { if (!done) print v["'"$1"'"]; done = 1 }' "$csv"; }
classes=$(awk -F, "$CSVAWK"' function emit() { if (v["output"] == "class" && !done) { print v["classes"]; done = 1 } }' "$csv")
vocab=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c["vocab"]; exit }' \
    "$run/points/models-kn3/summary.csv" 2>/dev/null)

table() {
    echo "| output layer | hidden | classes | parameters | steps | tokens | tokens/s | valid ppl | test ppl | completion | status |"
    echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
    awk -F, "$CSVAWK"' function emit() {
            acc = v["completion_accuracy"] == "" ? "" : sprintf("%.1f%% +- %.1f", 100 * v["completion_accuracy"], 100 * v["completion_se"])
            printf "| %s | %s | %s | %s | %s | %s | %.0f | %s | %s | %s | %s |\n", v["output"], v["hidden"], v["classes"],
                v["params"], v["steps"], v["tokens"], v["tokens_per_s"], v["valid_ppl"], v["test_ppl"], acc, v["status"] }' "$csv" |
        sort -t'|' -k2,2 -k3,3n
    awk -F, "$CSVAWK"' function emit() { if (!done) printf "| Kneser-Ney trigram | | | | | | | %s | %s | %.1f%% | |\n",
            v["kn3_valid_ppl"], v["kn3_test_ppl"], 100 * v["kn3_completion_accuracy"]; done = 1 }' "$csv"
}

# The modest class-based model (the smallest hidden with a class layer) against each
# larger full-softmax one: test ppl and completion; a completion gap counts when it is
# over twice its standard error.  Then the best of each output layer by test ppl.
verdict() {
    awk -F, "$CSVAWK"' function emit() {
            if (v["test_ppl"] == "" || v["completion_accuracy"] == "") return
            k = v["output"] SUBSEP v["hidden"] + 0
            ppl[k] = v["test_ppl"] + 0; acc[k] = v["completion_accuracy"] + 0; se[k] = v["completion_se"] + 0
            if (v["output"] == "class" && (mh == "" || v["hidden"] + 0 < mh)) mh = v["hidden"] + 0
            if (v["output"] == "full") full[v["hidden"] + 0] = 1
            o = v["output"]; if (!(o in best) || v["test_ppl"] + 0 < bp[o]) { best[o] = v["hidden"] + 0; bp[o] = v["test_ppl"] + 0; ba[o] = v["completion_accuracy"] + 0 } }
        END {
            if (mh == "") { print "- no class-based point finished: the claim is not checked"; exit }
            m = "class" SUBSEP mh; both = 0; n = 0
            printf "Modest class-based model: hidden %d, test ppl %.1f, completion %.1f%%.\n\n", mh, ppl[m], 100 * acc[m]
            nh = 0; for (h in full) hl[++nh] = h + 0
            for (i = 1; i <= nh; i++) for (j = i + 1; j <= nh; j++) if (hl[j] < hl[i]) { t = hl[i]; hl[i] = hl[j]; hl[j] = t }
            for (i = 1; i <= nh; i++) { h = hl[i]; if (h <= mh) continue; n++; f = "full" SUBSEP h
                dp = ppl[f] < ppl[m]; d = acc[f] - acc[m]; sig = (d > 0 ? d : -d) > 2 * sqrt(se[f]^2 + se[m]^2)
                both += dp && d > 0 && sig
                printf "- full softmax, hidden %d: test ppl %.1f (%s), completion %.1f%% (%+.1f points, %s)\n", h, ppl[f],
                    dp ? "better" : "worse", 100 * acc[f], 100 * d, sig ? "beyond 2 standard errors" : "within 2 standard errors: not a difference" }
            for (o in best) printf "- the best %s model at this budget (by test ppl): hidden %d, test ppl %.1f, completion %.1f%%\n", o == "full" ? "full-softmax" : "class-based", best[o], bp[o], 100 * ba[o]
            printf "\n"
            if (n == 0) print "**Verdict:** no larger full-softmax point finished: the claim is not checked."
            else if (both) print "**Verdict: holds here** — a larger full-softmax model beats the modest class-based one on test perplexity and, beyond noise, on completion."
            else print "**Verdict: does not hold here** — no larger full-softmax model beats the modest class-based one on both test perplexity and completion (beyond noise) at this budget." }' "$csv"
}

echo "## Model size at a fixed training-time budget: class layer or full softmax"
echo
echo "The GPU study reports that a larger RNN without a class layer beats a modest"
echo "class-based one (47% on MSR sentence completion). Here each LSTM trains for"
echo "$(setting BUDGET_S) s of one thread (\`rnn-train --max-seconds\`, evaluations excluded;"
echo "\`--threads $(setting THREADS)\`, batch $(setting BATCH), bptt $(setting BPTT), \`$(setting OPT_FLAGS)\`, seed $(setting SEED))"
echo "on \`--corpus $(setting CORPUS)\` (vocabulary V = $vocab; the class layer has $classes classes ~ sqrt(V)),"
echo "with a class layer and with the full softmax, at each hidden size;"
echo "then valid and test perplexity and an MSR-style sentence completion test of"
echo "$(first completion_questions) held-out test sentences (chance 20%; +- one standard error). Tokens and"
echo "steps are what each model reached within the budget: the full softmax costs V x hidden"
echo "per token where the class layer costs (classes + V/classes) x hidden."
echo
table
echo
verdict
echo
echo "The budget is wall time: what else ran on the machine meanwhile lowers every model's"
echo "tokens per budget alike only if the load was steady. The settings and every point's output are in"
echo "\`models_settings.txt\` and \`points/models-*/\`."
echo
[ -f "$run/figures/scaling_models.png" ] &&
    echo "![perplexity and completion against hidden size](figures/scaling_models.png)"
exit 0
