#!/bin/sh
# report.sh RUN — the report.md section for allreduce at scale, in Markdown on
# stdout, from RUN/simulate.csv (+ .json), RUN/caffe.csv, RUN/simulate_placement.csv and
# RUN/simulate_platforms.csv as scaling/sweep.sh writes them; a missing file skips its
# part.  Figures: RUN/figures/simulate_nodes.png, simulate_sizes.png (plot/simulate_*.gp).
#   sh scaling/report.sh results/runs/<stamp>-<host> > section.md
# Optional: P=800 (the node count of the per-size tables; default 800, else the largest).
set -u
run=${1:?usage: report.sh RUN}
run=${run%/}
sim="$run/simulate.csv"
[ -f "$sim" ] || [ -f "$run/caffe.csv" ] || { echo "report: no simulate.csv or caffe.csv in $run" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
. scaling/study_lib.sh
csvawk() { awk -F, -v P="${P:-0}" "$(cat plot/csv.awk)
$1" "$2"; }
# meta STUDY KEY: a metadata value of RUN/STUDY.json (without a trailing "# source")
meta() { j="$run/$1.json"; [ -f "$j" ] || j="$run/$1_small.json"; json_meta "$2" "$j" | sed 's/ *#.*//'; }

echo "## Allreduce at scale: SimGrid SMPI (simulated nodes)"
echo
if [ -f "$sim" ]; then
    P=${P:-$(csvawk 'function emit() { if (v["p"] + 0 <= 800 && v["p"] + 0 > best) best = v["p"] + 0 } END { print best }' "$sim")}
    cat <<EOF
The same \`allreduce-bench\` and \`collectives/\` that run on real MPI, built with \`smpicc\`
(\`build/bin/allreduce-bench-smpi\`), on a simulated $(meta simulate platform) machine
($(meta simulate platform_group_size) nodes per group, $(meta simulate platform_node_gbytes_per_s) GB/s node injection, oversubscription
$(meta simulate platform_oversubscription) on the group uplinks, nearest nodes $(meta simulate platform_alpha_us) us apart, reductions at
$(meta simulate platform_reduce_gbytes_per_s) GB/s; every parameter and its source: \`scaling/platforms/README.md\`), one
rank per node, $(meta simulate placement) placement. Times are simulated and deterministic (two runs
are byte-identical, \`make test\`); every reduction, in the project's algorithms and in
SMPI's built-in ones alike, is charged by the same gamma model. Buffers are real and
results checked while they fit in memory; larger points (about 4 x bytes x p > 2 GiB)
run on folded buffers and are **validated at the smaller scales**, where the same
code ran on real data (\`checked\` column). The bound is
ceil(log2 p) alpha + 2(p-1)/p n / B (alpha: nearest nodes, B: node injection).
Cost (seconds on this machine: each part's simulations one after another, then the
sweep's wall time; every simulation's in simulate_points.txt): $(if [ -f "$run/simulate_cost.txt" ]; then tr '\n' ' ' < "$run/simulate_cost.txt" | sed 's/ \([a-z]\)/, \1/g'; else echo "$(meta simulate elapsed_s) (this part)"; fi).
SimGrid costs ~50-75 us of wall time per simulated message here, so the default sweep
runs the ring-like algorithms (2p^2 messages per call) at 512 nodes and more only as
smpi:lr at 800 nodes and 64 MiB, and leaves out the points that repeat another
(scaling/README.md); \`make simulate FULL=1\` runs everything.

![time against nodes](figures/simulate_nodes.png)
![time against size at $P nodes](figures/simulate_sizes.png)

### At $P nodes: the best of each kind per size

| size | best project algorithm | us | x bound | best SMPI built-in | us | project speedup | hier us | hier x bound |
| ---: | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |
EOF
    # rows sorted by size (the CSV is ordered by algorithm within a node count)
    csvawk 'function emit() {
            if (v["p"] != P || v["p50_us"] == "" || v["wrong"] + 0 > 0) return
            k = v["bytes"] + 0; if (!(k in seen)) { seen[k] = 1; sz[++n] = k }
            a = v["algo"]; t = v["p50_us"] + 0
            if (a == "bound") bound[k] = t
            else if (a ~ /^smpi:/) { if (!(k in bs) || t < bs[k]) { bs[k] = t; bsn[k] = a } }
            else { if (!(k in bp) || t < bp[k]) { bp[k] = t; bpn[k] = a }; if (a == "hier") hier[k] = t } }
        function human(b) { return b >= 1048576 ? sprintf("%g MiB", b / 1048576) : b >= 1024 ? sprintf("%g KiB", b / 1024) : sprintf("%d B", b) }
        END { for (i = 1; i <= n; i++) { k = sz[i]
                printf "%d|| %s | %s | %.4g | %s | %s | %s | %s | %s | %s |\n", k, human(k), bpn[k], bp[k],
                    (bound[k] > 0 ? sprintf("%.3g", bp[k] / bound[k]) : "-"), (k in bs ? bsn[k] : "-"),
                    (k in bs ? sprintf("%.4g", bs[k]) : "-"), ((k in bs) && bp[k] > 0 ? sprintf("%.3gx", bs[k] / bp[k]) : "-"),
                    (k in hier ? sprintf("%.4g", hier[k]) : "-"), ((k in hier) && bound[k] > 0 ? sprintf("%.3g", hier[k] / bound[k]) : "-") } }' "$sim" |
        sort -n | sed 's/^[0-9]*||/|/'
    echo
    echo "### Winner per region at $P nodes (all algorithms, project and SMPI; results that were wrong excluded)"
    echo
    csvawk 'function emit() {
            if (v["p"] != P || v["p50_us"] == "" || v["algo"] == "bound" || v["wrong"] + 0 > 0) return
            k = v["bytes"] + 0; if (!(k in best) || v["p50_us"] + 0 < best[k]) { best[k] = v["p50_us"] + 0; win[k] = v["algo"] } }
        END { for (k in win) print k, win[k] }' "$sim" | sort -n |
        awk 'function human(b) { return b >= 1048576 ? sprintf("%g MiB", b / 1048576) : b >= 1024 ? sprintf("%g KiB", b / 1024) : sprintf("%d B", b) }
            { if ($2 != cur) { if (cur != "") printf "- %s .. %s: **%s**\n", human(lo), human(hi), cur; cur = $2; lo = $1 } hi = $1 }
            END { if (cur != "") printf "- %s .. %s: **%s**\n", human(lo), human(hi), cur }'
    echo
    echo "### Targets at $P nodes, 4 MiB and larger"
    echo
    [ "$P" = 800 ] || { echo "(The targets are stated at 800 nodes: this run stops at $P, e.g. make bench's short preset; \`make simulate\` runs 800.)"; echo; }
    csvawk 'function emit() {
            if (v["p"] != P || v["p50_us"] == "" || v["bytes"] + 0 < 4194304 || v["wrong"] + 0 > 0) return
            k = v["bytes"] + 0; a = v["algo"]; t = v["p50_us"] + 0; seen[k] = 1
            if (a == "bound") bound[k] = t; else if (a == "hier") hier[k] = t
            else if (a ~ /^smpi:/) { nb[k]++; if (!(k in bs) || t < bs[k]) { bs[k] = t; bsn[k] = a } } }
        END { for (k in seen) {
                r = (bound[k] > 0 && hier[k] > 0) ? hier[k] / bound[k] : 0; s = (hier[k] > 0 && bs[k] > 0) ? bs[k] / hier[k] : 0
                printf "%d hier/bound %.3g (target <= 1.3: %s); best of the %d SMPI built-ins simulated at this size, %s / hier = %.3g (target >= 1.5: %s)\n", k, r,
                    (r > 0 && r <= 1.3 ? "met" : "NOT met"), nb[k], bsn[k], s, (s >= 1.5 ? "met" : "NOT met") } }' "$sim" |
        sort -n | awk '{ b = $1; $1 = ""; printf "- %g MiB:%s\n", b / 1048576, $0 }'
    echo
fi
if [ -f "$run/caffe.csv" ]; then
    fused_bytes=$(csvawk 'function emit() { if (v["algo"] == "fused_hier") b = v["bytes"] } END { print b + 0 }' "$run/caffe.csv")
    cat <<EOF
### The Sunway TaihuLight study's experiment: Caffe-style synchronisation against one fused hier allreduce

LSTM language model, hidden 512, vocabulary 10k (rnn-train's \`--model lstm --hidden 512
--vocab 10000\`, $(awk -v b="$fused_bytes" 'BEGIN { printf "%.2f M parameters, %.1f MB", b / 4e6, b / 1e6 }') of float gradients; the
tensors: \`scaling/presets/caffe_lstm512.txt\`), 35 unrolled steps, times per training step.
\`caffe_style\` (the baseline the Sunway study removed): one allreduce per parameter tensor per unrolled
time step, each with SMPI's default algorithm (the Open MPI decision) in the default
(consecutive) placement. \`caffe_style_cell\`, a milder reading: only the recurrent
layer's three tensors once per step (the unrolled layer's shared weights), embedding
and output layer once. \`fused_hier\`: one allreduce of the whole gradient with the
topology-mapped algorithm. Improvement = baseline / fused_hier.

| nodes | caffe_style (us) | caffe_style_cell (us) | fused_hier (us) | improvement | improvement over caffe_style_cell |
| ---: | ---: | ---: | ---: | ---: | ---: |
EOF
    csvawk 'function emit() { t[v["algo"], v["p"] + 0] = v["time_us"]; imp[v["algo"], v["p"] + 0] = v["improvement"]
                if (v["algo"] == "fused_hier") ps[++n] = v["p"] + 0 }
        function x(s) { return s == "" ? "-" : sprintf("%.3gx", s) }
        END { for (i = 1; i <= n; i++) { p = ps[i]; if (p < 2) continue
                printf "| %d | %.0f | %.0f | %.0f | %s | %s |\n", p, t["caffe_style", p], t["caffe_style_cell", p],
                    t["fused_hier", p], x(imp["caffe_style", p]), x(imp["caffe_style_cell", p]) } }' "$run/caffe.csv"
    echo
    csvawk 'function emit() { p = v["p"] + 0; if (v["improvement"] == "" || v["algo"] == "fused_hier" || p > 800) return
            if (p > top) top = p; imp[v["algo"], p] = v["improvement"] + 0 }
        END { if (top) printf "Target (fused hier >= 20x faster than the Caffe-style baseline at 800 nodes), at %d nodes: caffe_style %.3gx (%s); the milder caffe_style_cell %.3gx (%s).\n",
                top, imp["caffe_style", top], (imp["caffe_style", top] >= 20 ? "met" : "NOT met"),
                imp["caffe_style_cell", top], (imp["caffe_style_cell", top] >= 20 ? "met" : "not met") }' "$run/caffe.csv"
    echo
fi
if [ -f "$run/simulate_placement.csv" ] && [ -f "$sim" ]; then
    echo "### Placement at 800 nodes (p50 us: consecutive / round-robin / random)"
    echo
    echo "| algorithm | size | consecutive | roundrobin | random |"
    echo "| --- | ---: | ---: | ---: | ---: |"
    cat "$sim" > "$run/.placement.tmp"; tail -n +2 "$run/simulate_placement.csv" >> "$run/.placement.tmp"
    csvawk 'function emit() { if (v["p"] != 800 || v["p50_us"] == "" || v["algo"] == "bound") return
            k = v["algo"] SUBSEP v["bytes"]; t[k, v["placement"]] = v["p50_us"]; if (v["placement"] != "consecutive") want[k] = 1 }
        function human(b) { return b >= 1048576 ? sprintf("%g MiB", b / 1048576) : b >= 1024 ? sprintf("%g KiB", b / 1024) : sprintf("%d B", b) }
        END { for (k in want) { split(k, q, SUBSEP); printf "%s %d | %s | %s | %s | %s | %s |\n", q[1], q[2], q[1], human(q[2]),
                (t[k, "consecutive"] == "" ? "-" : sprintf("%.4g", t[k, "consecutive"])), (t[k, "roundrobin"] == "" ? "-" : sprintf("%.4g", t[k, "roundrobin"])),
                (t[k, "random"] == "" ? "-" : sprintf("%.4g", t[k, "random"])) } }' "$run/.placement.tmp" |
        sort -k1,1 -k2,2n | sed 's/^[^ ]* [0-9]* | /| /'
    rm -f "$run/.placement.tmp"
    echo
fi
if [ -f "$run/simulate_platforms.csv" ]; then
    echo "### Other networks (p50 us; the same nodes, 16 GB/s injection)"
    echo
    echo "| platform | nodes | size | best algorithm | us | x bound | hier us | rabenseifner us | smpi:ompi us |"
    echo "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"
    csvawk 'function emit() { if (v["p50_us"] == "") return
            k = v["platform"] SUBSEP v["p"] SUBSEP v["bytes"]; a = v["algo"]; t = v["p50_us"] + 0; keys[k] = 1; tt[k, a] = t
            if (a == "bound") bound[k] = t; else if (!(k in best) || t < best[k]) { best[k] = t; win[k] = a } }
        END { for (k in keys) { split(k, q, SUBSEP)
                printf "%s %d %d | %s | %d | %d | %s | %.4g | %s | %s | %s | %s |\n", q[1], q[2], q[3], q[1], q[2], q[3], win[k], best[k],
                    (bound[k] > 0 ? sprintf("%.3g", best[k] / bound[k]) : "-"), ((k, "hier") in tt ? sprintf("%.4g", tt[k, "hier"]) : "-"),
                    ((k, "rabenseifner") in tt ? sprintf("%.4g", tt[k, "rabenseifner"]) : "-"), ((k, "smpi:ompi") in tt ? sprintf("%.4g", tt[k, "smpi:ompi"]) : "-") } }' \
        "$run/simulate_platforms.csv" | sort -k1,1 -k2,2n -k3,3n | sed 's/^[^ ]* [0-9]* [0-9]* | /| /'
    echo
fi
