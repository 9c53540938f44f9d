#!/bin/sh
# test/report/run.sh [BIN_DIR] — `study report` (report.md's sections, and the claims of
# the Sunway TaihuLight and GPU RNN studies) on small hand-made run folders: a target
# line says "met" only when the run holds the evidence for it, and "not measured"
# (never met) when it does not.  Exits 1 on failure.
set -u
bin=${1:-build/bin}
cd "$(dirname "$0")/../.."
. test/lib.sh
test_begin report
# expect RUN PATTERN WHAT: the report body of RUN has a line matching PATTERN
expect() { $bin/study report "$1" --body --out - > "$tmp/out" 2>&1; grep -Eq -- "$2" "$tmp/out" && ok "$3" || { bad "$3"; grep -E "^- " "$tmp/out" | head -n 5; }; }

hdr="algo,p,bytes,dtype,op,inplace,mode,iters,time_us_avg,time_us_min,time_us_max,p50_us,p99_us,algbw_gbytes_per_s,busbw_gbytes_per_s,model_us,model_hi_us,model_ratio,in_model_range,wrong"
row() { echo "$1,$2,$3,float,sum,0,isolated,10,$4,$4,$4,$4,$4,1,1,,,,,0"; }

echo "== allreduce: best project algorithm against the library"
mkdir -p "$tmp/nolib"
{ echo "$hdr"; row ring 2 4194304 900; row recdbl 2 4194304 950; } > "$tmp/nolib/allreduce.csv"
expect "$tmp/nolib" "best project algorithm vs MPI_Allreduce, >= 1 MiB: not measured" "no library rows: not measured, not met"
mkdir -p "$tmp/slow"
{ echo "$hdr"; row library 2 4194304 500; row ring 2 4194304 900; } > "$tmp/slow/allreduce.csv"
expect "$tmp/slow" "worst ratio 1.80 .*NOT met" "the best project algorithm 1.8x the library: NOT met"
mkdir -p "$tmp/fast"
{ echo "$hdr"; row library 2 4194304 1000; row ring 2 4194304 900; } > "$tmp/fast/allreduce.csv"
expect "$tmp/fast" "worst ratio 0.90 .*: met" "the best project algorithm 0.9x the library: met"

mkdir -p "$tmp/auto"
{ echo "$hdr"; row library 2 4194304 1000; row ring 2 4194304 900; row auto 2 4194304 880;
  row library 4 64 10; row auto 4 64 10.6; } > "$tmp/auto/allreduce.csv"
expect "$tmp/auto" "auto .* vs MPI_Allreduce, every size, np = 2 and 4: worst ratio 1.06 \(p = 4, 64 bytes\); target <= 1.05: NOT met" "auto 1.06x the library at 64 B: NOT met"
expect "$tmp/auto" "worst ratio 0.90 .*: met" "auto is not the best project algorithm (ring's 0.9x stays)"

echo "== exp: own AVX-512 expf against a fraction of this CPU's FMA-port bound"
eh="variant,isa,impl,threads,n,cache,ns_per_elem,cycles_per_elem,max_ulp,frac_of_bound,bound_cycles_per_elem"
erow() { echo "poly,avx512,x,1,2048,L1,0.2,$1,$2,,$3"; }
# Zen 4-like: bound 0.44 cycles/element; 0.50 is 0.88 of it (met even though > 0.40),
# 0.67 is 0.66 of it (NOT met), 0.50 at 1.2 ULP fails on accuracy alone.
mkdir -p "$tmp/expok" "$tmp/expslow" "$tmp/expulp" "$tmp/expnob"
{ echo "$eh"; erow 0.50 0.85 0.44; } > "$tmp/expok/exp.csv"
{ echo "$eh"; erow 0.67 0.85 0.44; } > "$tmp/expslow/exp.csv"
{ echo "$eh"; erow 0.50 1.2 0.44; } > "$tmp/expulp/exp.csv"
{ echo "$eh"; erow 0.30 0.85 ""; } > "$tmp/expnob/exp.csv"
expect "$tmp/expok" "^- own AVX-512 expf <= 1 ULP and >= 0.80 of the FMA-port bound \(cycles/element <= bound / 0.80 = 0.55; bound = 10 vector ops per 16 lanes at the measured FMA rate = 0.44 cycles/element\): 0.85 ULP, 0.5 cycles/element = 0.88 of the bound — met$" "exp at 0.88 of a 0.44-cycle bound: met"
expect "$tmp/expslow" "^- own AVX-512 expf .* 0.67 cycles/element = 0.66 of the bound — NOT met$" "exp at 0.66 of the bound: NOT met"
expect "$tmp/expulp" "^- own AVX-512 expf .* 1.2 ULP, 0.5 cycles/element = 0.88 of the bound — NOT met$" "exp at 1.2 ULP: NOT met however fast"
expect "$tmp/expnob" "^- own AVX-512 expf <= 1 ULP and >= 0.80 of the FMA-port bound: not measured" "exp without a bound: not measured"

echo "== rnn-train --bench: a step over 5x its median is flagged STALL"
bh="model,layers,hidden,embed,vocab,batch,bptt,threads,classes,gemm,steps,step_ms_median,step_ms_min,step_ms_max,tokens_per_s,gflops,peak_gflops,frac_of_peak"
brow() { echo "lstm,1,512,512,10000,32,35,$1,$2,blis,10,$3,$3,$4,1000,10,100,0.1"; }
mkdir -p "$tmp/stall" "$tmp/steady"
{ echo "$bh"; brow 1 0 400 420; brow 2 100 391 146739; } > "$tmp/stall/train_bench.csv"
{ echo "$bh"; brow 1 0 400 420; brow 2 100 391 1900; } > "$tmp/steady/train_bench.csv"
expect "$tmp/stall" "^- STALL: lstm hidden 512, 100 classes, 2 threads: slowest step 146739.0 ms = 375.3x the median 391.0 ms .*NOT met" "max 146739 ms against a median of 391: STALL, NOT met"
$bin/study report "$tmp/stall" --body --out - > "$tmp/out" 2>&1
[ "$(grep -c "^- STALL" "$tmp/out")" -eq 1 ] && ! grep -q "no stall" "$tmp/out" && ok "only the stalled row is flagged" || bad "only the stalled row is flagged"
$bin/study report "$tmp/stall" --out - > "$tmp/out" 2>&1
sed -n '/^## Summary/,/^## [^S]/p' "$tmp/out" | grep -q "^- STALL: .*NOT met" && ok "the STALL line is in the summary" || bad "the STALL line is in the summary"
expect "$tmp/steady" "^- target: no stall, .* \(2 rows\): met" "max 4.9x the median: no stall, met"

echo "== rnn-train --bench: the step's goals (fraction of peak, threads, the class layer)"
# srow MODEL HIDDEN BATCH THREADS CLASSES MEDIAN_MS TOKENS_PER_S FRAC
srow() { echo "$1,1,$2,$2,10000,$3,35,$4,$5,onednn,10,$6,$6,$6,$7,10,100,$8"; }
mkdir -p "$tmp/goals"
{ echo "$bh"; srow lstm 512 32 1 0 500 2240 0.85; srow lstm 512 32 2 0 260 4300 0.79
  srow lstm 512 32 1 100 170 6600 0.6; srow lstm 512 32 2 100 180 6200 0.3
  srow elman 512 32 2 0 200 5600 0.76; srow lstm 128 80 1 100 33 85000 0.66
  srow lstm 128 80 2 100 32 87000 0.33; } > "$tmp/goals/train_bench.csv"
expect "$tmp/goals" "^- target: lstm hidden 512, batch 32, 1 thread >= 0.82 of the FMA peak: 0.850 — met" "LSTM-512 at 1 thread, 0.85 >= 0.82: met"
expect "$tmp/goals" "^- target: lstm hidden 512, batch 32, 2 threads >= 0.80 of the FMA peak: 0.790 — NOT met" "LSTM-512 at 2 threads, 0.79 < 0.80: NOT met"
expect "$tmp/goals" "^- target: elman hidden 512, batch 32, 2 threads >= 0.75 of the FMA peak: 0.760 — met" "Elman-512 at 2 threads, 0.76 >= 0.75: met"
expect "$tmp/goals" "^- target: lstm hidden 128, batch 80, 100 classes, 1 thread >= 0.65 of the FMA peak: 0.660 — met" "the study's model at 1 thread, 0.66: met"
expect "$tmp/goals" "^- target: lstm hidden 512, batch 32, 2 threads faster than 1 \(>= 1.10x\): 1.92x — met" "2 threads 1.92x 1: met"
expect "$tmp/goals" "^- target: lstm hidden 512, batch 32, 100 classes, 2 threads faster than 1 \(>= 1.10x\): 0.94x — NOT met" "the class step slower at 2 threads: NOT met"
expect "$tmp/goals" "^- target: lstm hidden 128, batch 80, 100 classes, 2 threads faster than 1 \(>= 1.10x\): 1.03x — NOT met" "1.03x is within the noise: NOT met"
expect "$tmp/goals" "^- target: lstm hidden 512, batch 32, 100 classes, 1 thread >= 2x the full softmax's tokens/s: 2.95x — met" "classes 2.95x the full softmax: met"
expect "$tmp/goals" "^- target: lstm hidden 512, batch 32, 100 classes, 2 threads >= 2x the full softmax's tokens/s: 1.44x — NOT met" "classes 1.44x the full softmax: NOT met"
$bin/study report "$tmp/goals" --body --out - > "$tmp/out" 2>&1
! grep -q "elman hidden 512, batch 32, 2 threads faster" "$tmp/out" && ok "no thread line without a 1-thread twin" || bad "no thread line without a 1-thread twin"

echo "== against PyTorch: a class-softmax configuration gets its own row"
ph="model,layers,hidden,embed,vocab,batch,bptt,threads,classes,steps,step_ms_median,tokens_per_s,gflop_per_step,gflop_per_step_rnnscale,peer,peer_version,openblas_coretype,openblas_core,openblas_coretype_user,coretype_reason,coretype_probe,omp_wait_policy"
# prow THREADS CLASSES MS TOKENS/S GFLOP RNNSCALE_GFLOP
prow() { echo "lstm,1,512,512,10000,32,35,$1,$2,10,$3,$4,$5,$6,pytorch,1.13,Zen,Zen,(unset),fastest,,PASSIVE"; }
# trow THREADS CLASSES MS TOKENS/S: rnn-train's row
trow() { echo "lstm,1,512,512,10000,32,35,$1,$2,blis,10,$3,$3,$3,$4,10,100,0.1"; }
mkdir -p "$tmp/peer" "$tmp/peerold"
# the class rows first: a match that ignored classes would take them for the full softmax's
{ echo "$ph"; prow 1 100 320 3500 16.36 14.78; prow 1 0 560 2000 14.8 14.8; prow 2 100 226 4960 16.36 14.78; } > "$tmp/peer/train_peer.csv"
{ echo "$bh"; trow 1 100 212 5278; trow 1 0 204 5500; trow 2 100 150 7466; trow 2 0 120 9333; } > "$tmp/peer/train_bench.csv"
expect "$tmp/peer" "^\| lstm \| 512 \| 10000 \| 100 \| 32 \| 35 \| 1 \| 5278 \| 3500 \| 1.51x \| 212 \| 320 \|" "the 100-class row: rnnscale's class step against PyTorch's adaptive softmax, 1.51x"
expect "$tmp/peer" "^\| lstm \| 512 \| 10000 \| - \| 32 \| 35 \| 1 \| 5500 \| 2000 \| 2.75x \| 204 \| 560 \|" "the full-softmax row keeps its own numbers, 2.75x"
expect "$tmp/peer" "^- LSTM hidden 512, .* at 1 thread: rnnscale >= 2.5x PyTorch's tokens/s: 2.75x — met" "the 2.5x target is judged on the full softmax's row (2.75x), not the class row's 1.51x"
expect "$tmp/peer" "^lstm hidden 512, vocab 10000, 100 classes: PyTorch's adaptive softmax does 16.36 GFLOP per step\$" "both sides' work per step under the class row"
grep -q "^(its H x H tail projections included) against rnnscale's 14.78 " "$tmp/out" && ok "... and rnnscale's, 14.78" || bad "rnnscale's GFLOP per step under the class row"
$bin/study report "$tmp/peer" --body --out - 2>&1 | sed -n '/^## Against PyTorch/,/^### /p' > "$tmp/out"
grep -q "^| lstm | 512 | 10000 | 100 | 32 | 35 | 2 | 7466 | 4960 | 1.51x |" "$tmp/out" && ok "the 2-thread class row, 1.51x" || bad "the 2-thread class row"
[ "$(grep -c '^| lstm | 512 |' "$tmp/out")" -eq 3 ] && ok "three rows, PyTorch's: rnnscale's 2-thread full softmax, without a PyTorch row, adds none" ||
    bad "$(grep -c '^| lstm | 512 |' "$tmp/out") table rows, want 3"
[ "$(grep -c "adaptive softmax does" "$tmp/out")" -eq 1 ] && ok "one work line for the class configuration, not one per thread count" ||
    bad "$(grep -c "adaptive softmax does" "$tmp/out") work lines, want 1"
# a train_peer.csv from before the classes column: its rows are the full softmax's
{ echo "$ph" | sed 's/,classes//'; prow 1 100 560 2000 14.8 14.8 | sed 's/,100,10,/,10,/'; } > "$tmp/peerold/train_peer.csv"
cp "$tmp/peer/train_bench.csv" "$tmp/peerold/"
expect "$tmp/peerold" "^\| lstm \| 512 \| 10000 \| - \| 32 \| 35 \| 1 \| 5500 \| 2000 \| 2.75x \|" "no classes column in train_peer.csv: matched to rnnscale's full softmax"

echo "== the simulated data-parallel step: the 800-node target with the best exchange"
dh="dp_mode,model,hidden,classes,vocab,batch,ranks,step_ms_median,exchange_ms,exchange_exposed_ms,embed_rows"
drow() { echo "$1,lstm,128,100,10000,4,$2,$3,2,2,1"; }
mkdir -p "$tmp/dpsim" "$tmp/dpslow"
{ echo "$dh"; drow fused 1 3.49; drow fused 800 5.57; drow sharded 800 3.49; } > "$tmp/dpsim/train_dp_sim.csv"
{ echo "$dh"; drow fused 1 3.49; drow fused 800 5.57; drow bucketed 100 3.6; } > "$tmp/dpslow/train_dp_sim.csv"
expect "$tmp/dpsim" "800 simulated nodes, weak-scaling efficiency >= 0.90 with the best exchange: 1.000 — met" "sharded at 800 nodes, 1.000: met"
expect "$tmp/dpsim" "^sharded: fused, each node clipping and updating only its block" "the sharded mode is explained"
expect "$tmp/dpslow" "with the best exchange: 0.627 — NOT met" "fused at 800 nodes, 0.627 (100 nodes not counted): NOT met"
dh2="$dh,compute_ms"
hrow() { echo "$1,lstm,128,100,10000,4,$2,$3,2,$4,1,1.5"; }
mkdir -p "$tmp/dphide"
{ echo "$dh2"; hrow fused 16 4.8 1.3; hrow bucketed 16 4.1 0.72; hrow bucketed-sparse 16 3.7 0.013
  hrow fused 100 5.6 2.1; hrow bucketed 100 5.1 1.5; } > "$tmp/dphide/train_dp_sim.csv"
expect "$tmp/dphide" "^- target: 16 simulated nodes, >= 60% of fused's exposed exchange hidden \(bucketed-sparse\): 99.0% — met$" "16 nodes: bucketed-sparse hides 99%: met"
expect "$tmp/dphide" "^- target: 100 simulated nodes, .*\(bucketed; its exchange, 2.00 ms, outlasts the backward it overlaps, 1.00 ms\): 28.6% — NOT met$" "100 nodes: 28.6%, NOT met, the exchange outlasts the backward"
$bin/study report "$tmp/dphide" --out - 2> /dev/null | sed -n '/^## Summary/,/^## [^S]/p' | grep -c "simulated nodes, >= 60%" > "$tmp/n"
[ "$(cat "$tmp/n")" -eq 2 ] && ok "both node counts' hiding lines are in the summary" || bad "the summary holds $(cat "$tmp/n") hiding lines, not 2"

echo "== reproduction: the Sunway TaihuLight and GPU RNN studies' claims"
mkdir -p "$tmp/caffe"
{ echo "algo,p,improvement"; echo "fused_hier,16,44.1"; echo "fused_hier,800,12.5"; } > "$tmp/caffe/caffe.csv"
expect "$tmp/caffe" "MPI_Allreduce mapped.*800 simulated TaihuLight nodes: 12.5x — NOT met" "20x allreduce: judged at the largest p, 12.5x: NOT met"
expect "$tmp/caffe" "100x fewer iterations.*Not in this run" "a claim without its files: not in this run"
# the band: the experiment on the platform off by 2x each way, lowest and highest
for v in bw2:30.5 bwhalf:9.25 lat2:12.6 lathalf:12.4; do
    { echo "algo,p,improvement"; echo "caffe_style,800,${v#*:}"; echo "caffe_style_cell,800,3"; } > "$tmp/caffe/caffe_platform_${v%%:*}.csv"
done
expect "$tmp/caffe" "TaihuLight nodes: 12.5x \(9.2x-30.5x with the platform off by 2x each way\) — NOT met" "20x: the platform's band beside it, 9.2x-30.5x"
rm "$tmp/caffe/caffe_platform_lat2.csv"
expect "$tmp/caffe" "TaihuLight nodes: 12.5x — NOT met" "20x: one of the band's four missing, no band"
mkdir -p "$tmp/conv"
# as build/bin/scaling-fit writes it: b = 4 fitted, b = 16 not (left out of the claim)
printf '{"study": "scaling_fit", "fits": [{"b": 4, "points": 8, "s_min": 49.3, "e_min": 1062, "b_crit": 21.5, "r2": 0.9935, "claim": {"n": 100, "steps_n1": 320, "steps_n": 58, "ratio": 5.517241379310345}}, {"b": 16, "points": 2, "no_fit": "2 points: at least 3 needed", "claim": {"n": 100, "steps_n1": 100, "steps_n": 60, "ratio": 1.6666666666666667}}]}\n' > "$tmp/conv/scaling_fit.json"
expect "$tmp/conv" "100x fewer iterations.*4:5.517.* — NOT met" "5.5x fewer steps at N = 100: NOT met"

echo "== what the studies took"
mkdir -p "$tmp/took"
printf 'study,jobs,stretches,wall_hours,job_hours,cpu_hours\nregime,15,2,1.83323,3.54834,1.65564\nall,85,2,3.12291,6.02472,3.04228\n' > "$tmp/took/took.csv"
expect "$tmp/took" "^## What the studies took" "took.csv: its section"
expect "$tmp/took" "^\\| all \\| 85 \\| 2 \\| 3.123 \\| 6.025 \\| 3.042 \\|$" "took.csv: the run's row, to 4 digits"

echo "== study report: the file, and what it refuses"
$bin/study report "$tmp/fast" && $bin/study report "$tmp/fast/" && [ "$(head -n 1 "$tmp/fast/report.md")" = "# rnnscale run fast" ] &&
    ok "RUN/report.md written, and written again over the old one" || bad "RUN/report.md not written twice"
mkdir -p "$tmp/broken"; printf 'algo,p\nring\n' > "$tmp/broken/allreduce.csv"
$bin/study report "$tmp/broken" 2> "$tmp/err"; rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "allreduce.csv" "$tmp/err" && grep -q "^## Reproduction" "$tmp/broken/report.md" &&
    ok "a malformed CSV: exit 1, one line naming it, the rest of the report written" || bad "a malformed CSV: exit $rc, $(cat "$tmp/err")"
echo "== held against a real network: netcheck.sh --quick's folder"
# netfolder RUN ERR4K: a netcheck/ as netcheck.sh leaves it, the 4 KiB ring's error ERR4K
netfolder() {
    mkdir -p "$1/netcheck"
    printf 'algo,p,bytes,real_us,sim_us,error\nring,2,4096,360,%s,%s\nring,2,262144,28000,23000,-0.18\n' \
        "$3" "$2" > "$1/netcheck/netcheck.csv"
    printf '\nPrediction error at p = 2:\n\n| bytes | ring |\n|---:|---:|\n| 4096 | x |\n\n' > "$1/netcheck/netcheck.md"
    printf '{"study": "pingpong", "meta": {"alpha_us": "9.8", "link_gbytes_per_s": "0.0112"}, "rows": []}\n' \
        > "$1/netcheck/pingpong.json"
    echo "netcheck: done" > "$1/netcheck.txt"
}
netfolder "$tmp/netok" 0.074 387
expect "$tmp/netok" "^- target: the 4 KiB ring at p = 2 \(latency-bound\) predicted within 15%: \+7.4% — met$" "the 4 KiB ring 7.4% off: met"
grep -q "alpha 9.8 us, 1/beta 0.0112 GB/s" "$tmp/out" && grep -q "^| 4096 | x |" "$tmp/out" &&
    ok "the calibration and study netcheck's table in the section" || bad "the net section: $(grep -A3 'real network' "$tmp/out")"
netfolder "$tmp/netbad" -0.3 252
expect "$tmp/netbad" "within 15%: -30.0% — NOT met$" "the 4 KiB ring 30% off: NOT met"
mkdir -p "$tmp/netno" && printf 'netcluster: cannot create a network namespace (ip netns add)\n' > "$tmp/netno/netcheck.txt"
expect "$tmp/netno" "^Not run here: netcluster: cannot create a network namespace" "no hosts here: the reason, no target line"
# where simulate_report.md carries the section (make bench runs netcheck first), once
printf '## Allreduce at scale\n\n## Held against a real network\n\n- target: x — met\n' > "$tmp/netok/simulate_report.md"
$bin/study report "$tmp/netok" --body --out - > "$tmp/out" 2>&1
[ "$(grep -c '^## Held against a real network' "$tmp/out")" -eq 1 ] && ok "in simulate_report.md already: the section once" ||
    bad "the net section $(grep -c '^## Held against a real network' "$tmp/out") times"

echo "== study netcheck: the trainer across the hosts against study train-sim"
printf 'model,ranks,step_ms_median,exchange_ms\nlstm,2,100,50\n' > "$tmp/rt2.csv"
printf 'model,ranks,step_ms_median,exchange_ms\nlstm,4,200,160\n' > "$tmp/rt4.csv"
printf 'model,ranks,step_ms_median,exchange_ms,platform\nlstm,2,110,40,fattree\nlstm,4,150,168,fattree\n' > "$tmp/st.csv"
$bin/study netcheck "$tmp/rt2.csv" "$tmp/rt4.csv" "$tmp/st.csv" --md "$tmp/train.md" --csv "$tmp/train.csv" > /dev/null
[ "$(sed -n 3p "$tmp/train.md")" = "| 2 | 100 | 110 | +10.0% | 50 | 40 | -20.0% |" ] &&
    [ "$(sed -n 4p "$tmp/train.md")" = "| 4 | 200 | 150 | -25.0% | 160 | 168 | +5.0% |" ] &&
    [ "$($bin/study get "$tmp/train.csv" step_error --where ranks=4)" = "-0.25" ] &&
    ok "planted steps: errors +10% / -20% at 2 ranks, -25% / +5% at 4, in the table and the CSV" ||
    bad "study netcheck on trainer CSVs: $(cat "$tmp/train.md")"
$bin/study netcheck "$tmp/rt2.csv" "$tmp/netok/netcheck/netcheck.csv" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "no column 'ranks'" "$tmp/err" &&
    ok "a trainer CSV beside an allreduce one: exit 2, one line" || bad "mixed kinds: exit $rc, $(cat "$tmp/err")"

$bin/study report "$tmp/none" 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok "no such folder: exit 2, one line" || bad "no such folder: exit $rc"

[ $fail -eq 0 ] && echo "check-report: all passed" || echo "check-report: FAILED"
exit $fail
