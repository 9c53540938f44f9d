#!/bin/sh
# run.sh BENCH PLATFORM_GEN — the SimGrid SMPI checks behind `make test` (check-smpi):
#   1. allreduce-bench-smpi at p = 64 on a two-group platform (2 x 32 nodes): every
#      project algorithm and four SMPI built-ins (through the charged reduction ops)
#      give exact results (float and int32, odd counts, count % p != 0, count < p);
#      hier found its two groups in the host names;
#   2. the same run twice gives byte-identical results (simulated times included);
#   3. the model is the platform's: at p = 2, one recursive-doubling exchange of 4 MiB
#      takes alpha + n/B + n*gamma within 0.5 %; unequal groups (48 = 32 + 16) are cut
#      into equal ones (3 x 16) by --group-max;
#   4. folding (SMPI shared memory for big buffers, SMPI built-ins' temporaries too)
#      leaves simulated times unchanged: study simulate checked vs folded (and its
#      JSON, from build/bin/study simulate, holds the CSV's rows); the sweep's way
#      (--plan, --run-job, --collect) gives one run's rows; study run simulate joins its
#      parts and keeps results; allreduce-bench --timed-only times as without it; the
#      books (every rank's count of wrong elements) add up in a checked folded run;
#      RS_SMPI_SKEW_NS skews the ranks' release by the amount asked;
#   5. rnn-train-smpi (study train-sim) trains a tiny LSTM on a 4-node platform with
#      compute charged by flops: two runs give identical simulated times; its loss curve
#      with --allreduce ordered (one summation order whatever the platform) its final
#      parameters are the bits of the real build under mpirun -np 4 and of one process
#      (skipped without mpirun), its rows theirs as printed (test/mpi/train.sh says
#      why); folding leaves the simulated step unchanged for --sync fused, per-tensor
#      and bucketed; bucketed is deterministic, gives fused's parameter bits and rows
#      and exposes less exchange than fused (its overlap with the charged backward);
#      with --eval-ranks 1 (3 training nodes, 1 evaluating) two runs are identical and
#      the loop is held less than by serial evaluation (one rank scoring all 3 groups);
#   6. platform-gen, study simulate and study train-sim reject impossible input:
#      exit 2, one line.
# Exits 1 if anything failed.  SMPIRUN overrides the launcher (default smpirun).
set -u
bench=${1:?usage: run.sh BENCH PLATFORM_GEN}
gen=${2:?usage: run.sh BENCH PLATFORM_GEN}
SMPIRUN=${SMPIRUN:-smpirun}
here=$(cd "$(dirname "$0")/../.." && pwd)
. "$(dirname "$0")/../lib.sh"
test_begin smpi
start=$(date +%s)

cfg="--cfg=smpi/simulate-computation:no --cfg=network/model:CM02 --cfg=network/crosstraffic:0
     --cfg=smpi/wtime:0 --cfg=smpi/coll-selector:ompi
     --cfg=smpi/bcast:binomial_tree --cfg=smpi/reduce:binomial
     --cfg=smpi/async-small-thresh:65536 --log=root.thres:critical"
smpi() { # NP PREFIX ARGS...: allreduce-bench-smpi under smpirun, 120 s at most; `library`
    # is SMPI's allreduce ALLREDUCE (default rdb)
    np=$1; pf=$2; shift 2
    timeout 120 $SMPIRUN -np "$np" -platform "$pf.xml" -hostfile "$pf.hosts" $cfg \
        --cfg=smpi/allreduce:"${ALLREDUCE:-rdb}" "$bench" "$@"
}
study_bin=$here/build/bin/study
. "$here/scaling/study/get.sh"   # col, csv_rows, study_get: every result read back
total() { awk '{ s += $1 } END { print s + 0 }'; }   # the sum of the numbers on stdin

echo "== SMPI: p = 64 on two groups of 32 ($bench)"
"$gen" --platform taihulight --group-size 32 --nodes 64 --out "$tmp/tl64" > /dev/null ||
    { echo "FAIL platform-gen could not write the test platform"; exit 1; }
sizes="$tmp/sizes"; printf '4\n36\n252\n4100\n65540\n1048580\n' > "$sizes"   # counts 1, 9, 63, 1025, 16385, 262145
for run in 1 2; do
    smpi 64 "$tmp/tl64" --algo all --dtype float,int32 --sizes "$sizes" --iters 1 --warmup 0 \
        --csv "$tmp/p64_$run.csv" --json "$tmp/p64_$run.json" > "$tmp/out$run" 2> "$tmp/err$run"
    rc=$?
    [ $rc -eq 0 ] || { bad "p=64 run $run: exit $rc"; head -n 20 "$tmp/err$run"; }
done
if [ -s "$tmp/p64_1.csv" ]; then
    rows=$(($(wc -l < "$tmp/p64_1.csv") - 1)); wrong=$(col "$tmp/p64_1.csv" wrong --all | total)
    algos=$(col "$tmp/p64_1.csv" algo --all | sort -u | tr '\n' ' ')
    [ "$rows" -eq 120 ] && [ "$wrong" -eq 0 ] && ok "p=64: $rows rows (${algos}x float,int32 x 6 sizes), 0 wrong elements" ||
        bad "p=64: $rows rows (want 120: 10 algorithms), $wrong wrong elements"
    h=$(study_get "$tmp/p64_1.json" meta.algo_hier 2>&1)
    case $h in
        *"2 groups of 32 ranks"*) ok "hier: $h" ;;
        *) bad "hier did not find 2 groups of 32 in the host names: $h" ;;
    esac
fi
if [ -s "$tmp/p64_1.csv" ] && cmp -s "$tmp/p64_1.csv" "$tmp/p64_2.csv"; then
    ok "two runs: identical results and simulated times (sum of p50_us $(col "$tmp/p64_1.csv" p50_us --all | total))"
else
    bad "two runs differ: $(diff "$tmp/p64_1.csv" "$tmp/p64_2.csv" | head -n 3 | tr '\n' ' ')"
fi

echo "== SMPI built-ins through the charged reduction ops (exact results)"
for b in rdb rab_rdb lr ompi; do
    ALLREDUCE=$b smpi 64 "$tmp/tl64" --algo library --dtype float,int32 --sizes "$sizes" --iters 1 \
        --warmup 0 --csv "$tmp/b_$b.csv" > /dev/null 2> "$tmp/berr"
    rc=$?
    w=$(col "$tmp/b_$b.csv" wrong --all 2>/dev/null | total)
    n=$(col "$tmp/b_$b.csv" wrong --all 2>/dev/null | wc -l)
    [ $rc -eq 0 ] && [ "$n" -eq 12 ] && [ "$w" -eq 0 ] && ok "smpi:$b: 12 rows, 0 wrong" ||
        { bad "smpi:$b: exit $rc, $n rows (want 12), $w wrong"; head -n 5 "$tmp/berr"; }
done

echo "== the model is the platform's (alpha + n/B + n*gamma) and unequal groups are cut equal"
"$gen" --platform taihulight --group-size 32 --nodes 48 --out "$tmp/tl48" > /dev/null
printf '4194304\n' > "$tmp/one"
smpi 2 "$tmp/tl64" --algo recdbl --sizes "$tmp/one" --iters 1 --warmup 0 --csv "$tmp/p2b.csv" > /dev/null 2>&1
t=$(col "$tmp/p2b.csv" p50_us --all 2>/dev/null)
# alpha 1 us (nearest nodes), B 16 GB/s, gamma 1/30 GB/s (the platform's defaults)
want=$(awk 'BEGIN { printf "%.4f", 1 + 4194304 / 16e3 + 4194304 / 30e3 }')
awk -v t="${t:-0}" -v w="$want" 'BEGIN { exit !(t > 0 && (t - w) / w < 0.005 && (w - t) / w < 0.005) }' &&
    ok "p=2 recdbl 4 MiB: $t us, model $want us" || bad "p=2 recdbl 4 MiB: ${t:-nothing} us, want $want us +- 0.5 %"
smpi 48 "$tmp/tl48" --algo hier --group-max 32 --sizes "$sizes" --iters 1 --warmup 0 --json "$tmp/p48.json" > /dev/null 2>&1
# every row's wrong count 0 (rows.K.wrong: the JSON's K-th row), and at least one row
h=$(study_get "$tmp/p48.json" meta.algo_hier 2>&1)
w=""; k=0
while v=$(study_get "$tmp/p48.json" rows.$k.wrong 2> /dev/null); do w="$w$v"; k=$((k + 1)); done
case $h in *"3 groups of 16 ranks"*) true ;; *) false ;; esac && [ $k -gt 0 ] && [ -z "$(echo "$w" | tr -d 0)" ] &&
    ok "p=48 on 32 + 16: $h, results exact" ||
    bad "p=48: hier's groups or results: $h (wrong: $w)"

echo "== folded buffers leave simulated times unchanged (study simulate, checked vs folded)"
for m in 1G 1M; do
    SMPIRUN=$SMPIRUN "$here/build/bin/study" simulate --nodes 16 --sizes 4M --algo hier,ring,smpi:rdb,smpi:lr \
        --mem-budget $m --jobs 2 --csv "$tmp/fold_$m.csv" --json "$tmp/fold_$m.json" \
        > /dev/null 2> "$tmp/fold_$m.err" ||
        { bad "simulate --mem-budget $m: exit $?"; tail -n 3 "$tmp/fold_$m.err"; }
done
if [ -s "$tmp/fold_1G.csv" ] && [ -s "$tmp/fold_1M.csv" ]; then
    a=$(col "$tmp/fold_1G.csv" algo,p50_us,checked --all | tr '\t\n' ' ;')
    b=$(col "$tmp/fold_1M.csv" algo,p50_us,checked --all | tr '\t\n' ' ;')
    ta=$(col "$tmp/fold_1G.csv" algo,p50_us --all | tr '\t' ' '); tb=$(col "$tmp/fold_1M.csv" algo,p50_us --all | tr '\t' ' ')
    echo "$a" | grep -q ' 1;' && echo "$b" | grep -q ' 0;' && [ "$ta" = "$tb" ] &&
        ok "p=16, 4 MiB: checked and folded runs give the same p50_us ($(echo "$ta" | tr '\n' ' '))" ||
        bad "checked vs folded differ: [$a] vs [$b]"
fi
if [ -s "$tmp/fold_1G.json" ]; then  # the same rows as JSON, with metadata
    nj=0; while study_get "$tmp/fold_1G.json" rows.$nj.algo > /dev/null 2>&1; do nj=$((nj + 1)); done
    nc=$(($(wc -l < "$tmp/fold_1G.csv") - 1))
    [ "$(study_get "$tmp/fold_1G.json" study 2> /dev/null)" = simulate ] &&
        [ -n "$(study_get "$tmp/fold_1G.json" meta.folding 2> /dev/null)" ] &&
        [ "$nj" -eq "$nc" ] && ok "simulate's JSON: study, metadata and $nj rows, as its CSV" ||
        bad "simulate's JSON: $nj rows (CSV: $nc), or no study / folding metadata"
fi

echo "== the sweep's way: --plan, each --run-job, --collect give the same rows as one run"
ph="--nodes 16 --sizes 4M --algo hier,ring,smpi:rdb,smpi:lr --mem-budget 1G --keep $tmp/phased"
SMPIRUN=$SMPIRUN "$here/build/bin/study" simulate $ph --plan 2> "$tmp/ph.err" &&
    for id in $(awk '{ print $1 }' "$tmp/phased/jobs/list"); do
        SMPIRUN=$SMPIRUN "$here/build/bin/study" simulate --keep "$tmp/phased" --run-job "$id" 2>> "$tmp/ph.err" || exit 1
    done &&
    SMPIRUN=$SMPIRUN "$here/build/bin/study" simulate $ph --collect --csv "$tmp/phased.csv" > /dev/null 2>> "$tmp/ph.err" ||
    { bad "simulate --plan / --run-job / --collect: exit $?"; tail -n 3 "$tmp/ph.err"; }
if [ -s "$tmp/phased.csv" ] && [ -s "$tmp/fold_1G.csv" ]; then
    a=$(col "$tmp/fold_1G.csv" algo,bytes,p50_us,checked --all | tr '\t' ' ' | sort)
    b=$(col "$tmp/phased.csv" algo,bytes,p50_us,checked --all | tr '\t' ' ' | sort)
    n=$(echo "$b" | grep -c .)
    [ "$a" = "$b" ] && [ "$n" -ge 4 ] && [ "$(wc -l < "$tmp/phased/jobs/list")" -ge 4 ] &&
        ok "p=16, 4 MiB: $n rows from $(wc -l < "$tmp/phased/jobs/list") jobs run one by one, as in one run" ||
        bad "phased run differs from one run: [$(echo "$b" | tr '\n' ';')] vs [$(echo "$a" | tr '\n' ';')]"
fi
echo "== the sweep (study run simulate) over two tiny parts: one list, CSVs joined, costs kept"
printf '%s\n' "simulate_small --nodes 4 --sizes 4,64k --algo ring,segring,recdbl,bound --skip-ring-repeats" \
    "simulate_large_smpi --nodes 8 --sizes 64k --algo smpi:rdb" > "$tmp/parts"
NETCHECK=0 DP_SIM_NODES= SIM_PARTS="$tmp/parts" SIM_JOBS=2 SMPIRUN=$SMPIRUN "$here/build/bin/study" run simulate "$tmp/sweep" > "$tmp/sweep.out" 2>&1 ||
    { bad "sweep.sh: exit $?"; tail -n 5 "$tmp/sweep.out"; }
rows=$(($(wc -l < "$tmp/sweep/simulate.csv" 2>/dev/null || echo 1) - 1))
sims=$(($(wc -l < "$tmp/sweep/simulate_points.txt" 2>/dev/null || echo 1) - 1))
skip=$(col "$tmp/sweep/simulate.csv" note --where algo=segring,p=4,bytes=65536 --all 2>/dev/null |
    grep -c "the ring's messages exactly")
[ "$rows" -eq 9 ] && [ "$sims" -eq 4 ] && [ "$skip" -eq 1 ] && [ ! -e "$tmp/sweep/simulate_work" ] &&
    grep -q '^total [0-9]' "$tmp/sweep/simulate_cost.txt" && [ -s "$tmp/sweep/simulate_report.md" ] &&
    ok "sweep: 4 simulations from 2 parts, 9 rows joined (segring at 64 KiB: the ring's), costs and report" ||
    bad "sweep: $rows rows (want 9), $sims simulations (want 4), $skip ring-repeat rows (want 1), or no cost/report"
NETCHECK=0 DP_SIM_NODES= SIM_PARTS="$tmp/parts" SMPIRUN=$SMPIRUN "$here/build/bin/study" run simulate "$tmp/sweep" > "$tmp/sweep2.out" 2>&1 &&
    [ "$(grep -c 'exists; skipping' "$tmp/sweep2.out")" -eq 2 ] && ok "sweep: a second run keeps both parts' results" ||
    bad "sweep: a second run into the same folder: $(grep -c 'exists; skipping' "$tmp/sweep2.out") parts kept (want 2)"
# --timed-only (what simulate runs): the timed call alone gives the same simulated time as
# after a checked call, and its output is still checked
for mode in "" --timed-only; do
    smpi 16 "$tmp/tl64" --algo ring,hier,library --sizes "$sizes" --iters 1 --warmup 0 $mode \
        --csv "$tmp/to$mode.csv" > /dev/null 2> "$tmp/to.err" || bad "allreduce-bench-smpi $mode: exit $?"
done
pick() { col "$1" algo,bytes,p50_us,wrong --all | tr '\t' ' '; }
if [ -s "$tmp/to.csv" ] && [ -s "$tmp/to--timed-only.csv" ]; then
    a=$(pick "$tmp/to.csv"); b=$(pick "$tmp/to--timed-only.csv")
    [ "$a" = "$b" ] && [ "$(echo "$b" | grep -c .)" -eq 18 ] &&
        [ "$(col "$tmp/to--timed-only.csv" wrong --all | sort -u)" = 0 ] &&
        ok "--timed-only: the same p50_us at p=16, and 0 wrong ($(echo "$b" | grep -c .) rows)" ||
        bad "--timed-only differs: [$(echo "$b" | tr '\n' ';')] vs [$(echo "$a" | tr '\n' ';')]"
fi
# hier in one group of 16, blocks in granules of 4096 floats (rnn-train once cut the
# scaling study's 2,714,496 parameters so).  A block's last segment was much shorter
# than the rest, under the eager threshold, and SMPI let it overtake: a deadlock.
printf '10857984\n' > "$tmp/gran_sizes"
if smpi 16 "$tmp/tl64" --algo hier,segring --granule 4096 --sizes "$tmp/gran_sizes" --iters 1 \
    --warmup 0 --csv "$tmp/gran.csv" > /dev/null 2> "$tmp/gran.err" &&
    [ "$(col "$tmp/gran.csv" wrong --all | sort -u)" = 0 ]; then
    ok "--granule 4096: hier and segring at p=16 finish with 0 wrong (no short last segment)"
else
    bad "--granule 4096 at p=16: $(grep -m1 -i 'deadlock\|error' "$tmp/gran.err")"
fi
# auto measures its candidates at its first call of each size and runs the fastest:
# in the simulation (times independent of the data) its time is their least, per size
smpi 16 "$tmp/tl64" --algo ring,segring,rabenseifner,recdbl,hier,library,auto --sizes "$sizes" \
    --iters 1 --warmup 1 --csv "$tmp/auto.csv" > /dev/null 2> "$tmp/auto.err"
got=$(col "$tmp/auto.csv" algo,bytes,p50_us --all 2> /dev/null | awk '
    $1 == "auto" { a[$2] = $3; next } { if (!($2 in m) || $3 < m[$2]) m[$2] = $3 }
    END { n = 0; for (b in a) { n++; if (a[b] > m[b] * 1.02 || a[b] < m[b] * 0.98) bad = bad " " b ":" a[b] "/" m[b] }
          print n, (bad == "" ? "ok" : bad) }')
[ "$got" = "6 ok" ] && ok "auto: at p=16 its time is the fastest candidate's at each of 6 sizes (within 2%)" ||
    bad "auto against the fastest candidate (sizes, then size:auto/fastest where off): $got $(head -n 2 "$tmp/auto.err")"
expect2_bench() { # --timed-only without --iters: one line, exit 2
    smpi 2 "$tmp/tl64" --algo ring --sizes "$sizes" --timed-only > /dev/null 2> "$tmp/e"; rc=$?
    [ $rc -eq 2 ] && grep -q -- "--timed-only: give --iters and --warmup" "$tmp/e" &&
        ok "allreduce-bench-smpi --timed-only without --iters: exit 2" ||
        bad "allreduce-bench-smpi --timed-only without --iters: exit $rc: $(head -n 2 "$tmp/e" | tr '\n' ' ')"
}
expect2_bench
# the books on MPI_COMM_WORLD (SimGrid's kernel, no messages) add up every rank's count:
# folded buffers hold garbage, so a checked folded run finds wrong elements on each rank
# and its CSV's wrong column must be the sum of the ranks' own WRONG lines
# (the folded-run settings of scaling/study/smpi_launch.h: 1 MiB, one 256 MiB block)
echo 1048576 > "$tmp/books.sizes"
env RS_SMPI_FOLD_BYTES=1048576 LD_PRELOAD="$here/build/lib/rs-smpi-fold.so" timeout 120 $SMPIRUN -np 16 \
    -platform "$tmp/tl64.xml" -hostfile "$tmp/tl64.hosts" $cfg --cfg=smpi/shared-malloc-blocksize:268435456 "$bench" \
    --algo ring,recdbl --sizes "$tmp/books.sizes" --iters 1 --warmup 0 --csv "$tmp/books.csv" \
    > /dev/null 2> "$tmp/books.err"; rc=$?
ranks=$(sed -n 's/.*rank [0-9]*: \([0-9]*\) elements differ.*/\1/p' "$tmp/books.err" | total)
csv=$(col "$tmp/books.csv" wrong --all 2>/dev/null | total)
[ $rc -eq 1 ] && [ "$ranks" -gt 0 ] && [ "$csv" = "$ranks" ] &&
    ok "books: a checked folded run exits 1 and its CSV counts the ranks' $ranks wrong elements" ||
    bad "books: exit $rc (want 1), CSV wrong $csv, the ranks' lines $ranks"

# RS_SMPI_SKEW_NS=S releases rank r r*S ns late: recursive doubling (rendezvous at 4 MiB)
# then takes (p-1)*S longer, as its slowest rank waits for the last to arrive
echo 4194304 > "$tmp/skew.sizes"
for sk in 0 1000; do
    RS_SMPI_SKEW_NS=$sk smpi 16 "$tmp/tl64" --algo recdbl --sizes "$tmp/skew.sizes" --iters 1 \
        --warmup 0 --csv "$tmp/skew$sk.csv" > /dev/null 2>&1 || bad "RS_SMPI_SKEW_NS=$sk: exit $?"
done
t0=$(col "$tmp/skew0.csv" p50_us 2>/dev/null); t1=$(col "$tmp/skew1000.csv" p50_us 2>/dev/null)
d=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')   # two numbers already read
awk -v d="$d" 'BEGIN { exit !(d > 13.5 && d < 16.5) }' &&
    ok "RS_SMPI_SKEW_NS=1000 at p=16: recdbl takes $d us longer (15 expected)" ||
    bad "RS_SMPI_SKEW_NS=1000 at p=16: recdbl takes $d us longer (want 15 +- 1.5)"

echo "== rnn-train-smpi: a tiny LSTM on 4 simulated nodes (study train-sim)"
train=$here/build/bin/rnn-train-smpi
tiny="--corpus mobydick --vocab 200 --hidden 16 --embed 8 --bptt 8 --batch 2 --optimizer adam --lr 0.02
      --schedule const --seed 5 --threads 1 --gemm openblas"
for run in 1 2; do
    SMPIRUN=$SMPIRUN "$here/build/bin/study" train-sim --nodes 4 --compute flops:50 --fold no --bench 3 \
        --csv "$tmp/tr$run.csv" -- $tiny > /dev/null 2> "$tmp/tr$run.err" ||
        { bad "train-sim run $run: exit $?"; tail -n 5 "$tmp/tr$run.err"; }
done
# the same rows but this machine's wall time and memory (train-sim's last two columns)
strip() {
    s_keep=""
    for s_col in $(csv_columns "$1" | tr ',' ' '); do
        case $s_col in wall_s|rss_mib) ;; *) s_keep="$s_keep${s_keep:+,}$s_col" ;; esac
    done
    [ -z "$s_keep" ] || col "$1" "$s_keep" --all
}
c=$(col "$tmp/tr1.csv" compute_ms --all 2>/dev/null); x=$(col "$tmp/tr1.csv" exchange_exposed_ms --all 2>/dev/null)
a=$(strip "$tmp/tr1.csv" 2>/dev/null); b=$(strip "$tmp/tr2.csv" 2>/dev/null)
if [ -s "$tmp/tr1.csv" ] && [ -n "$a" ] && [ "$a" = "$b" ] &&
    awk -v x="${x:-0}" 'BEGIN { exit !(x > 0) }'; then
    ok "two runs: identical simulated steps (compute $c ms, exposed exchange $x ms)"
else
    bad "train-sim's two runs differ or time nothing: $(strip "$tmp/tr1.csv" 2>/dev/null | tail -n 1) vs $(strip "$tmp/tr2.csv" 2>/dev/null | tail -n 1)"
fi
# flops:50 charges one window's GEMM flops (model_step_flops) at 50 GFLOP/s
want=$(csv_rows "$tmp/tr1.csv" bptt,batch,hidden,embed,vocab 'function emit() { N = v["bptt"] * v["batch"]; H = v["hidden"]
      printf "%.6g", (24 * N * H * (v["embed"] + H) + 6 * N * H * v["vocab"]) / 50e9 * 1e3 }')
awk -v c="${c:-0}" -v w="${want:-1}" 'BEGIN { d = (c - w) / w; exit !(d < 1e-4 && d > -1e-4) }' &&
    ok "compute_ms $c = the model's flops at 50 GFLOP/s ($want ms)" ||
    bad "compute_ms ${c:-nothing}, want $want (the model's flops at 50 GFLOP/s)"
# folding (a 2 MiB LSTM layer: folded, not computed, charged alike) leaves the step's times
# unchanged, for fused, per-tensor (its rounds counted where compute is charged) and
# bucketed (128 KiB buckets: cut by the backward's hook, or at once where it is charged)
step_times() { for k in step_ms_median compute_ms exchange_exposed_ms optimizer_ms folded; do col "$1" $k --all; done 2>/dev/null | tr '\n' ' '; }
for s in fused per-tensor bucketed; do
    for f in no yes; do
        SMPIRUN=$SMPIRUN "$here/build/bin/study" train-sim --nodes 4 --compute flops:50 --fold $f --bench 2 \
            --sync $s --csv "$tmp/fold_${s}_$f.csv" -- $tiny --hidden 256 --embed 256 \
            --bucket-mib 0.125 > /dev/null \
            2> "$tmp/fold.err" || { bad "train-sim --sync $s --fold $f: exit $?"; tail -n 5 "$tmp/fold.err"; }
    done
    a=$(step_times "$tmp/fold_${s}_no.csv"); b=$(step_times "$tmp/fold_${s}_yes.csv")
    [ -n "$a" ] && [ "${a% 0 }" = "${b% 1 }" ] && [ "$a" != "$b" ] &&
        ok "--sync $s: folded and real buffers, the same simulated step (step, compute, exchange, optimizer ms: ${a% 0 })" ||
        bad "--sync $s: folding changed the simulated step: [$a] vs [$b]"
done
xf=$(col "$tmp/fold_fused_yes.csv" exchange_exposed_ms --all 2>/dev/null)
xp=$(col "$tmp/fold_per-tensor_yes.csv" exchange_exposed_ms --all 2>/dev/null)
awk -v f="${xf:-0}" -v p="${xp:-0}" 'BEGIN { exit !(f > 0 && p > 4 * f) }' &&
    ok "folded per-tensor (Tw rounds of every tensor) exposes more than 4x fused's exchange ($xp vs $xf ms)" ||
    bad "folded per-tensor's exchange ${xp:-nothing} ms is not > 4x fused's ${xf:-nothing} ms"
# bucketed's overlap (two layers: the upper layer's buckets are summed during the lower
# one's backward) is deterministic and hides exchange that fused exposes
deep="$tiny --hidden 256 --embed 256 --layers 2 --bucket-mib 0.125"
for v in fused bucketed bucketed2; do
    SMPIRUN=$SMPIRUN "$here/build/bin/study" train-sim --nodes 4 --compute flops:50 --fold no --bench 2 \
        --sync "${v%2}" --csv "$tmp/overlap_$v.csv" -- $deep > /dev/null 2> "$tmp/overlap.err" ||
        { bad "train-sim --sync ${v%2}: exit $?"; tail -n 5 "$tmp/overlap.err"; }
done
a=$(strip "$tmp/overlap_bucketed.csv" 2>/dev/null); b=$(strip "$tmp/overlap_bucketed2.csv" 2>/dev/null)
[ -n "$a" ] && [ "$a" = "$b" ] && ok "--sync bucketed: two runs, identical simulated steps" ||
    bad "--sync bucketed: two runs differ: [$a] vs [$b]"
xf=$(col "$tmp/overlap_fused.csv" exchange_exposed_ms --all 2>/dev/null)
xb=$(col "$tmp/overlap_bucketed.csv" exchange_exposed_ms --all 2>/dev/null)
tb=$(col "$tmp/overlap_bucketed.csv" exchange_ms --all 2>/dev/null)
awk -v f="${xf:-0}" -v b="${xb:--1}" 'BEGIN { exit !(f > 0 && b >= 0 && b < f) }' &&
    ok "bucketed exposes $xb ms of its $tb ms exchange, fused $xf ms (two layers, 128 KiB buckets)" ||
    bad "bucketed's exposed exchange ${xb:-nothing} ms is not below fused's ${xf:-nothing} ms"
# the backward is charged once: bucketed's compute is fused's, slowed at most by the
# reductions its buckets charge on the same host while it runs (b = 32: a layer's
# weight products, ~5 ms, outweigh the whole exchange)
for v in fused bucketed; do
    SMPIRUN=$SMPIRUN "$here/build/bin/study" train-sim --nodes 4 --compute flops:50 --fold yes --bench 2 \
        --sync $v --csv "$tmp/once_$v.csv" -- $deep --batch 32 > /dev/null 2> "$tmp/once.err" ||
        { bad "train-sim --sync $v --batch 32: exit $?"; tail -n 5 "$tmp/once.err"; }
done
cf=$(col "$tmp/once_fused.csv" compute_ms --all 2>/dev/null)
cb=$(col "$tmp/once_bucketed.csv" compute_ms --all 2>/dev/null)
tb=$(col "$tmp/once_bucketed.csv" exchange_ms --all 2>/dev/null)
awk -v f="${cf:-0}" -v b="${cb:-0}" -v t="${tb:-0}" 'BEGIN { exit !(f > 0 && b >= f && b <= f + t) }' &&
    ok "bucketed's compute $cb ms = fused's $cf ms + at most its $tb ms of exchange" ||
    bad "bucketed's compute ${cb:-nothing} ms against fused's ${cf:-nothing} ms and its ${tb:-nothing} ms of exchange"
# the same training, bits and all, as the real build under mpirun and in one process:
# --allreduce ordered sums in one order whatever the platform; bucketed's (buckets summed
# after the backward ran, while its charge is replayed) as fused's
hash_of() { sed -n 's/.*parameters sha256 \([0-9a-f]*\).*/\1/p' "$1"; }
same_run() { # A B: A.out and B.out's parameter bits; A.csv and B.csv's 20 rows as
    # printed, train loss and valid ppl equal or one unit of the last digit apart (the
    # losses' double sums over ranks are added in another order: test/mpi/train.sh)
    h=$(hash_of "$1.out")
    [ -n "$h" ] && [ "$h" = "$(hash_of "$2.out")" ] &&
    "$study_bin" compare "$1.csv" "$2.csv" --equal tokens --abs train_loss=1.5e-6,valid_ppl=1.5e-4 \
        --rows 20 > /dev/null 2>&1
}
"$gen" --platform taihulight --nodes 4 --out "$tmp/tl4" > /dev/null
for s in fused bucketed; do
    RS_SMPI_COMPUTE=flops:50 timeout 120 $SMPIRUN -np 4 -platform "$tmp/tl4.xml" -hostfile "$tmp/tl4.hosts" \
        $cfg --cfg=smpi/allreduce:rdb "$train" $tiny --workers 4 --steps 20 --eval-every 1 \
        --allreduce ordered --sync $s --bucket-mib 0.004 --log "$tmp/smpi_$s.csv" > "$tmp/smpi_$s.out" \
        2> "$tmp/curve.err" || { bad "rnn-train-smpi --sync $s --steps 20: exit $?"; tail -n 5 "$tmp/curve.err"; }
done
same_run "$tmp/smpi_fused" "$tmp/smpi_bucketed" &&
    ok "20 steps under SMPI: --sync bucketed (4 KiB buckets) gives fused's parameter bits and rows" ||
    { bad "bucketed's and fused's runs differ under SMPI:"; paste -d' ' "$tmp/smpi_fused.csv" "$tmp/smpi_bucketed.csv" | head -n 5; }
if command -v "${MPIRUN:-mpirun}" > /dev/null; then
    . "$here/test/mpi/env.sh"
    mpirun_q 4 "$here/build/bin/rnn-train" $tiny --workers 4 --steps 20 --eval-every 1 \
        --allreduce ordered --log "$tmp/mpi_curve.csv" > "$tmp/mpi_curve.out" 2> "$tmp/curve.err" ||
        { bad "mpirun -np 4 rnn-train: exit $?"; tail -n 5 "$tmp/curve.err"; }
    "$here/build/bin/rnn-train" $tiny --workers 4 --steps 20 --eval-every 1 \
        --log "$tmp/one_curve.csv" > "$tmp/one_curve.out" 2> "$tmp/curve.err" ||
        { bad "one process rnn-train --workers 4: exit $?"; tail -n 5 "$tmp/curve.err"; }
    same_run "$tmp/mpi_curve" "$tmp/smpi_fused" && same_run "$tmp/one_curve" "$tmp/smpi_fused" &&
        ok "20 steps under SMPI: the parameter bits and rows of mpirun -np 4 and of one process" ||
        { bad "the SMPI, mpirun and one-process runs differ:"; paste -d' ' "$tmp/mpi_curve.csv" "$tmp/smpi_fused.csv" | head -n 5; }
else
    echo "skip the run against mpirun: ${MPIRUN:-mpirun} not found"
fi
echo "== rnn-train-smpi: evaluation charged; --eval-ranks 1 on 4 nodes against serial"
for run in 1 2; do
    SMPIRUN=$SMPIRUN "$here/build/bin/study" train-sim --nodes 4 --compute flops:50 --fold no --bench 4 \
        --eval-every 2 --eval-ranks 1 --csv "$tmp/er$run.csv" -- $tiny > /dev/null 2> "$tmp/er$run.err" ||
        { bad "train-sim --eval-ranks 1 run $run: exit $?"; tail -n 5 "$tmp/er$run.err"; }
done
# serial: one rank scores the 3 groups of the same layout while its loop waits
SMPIRUN=$SMPIRUN "$here/build/bin/study" train-sim --nodes 1 --compute flops:50 --fold no --bench 4 \
    --eval-every 2 --csv "$tmp/ser.csv" -- $tiny --workers 3 > /dev/null 2> "$tmp/ser.err" ||
    { bad "train-sim serial evaluation: exit $?"; tail -n 5 "$tmp/ser.err"; }
xr=$(col "$tmp/er1.csv" eval_exposed_ms --all 2>/dev/null); xs=$(col "$tmp/ser.csv" eval_exposed_ms --all 2>/dev/null)
a=$(strip "$tmp/er1.csv" 2>/dev/null); b=$(strip "$tmp/er2.csv" 2>/dev/null)
if [ -s "$tmp/er1.csv" ] && [ -n "$a" ] && [ "$a" = "$b" ] &&
    [ "$(col "$tmp/er1.csv" ranks --all)" = 3 ] &&
    awk -v r="${xr:-x}" -v s="${xs:-0}" 'BEGIN { exit !(r ~ /^[0-9.]+$/ && s > 0 && r < s) }'; then
    ok "--eval-ranks 1: two runs identical; exposed evaluation $xr ms per step, serial $xs ms"
else
    bad "--eval-ranks 1: runs differ or exposed ${xr:-nothing} ms not below serial ${xs:-nothing} ms"
fi

echo "== platform-gen: the sensitivity factors"
# x2 bandwidth and /2 latencies as factors make the platform the values given outright make
"$gen" --platform taihulight --nodes 300 --bandwidth-factor 2 --latency-factor 0.5 --out "$tmp/fac" > /dev/null &&
    "$gen" --platform taihulight --nodes 300 --node-gbytes-per-s 32 --node-lat-us 0.2 --switch-lat-us 0.1 \
        --uplink-lat-us 0.25 --central-lat-us 0.25 --out "$tmp/given" > /dev/null &&
    "$gen" --platform taihulight --nodes 300 --out "$tmp/base" > /dev/null &&
    cmp -s "$tmp/fac.xml" "$tmp/given.xml" && ! cmp -s "$tmp/fac.xml" "$tmp/base.xml" &&
    "$gen" --platform taihulight --describe --latency-factor 0.5 | grep -q "^node_lat_us 0.2 .*times 0.5 (--latency-factor)" &&
    ok "--bandwidth-factor 2 --latency-factor 0.5: the platform of 32 GB/s and halved latencies, said in --describe" ||
    bad "platform-gen's factors: $(diff "$tmp/fac.xml" "$tmp/given.xml" | head -n 4 | tr '\n' ' ')"

echo "== bad input: exit 2, one line on stderr"
expect2() { # FRAGMENT CMD...
    frag=$1; shift
    "$@" > /dev/null 2> "$tmp/e"; rc=$?
    lines=$(wc -l < "$tmp/e")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$frag" "$tmp/e"; then ok "$(cat "$tmp/e")"
    else bad "$*: exit $rc (want 2), $lines lines (want 1 with '$frag'): $(head -n 3 "$tmp/e" | tr '\n' ' ')"; fi
}
expect2 "impossible" "$gen" --platform taihulight --nodes 64 --node-gbytes-per-s 0 --out "$tmp/x"
expect2 "impossible" "$gen" --platform fattree --nodes 64 --oversubscription -2 --out "$tmp/x"
expect2 "impossible" "$gen" --platform taihulight --nodes 64 --latency-factor 0 --out "$tmp/x"
expect2 "larger than the platform" "$gen" --platform taihulight --nodes 2048 --groups 4 --out "$tmp/x"
expect2 "larger than the platform" "$gen" --platform torus --torus 4x4 --nodes 17 --out "$tmp/x"
expect2 "not a torus" "$gen" --platform torus --torus 8x --nodes 8 --out "$tmp/x"
expect2 "unknown platform" "$gen" --platform dragonfly --nodes 8 --out "$tmp/x"
expect2 "unknown placement" "$gen" --platform taihulight --nodes 8 --placement snake --out "$tmp/x"
expect2 "never overwritten" "$gen" --platform taihulight --nodes 64 --out "$tmp/tl64"
expect2 "unknown platform" "$here/build/bin/study" simulate --platform dragonfly
expect2 "not a node count" "$here/build/bin/study" simulate --nodes 0,64
expect2 "not a size" "$here/build/bin/study" simulate --sizes 4,banana
expect2 "unknown algorithm 'fast'" "$here/build/bin/study" simulate --algo ring,fast
expect2 "larger than the platform" "$here/build/bin/study" simulate --nodes 2048 --platform-args "--groups 4"
expect2 "impossible" "$here/build/bin/study" simulate --nodes 64 --platform-args "--node-gbytes-per-s 0"
expect2 "need --keep" "$here/build/bin/study" simulate --plan
expect2 "no planned simulations" "$here/build/bin/study" simulate --keep "$tmp/empty" --run-job j0001
expect2 "unknown mode 'fast'" "$here/build/bin/study" train-sim --compute fast
expect2 "not a node count" "$here/build/bin/study" train-sim --nodes 4,zero
expect2 "expected auto, yes or no" "$here/build/bin/study" train-sim --fold maybe
expect2 "needs --compute flops" "$here/build/bin/study" train-sim --sync bucketed --compute sample:2
# rnn-train-smpi itself (its note on sampled numbers comes first, and smpirun's own lines)
RS_SMPI_COMPUTE=sample:1 timeout 60 $SMPIRUN -np 2 -platform "$tmp/tl4.xml" -hostfile "$tmp/tl4.hosts" \
    $cfg "$train" $tiny --sync bucketed --steps 1 > /dev/null 2> "$tmp/e"; rc=$?
[ $rc -eq 2 ] && [ "$(grep -c 'bucketed under SMPI needs compute charged by flops' "$tmp/e")" -eq 1 ] &&
    ok "rnn-train-smpi --sync bucketed in sample mode: exit 2, $(grep -c 'rnn-train' "$tmp/e") lines of its own" ||
    bad "rnn-train-smpi --sync bucketed in sample mode: exit $rc (want 2): $(tail -n 2 "$tmp/e" | tr '\n' ' ')"
expect2 "leaves none of the 4 nodes" "$here/build/bin/study" train-sim --nodes 4 --eval-ranks 4
expect2 "more than --bench 1" "$here/build/bin/study" train-sim --eval-every 2

# make simulate (study run simulate): a bad SIM_JOBS makes no folder; a sweep whose
# simulations all fail (smpirun replaced by false) exits 1 with one line, no table,
# report, figure or temporary, its logs kept
SIM_JOBS=x "$here/build/bin/study" run simulate "$tmp/sw0" > /dev/null 2> "$tmp/e"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/e")" -eq 1 ] && [ ! -e "$tmp/sw0" ] && ok "sweep SIM_JOBS=x: $(cat "$tmp/e")" ||
    bad "sweep SIM_JOBS=x: exit $rc, $(ls -d "$tmp/sw0" 2>/dev/null): $(cat "$tmp/e")"
# smpirun (SimGrid's shell script) splits its arguments at spaces: a folder with one is
# refused up front, not failed point by point
"$here/build/bin/study" run simulate "$tmp/a b" > /dev/null 2> "$tmp/e"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/e")" -eq 1 ] && [ ! -e "$tmp/a b" ] && grep -q "splits its arguments" "$tmp/e" &&
    ok "sweep into a folder with a space: $(cat "$tmp/e")" || bad "sweep into 'a b': exit $rc: $(cat "$tmp/e")"
expect2 "splits its arguments" "$here/build/bin/study" simulate --nodes 2 --sizes 4 --algo ring --keep "$tmp/k b"
NETCHECK=2 "$here/build/bin/study" run simulate "$tmp/sw0" > /dev/null 2> "$tmp/e"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/e")" -eq 1 ] && [ ! -e "$tmp/sw0" ] && grep -q NETCHECK "$tmp/e" &&
    ok "sweep NETCHECK=2: $(cat "$tmp/e")" || bad "sweep NETCHECK=2: exit $rc: $(cat "$tmp/e")"
echo "x --nodes 4 --algo ring --sizes 4" > "$tmp/parts1"
NETCHECK=0 DP_SIM_NODES= SIM_PARTS="$tmp/parts1" SMPIRUN=false "$here/build/bin/study" run simulate "$tmp/sw1" > /dev/null 2> "$tmp/e"; rc=$?
# (its only entry left is the work folder with the logs the line names)
[ $rc -eq 1 ] && [ "$(wc -l < "$tmp/e")" -eq 1 ] && [ "$(ls "$tmp/sw1")" = simulate_work ] &&
    grep -q "^simulate: every point failed (their logs: $tmp/sw1/simulate_work/\*/jobs/\*.err); no table" "$tmp/e" &&
    ls "$tmp"/sw1/simulate_work/x/jobs/*.err > /dev/null &&
    ok "a sweep whose simulations all failed: exit 1, no table: $(cat "$tmp/e")" ||
    bad "a sweep whose simulations all failed: exit $rc, left $(ls "$tmp/sw1" | tr '\n' ' '): $(cat "$tmp/e")"

echo "   check-smpi took $(( $(date +%s) - start )) s"
[ $fail -eq 0 ] && echo "check-smpi: all SMPI tests passed" || echo "check-smpi: FAILED"
exit $fail
