#!/bin/sh
# run.sh — the scaling studies' driver and the convergence study (target check-scaling):
#   1. study run-points (the pool): every point runs once; a rerun runs nothing; a failed point is
#      recorded, the others still run, exit 1, and the rerun moves it aside and retries;
#      an infeasible point is recorded and not run; JOBS=2 runs the same points; a
#      stopped rnn-train point with checkpoints continues in its folder (the same log);
#      snapshot.sh archives the finished points only;
#   2. study run converge on a tiny grid (N = 1, 2, 4: the fit needs three; hidden 16; target 2.3 x kn3, a few
#      hundred steps): the outputs exist, coarse points are refined until every count is
#      resolved, a rerun on the folder runs no point, and a second folder with the same
#      seed gives the same steps-to-target for every point; every point names its batch's
#      recorded GEMM plan (GEMM=plan) and its command run again writes the same log;
#   2b. scaling-fit lists a censored best point (no steps_to_target) and fits the rest;
#   3. bad settings (the grid's numbers; MODEL, SEED, GEMM, THREADS, B_LIST checked by
#      rnn-train --check-args): exit 2 and one line naming the setting and the real
#      cause, before anything is created (no folder; a resumed folder's saved settings
#      untouched, a different value refused); STUDY_CHECK=1 checks alone;
#   4. `study collect compose` on a fake run folder: efficiency 1 at N = 1, the step's
#      parts and per-tensor's sum, time to target = steps x step time from the best
#      point, the composition check's arithmetic, the report section replaced on a
#      rerun, a missing compute point: exit 2 and one line; compose.sh's bad settings:
#      exit 2 and one line, before any point runs; where the regime study ran, every
#      measured point on its corpus and at its b too;
#   5. study run models at a 1 s budget (hidden 8, 16): rows with finite perplexities,
#      completion accuracy in [0, 1], the budget spent; a rerun runs no point and the
#      report holds its section once; bad settings (CORPUS, OPT_FLAGS, SEED, ...): exit
#      2, one line, nothing created;
#   6. a study whose points all failed (models.sh; `study collect converge` on a fake
#      folder): exit 1, one line saying so and where the logs are, no table or figure.
# Exits 1 on failure.
set -u
cd "$(dirname "$0")/../.."
. test/lib.sh
. scaling/study/get.sh   # col, csv_rows: every table read back through build/bin/study
test_begin scaling
top=$(pwd)

echo "== study run-points: points, resume, failures"
mkdir "$tmp/r1"
# argument vectors, each word escaped (\s a space): the test's own sh -c, not the pool's
cat > "$tmp/p1.txt" <<'PTS'
# a comment
one 1 0 sh -c echo\sx\s>>\scount.txt;\secho\sdone\s>\sout.txt
two 2 0,1 sh -c echo\sx\s>>\scount.txt;\sexit\s1
three 1 0 sh -c echo\sx\s>>\scount.txt;\s[\s-f\s../../go\s]\s||\sexit\s3
four 0 x too many streams for the corpus
PTS
JOBS=2 build/bin/study run-points "$tmp/r1" "$tmp/p1.txt" > "$tmp/out1" 2>&1
rc=$?
[ $rc -eq 1 ] && ok "a failed point: exit 1" || { bad "a failed point: exit $rc"; cat "$tmp/out1"; }
[ -f "$tmp/r1/points/one/out.txt" ] && [ -f "$tmp/r1/points/two/rc" ] && ok "the other points ran" ||
    bad "the other points did not all run"
grep -q "three failed (exit 3)" "$tmp/out1" && ok "the failure is named" || bad "no line names the failed point"
grep -q "too many streams" "$tmp/r1/points/four/infeasible" 2>/dev/null && [ ! -f "$tmp/r1/points/four/rc" ] &&
    ok "an infeasible point is recorded, not run" || bad "the infeasible point"
grep -q "\[3/4\]" "$tmp/out1" && grep -q "ETA" "$tmp/out1" && ok "progress with done/total and ETA" ||
    bad "no progress line"
touch "$tmp/r1/go"
build/bin/study run-points "$tmp/r1" "$tmp/p1.txt" > "$tmp/out2" 2>&1
rc=$?
n1=$(cat "$tmp/r1/points/one/count.txt" | wc -l); n2=$(cat "$tmp/r1/points/two/count.txt" | wc -l)
[ $rc -eq 0 ] && [ "$n1" -eq 1 ] && [ "$n2" -eq 1 ] && ok "the rerun skips done points and retries the failed one" ||
    { bad "rerun: exit $rc, point one ran $n1 times, two $n2 times"; cat "$tmp/out2"; }
[ -f "$tmp/r1/points/three.attempt-1/rc" ] && [ "$(cat "$tmp/r1/points/three/rc")" = 0 ] &&
    ok "the failed attempt is kept aside" || bad "the failed attempt was not kept"
build/bin/study run-points "$tmp/r1" "$tmp/p1.txt" > "$tmp/out3" 2>&1
grep -q "4 of 4 points done" "$tmp/out3" && ! grep -q "\[" "$tmp/out3" && ok "a finished study runs nothing" ||
    { bad "a finished study ran again"; cat "$tmp/out3"; }
echo "point,status" > "$tmp/r1/points.csv"   # a stale one of RUN's: written anew, not a failure
sh scaling/study/snapshot.sh "$tmp/r1" "$tmp/snap" > "$tmp/out-snap" 2>&1
snap_rc=$?
tar -tJf "$tmp/snap/points.tar.xz" 2> /dev/null | grep -o '^points/[^/]*/$' | sort > "$tmp/snapped"
printf 'points/one/\npoints/three/\npoints/two/\n' > "$tmp/want"
cmp -s "$tmp/snapped" "$tmp/want" && [ -d "$tmp/r1/points/three.attempt-1" ] && [ $snap_rc -eq 0 ] &&
    [ "$(grep -c . "$tmp/snap/points.csv")" -ge 4 ] && [ "$(grep -c . "$tmp/r1/points.csv")" -eq 1 ] &&
    ok "snapshot.sh: the finished points archived, attempts and the infeasible left out, RUN untouched" ||
    { bad "snapshot.sh archived: $(cat "$tmp/snapped" | tr '\n' ' ')"; cat "$tmp/out-snap"; }
build/bin/study point "$tmp/r1" "$tmp/p1.txt" nosuch 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok "an unknown point: exit 2, one line" ||
    bad "an unknown point: exit $rc: $(cat "$tmp/err")"

echo "== study point: a stopped point that checkpoints continues where it stopped"
# rnn-train --checkpoint ckpt --resume-if-any, stopped (SIGTERM) once it has a checkpoint:
# the rerun continues in the same folder, and its log is the uninterrupted run's
mkdir "$tmp/r2"
echo "long 1 0 rnn-train --model lstm --hidden 16 --classes 50 --bptt 20 --batch 4 --threads 1 --seed 3 \
--gemm blocked --schedule const --steps 1500 --eval-every 25 --eval-tokens 2000 --checkpoint ckpt \
--resume-if-any --log log.csv" > "$tmp/p2.txt"
build/bin/study point "$tmp/r2" "$tmp/p2.txt" long > "$tmp/out4" 2>&1 &
pid=$!
for i in $(seq 100); do ls "$tmp/r2/points/long/ckpt" 2> /dev/null | grep -q bin && break; sleep 0.1; done
pkill -TERM -f "^rnn-train --model lstm --hidden 16 --classes 50 --bptt 20 --batch 4 --threads 1 --seed 3"
wait $pid
rc=$?
[ $rc -eq 143 ] && [ ! -f "$tmp/r2/points/long/rc" ] && ok "the stopped point: exit 143, pending" ||
    bad "the stopped point: exit $rc, rc file: $(cat "$tmp/r2/points/long/rc" 2>&1)"
cpu1=$(cat "$tmp/r2/points/long/cpu_seconds" 2> /dev/null)
build/bin/study point "$tmp/r2" "$tmp/p2.txt" long > "$tmp/out5" 2>&1
rc=$?
cpu2=$(cat "$tmp/r2/points/long/cpu_seconds" 2> /dev/null)
awk -v a="$cpu1" -v b="$cpu2" 'BEGIN { exit !(a > 0 && b > a) }' &&
    ok "cpu_seconds: the stopped run's CPU time, then the continued run's added to it ($cpu1 -> $cpu2)" ||
    bad "cpu_seconds: '$cpu1' at the stop, '$cpu2' when done"
mkdir "$tmp/r2/again" &&
    (cd "$tmp/r2/again" && PATH="$top/build/bin:$PATH" sh -c "$(cat ../points/long/cmd)" > out.txt 2>&1)
runlog() { col "$1" step,tokens,train_loss,valid_ppl,lr --all; }
a=$(runlog "$tmp/r2/again/log.csv"); b=$(runlog "$tmp/r2/points/long/log.csv")
[ $rc -eq 0 ] && [ ! -e "$tmp/r2/points/long.attempt-1" ] && grep -q "^resume" "$tmp/r2/points/long/stdout.txt" &&
    [ -n "$a" ] && [ "$a" = "$b" ] && [ ! -e "$tmp/r2/points/long/ckpt" ] &&
    ok "the rerun continued in its folder from the checkpoint: the uninterrupted run's log; ckpt/ removed once done" ||
    { bad "the rerun (exit $rc) did not continue the point, or its log differs"; tail -n 3 "$tmp/r2/points/long/stderr.txt"; }

echo "== study run converge: a tiny study, rerun, the same seed twice"
# converge.sh on a tiny grid into folder $1 (its settings go with the environment)
tiny() {
    N_LIST='1 2 4' B_LIST=2 LR_FACTORS=1 TARGET_X=2.3 OPT_N='' WARMUP_N='' EXTEND=0 JOBS=2 CAP_X=30 \
    MODEL='--model lstm --hidden 16 --classes 50 --bptt 20' EVAL_STREAMS=4 build/bin/study run converge "$1"
}
for r in c1 c2; do
    tiny "$tmp/$r" > "$tmp/$r.out" 2>&1 || { bad "converge.sh $r exited $?"; tail -n 5 "$tmp/$r.out"; }
done
for f in scaling_convergence.csv scaling_fit.json scaling_report.md scaling_bsimple.csv; do
    [ -s "$tmp/c1/$f" ] && ok "converge wrote $f" || bad "converge wrote no $f"
done
# B_simple over training: only N >= 2 logs it (it needs two workers), every value > 0
csv_rows "$tmp/c1/scaling_bsimple.csv" N,b_simple 'function emit() { n++; if (v["N"] < 2 || !(v["b_simple"] > 0)) e = 1 }
    END { exit e || !n }' &&
    ok "scaling_bsimple.csv: b_simple over training at N >= 2, all > 0" || bad "scaling_bsimple.csv rows"
if command -v gnuplot >/dev/null; then
    for f in scaling_convergence scaling_convergence_lr scaling_bsimple; do
        [ -s "$tmp/c1/figures/$f.png" ] && ok "figure $f.png drawn" || bad "no figure $f.png"
    done
fi
steps() { col "$1" point,steps_to_target --all 2> /dev/null | tr '\t' ' '; }
s1=$(steps "$tmp/c1/scaling_convergence.csv"); s2=$(steps "$tmp/c2/scaling_convergence.csv")
if [ -n "$s1" ] && [ "$s1" = "$s2" ] &&
    ! col "$tmp/c1/scaling_convergence.csv" steps_to_target --all 2> /dev/null | grep -q '^$'; then
    ok "the same seed: the same steps-to-target at every point ($(echo "$s1" | tr '\n' ' '))"
else
    bad "steps-to-target differ between two runs of the same seed, or a point missed the target:"
    echo "$s1"; echo "--"; echo "$s2"
fi
csv_rows "$tmp/c1/scaling_convergence.csv" point,resolved 'function emit() { if (v["point"] ~ /-fine$/) f++; if (v["resolved"] != 1) u++ }
    END { exit !(f > 0 && u == 0) }' &&
    ok "coarse points were refined; every count is resolved within 10%" || bad "unresolved or unrefined points"
# GEMM=plan: one gemm-bX point per batch; every grid point names its batch's plan, and
# its command run again writes the same log (the timing columns aside)
nplan=$(ls -d "$tmp/c1/points"/gemm-b* 2>/dev/null | wc -l)
grid_cmds=$(grep -l -- '--eval-streams' "$tmp/c1/points"/b*/cmd | wc -l)
with_plan=$(grep -l -- "--gemm 'auto:other=" "$tmp/c1/points"/b*/cmd | wc -l)
[ "$nplan" -ge 1 ] && [ "$grid_cmds" -ge 2 ] && [ "$with_plan" -eq "$grid_cmds" ] &&
    ok "GEMM=plan: $nplan plan point(s); all $grid_cmds grid points name a recorded plan" ||
    bad "GEMM=plan: $nplan plan points, $with_plan of $grid_cmds grid points name a plan"
p1=$(ls -d "$tmp/c1/points"/b*-n2-* | head -n 1)
mkdir -p "$tmp/again" && (cd "$tmp/again" && PATH="$top/build/bin:$PATH" sh -c "$(cat "$p1/cmd")" > out.txt 2>&1)
nolog() { col "$1" step,tokens,train_loss,valid_ppl,lr,b_simple --all; }
a=$(nolog "$tmp/again/log.csv"); b=$(nolog "$p1/log.csv")
[ -s "$tmp/again/log.csv" ] && [ -n "$a" ] && [ "$a" = "$b" ] &&
    ok "$(basename "$p1") run again: the same log" || bad "$(basename "$p1") run again gave another log"
npts=$(ls "$tmp/c1/points" | wc -l)
tiny "$tmp/c1" > "$tmp/c1b.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -q "^study: \[" "$tmp/c1b.out" && [ "$(ls "$tmp/c1/points" | wc -l)" -eq "$npts" ] &&
    [ -f "$tmp/c1/old-1/scaling_convergence.csv" ] &&
    ok "a rerun on the folder runs no point and keeps the earlier results in old-1/" ||
    { bad "the rerun (exit $rc) ran points or overwrote results"; grep "^study" "$tmp/c1b.out"; }
# the other studies' sections, where they ran in the folder, survive a collect of this one
for sec in regime_report.md scaling_compose.md scaling_models.md; do echo "section of $sec" > "$tmp/c1/$sec"; done
build/bin/study collect converge "$tmp/c1" > /dev/null 2>&1
kept=$(grep -c '^section of ' "$tmp/c1/scaling_report.md")
[ "$kept" -eq 3 ] && grep -q '<!-- scaling_compose -->' "$tmp/c1/scaling_report.md" &&
    ok "collect converge keeps the regime, compose and models sections" || bad "collect converge kept $kept of 3 sections"
rm -f "$tmp/c1/regime_report.md" "$tmp/c1/scaling_compose.md" "$tmp/c1/scaling_models.md"
build/bin/study collect converge "$tmp/c1" > /dev/null 2>&1   # the planted sections gone again

echo "== scaling-fit: a best point that never reached the target is named, not fitted"
printf 'point,N,b,global_batch,steps_to_target,best\na,1,4,4,1000,1\nb,2,4,8,520,1\nc,4,4,16,280,1\nd,8,4,32,160,1\ne,16,4,64,,1\n' \
    > "$tmp/cens.csv"
build/bin/scaling-fit --rows "$tmp/cens.csv" --json "$tmp/cens.json" > "$tmp/cens.out" 2>&1
[ "$(study_get "$tmp/cens.json" fits.0.points)" = 4 ] &&
    [ "$(study_get "$tmp/cens.json" fits.0.censored.0.global_batch)" = 64 ] &&
    grep -q "censored: the best point at N = 16" "$tmp/cens.out" &&
    ok "scaling-fit: 4 points fitted, the censored N = 16 listed in the JSON and the table" ||
    { bad "scaling-fit's censored row:"; cat "$tmp/cens.out"; }

echo "== study run converge: bad settings"
# bad_settings STUDY NAME=VALUE...: scaling/STUDY.sh with each setting exits 2 with one
# line naming the setting, before anything is created (the folder is not made)
bad_settings() {
    study=$1; shift
    for s in "$@"; do
        d="$tmp/bad-$study-$(echo "$s" | cut -d= -f1)"
        env "$s" build/bin/study run "$study" "$d" > /dev/null 2> "$tmp/err"
        rc=$?
        [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && [ ! -e "$d" ] &&
            grep -q "^$study: $(echo "$s" | cut -d= -f1)" "$tmp/err" &&
            ok "$study $s: exit 2, one line, nothing created: $(cat "$tmp/err")" ||
            bad "$study $s: exit $rc, folder $([ -e "$d" ] && echo made || echo absent): $(cat "$tmp/err")"
    done
}
bad_settings converge "N_LIST=0" "LR_FACTORS=fast" "JOBS=x" "GEMM=mkl" "MODEL=--model gru" "SEED=abc" \
    "SEED=-1" "MODEL=--model lstm --hidden 1e300" "MODEL=--model lstm --corpus nonsense" "THREADS=0" \
    "B_LIST=100000"
MODEL="--model gru" build/bin/study run converge "$tmp/bad-gru" > /dev/null 2> "$tmp/err"
grep -q "^converge: MODEL=--model gru: rnn-train says: --model: unknown model 'gru' (expected" "$tmp/err" &&
    ok "the real cause, in rnn-train's words" || bad "MODEL=--model gru: $(cat "$tmp/err")"
# a new folder (no RUN): none is made when a setting is bad
nruns=$(ls results/runs 2>/dev/null | wc -l)
SEED=abc build/bin/study run converge > /dev/null 2>&1; SEEDS=abc build/bin/study run models > /dev/null 2>&1
[ "$(ls results/runs 2>/dev/null | wc -l)" -eq "$nruns" ] && ok "no RUN: no results/runs/ folder made on bad settings" ||
    bad "a results/runs/ folder was made on bad settings"
# STUDY_CHECK=1 (make scaling's first step): every study's checks, nothing created
for st in converge compose models; do
    STUDY_CHECK=1 QUICK=1 build/bin/study run "$st" "$tmp/check-only" > /dev/null 2> "$tmp/err"
    rc=$?
    [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && [ ! -e "$tmp/check-only" ] && ok "STUDY_CHECK=1 $st: exit 0, nothing created" ||
        bad "STUDY_CHECK=1 $st: exit $rc: $(cat "$tmp/err")"
done
STUDY_CHECK=1 CORPUS=nonsense build/bin/study run models "$tmp/check-only" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^models: CORPUS=nonsense: rnn-train says: --corpus nonsense: no such corpus" "$tmp/err" &&
    [ ! -e "$tmp/check-only" ] && ok "STUDY_CHECK=1 CORPUS=nonsense: exit 2 before any study ran" ||
    bad "STUDY_CHECK=1 CORPUS=nonsense: exit $rc: $(cat "$tmp/err")"
# a resumed folder keeps its saved settings: a bad or different one is refused, the file untouched
cp "$tmp/c1/converge_settings.txt" "$tmp/saved.txt"
npts=$(wc -l < "$tmp/c1/converge_points.txt")
for s in "SEED=abc" "SEED=2" "MODEL=--model gru"; do
    env "$s" build/bin/study run converge "$tmp/c1" > /dev/null 2> "$tmp/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && cmp -s "$tmp/saved.txt" "$tmp/c1/converge_settings.txt" &&
        [ "$(wc -l < "$tmp/c1/converge_points.txt")" -eq "$npts" ] &&
        ok "resumed with $s: exit 2, the saved settings untouched: $(cat "$tmp/err")" || bad "resumed with $s: exit $rc: $(cat "$tmp/err")"
done
echo "== study collect compose: the composition on a fake run folder"
# A run folder as study run compose leaves it, with made-up measurements: N = 1, 2, 4;
# b = 2; STRONG_B 8; two tensors of 1000 and 24 floats (1032 with the 64-byte
# alignment), bptt 5; rdb takes 100 us per 4000-byte, 10 us per 96-byte allreduce; compute
# at b = 2 three repeats (12, 10, 9 ms: the fastest, 9, counts).
fake() {
    f=$1; P=$f/points
    mkdir -p "$P/compute-b2-r1" "$P/compute-b2-r2" "$P/compute-b2-r3" "$P/compute-b4-r1" "$P/compute-b8-r1" \
        "$P/eval" "$P/exchange-rdb" "$P/exchange-hier" "$P/exchange-library" "$P/exchange-builtin" "$P/exchange-hier-g16" \
        "$P/check-n4-library" "$P/check-n2-hier"
    printf 'N_LIST="1 2 4"\nB_LIST="2"\nOPT_N=""\nOPT_LIST="adam"\nEVAL_STREAMS="4"\nMODEL="--hidden 16"\n' > "$f/converge_settings.txt"
    printf 'STRONG_B="8"\nNODE_GFLOPS="10"\nNODE_GFLOPS_WHY="set by NODE_GFLOPS"\nNODE_PEAK_GFLOPS="3060"\nEVAL_EVERY="10"\nEVAL_ASYNC="0"\nBENCH_STEPS="10"\nREPEATS="3"\nCHECK_N="4"\nCHECK_ALGOS="library hier"\nGAMMA_GBYTES_PER_S="30"\n' \
        > "$f/compose_settings.txt"
    : > "$f/compose_points.txt"
    printf 'a 1000 1\nb 24 1\nbptt 5\n' > "$f/compose_preset.txt"
    for r in "2 r1 12 0.05" "2 r2 10 0.05" "2 r3 9 0.05" "4 r1 18 0.1" "8 r1 34 0.2"; do
        set -- $r
        printf 'batch,compute_ms,optimizer_ms,gflop_per_step,gflops,params,bptt\n%s,%s,2,%s,5,1032,5\n' $1 $3 $4 > "$P/compute-b$1-$2/bench.csv"
    done
    printf 'batch,eval_ms\n2,100\n' > "$P/eval/bench.csv"
    { echo "algo,p,bytes,p50_us"
      for p in 2 4; do echo "smpi:rdb,$p,4000,100"; echo "smpi:rdb,$p,96,10"; echo "smpi:rdb,$p,4128,$((200 * p))"; done; } \
        > "$P/exchange-rdb/exchange.csv"
    printf 'algo,p,bytes,p50_us\nhier,2,4128,300\nhier,4,4128,350\n' > "$P/exchange-hier/exchange.csv"
    printf 'algo,p,bytes,p50_us\nhier,2,4128,250\nhier,4,4128,400\n' > "$P/exchange-hier-g16/exchange.csv"
    { echo "algo,p,bytes,p50_us"
      for p in 2 4; do echo "smpi:ompi,$p,4000,100"; echo "smpi:ompi,$p,96,10"; echo "smpi:ompi,$p,4128,$((150 * p))"
                       echo "smpi:mpich,$p,4128,$((250 * p))"; done; } > "$P/exchange-library/exchange.csv"
    printf 'algo,p,bytes,p50_us\nsmpi:lr,2,4128,120\nsmpi:lr,4,4128,700\n' > "$P/exchange-builtin/exchange.csv"
    # the platform's band at the largest N: Open MPI's choice at 600 us there, 400-1000 off by 2x
    for v in bw2:400 bwhalf:1000 lat2:620 lathalf:590; do
        mkdir -p "$P/exchange-platform-${v%%:*}"
        printf 'algo,p,bytes,p50_us\nsmpi:ompi,4,4128,%s\n' "${v#*:}" > "$P/exchange-platform-${v%%:*}/exchange.csv"
    done
    printf 'workers,allreduce,compute,step_ms_median,compute_ms,exchange_exposed_ms,optimizer_ms\n4,library,flops:10,6,5,0.8,0.0008\n' \
        > "$P/check-n4-library/check.csv"
    printf 'workers,allreduce,compute,step_ms_median,compute_ms,exchange_exposed_ms,optimizer_ms\n2,hier,flops:10,9,5,4,0.0008\n' \
        > "$P/check-n2-hier/check.csv"
    printf 'N,b,optimizer,steps_to_target,eval_every,best\n1,2,momentum,400,20,1\n2,2,momentum,210,10,1\n4,2,momentum,120,5,1\n4,2,momentum,150,5,0\n' \
        > "$f/scaling_convergence.csv"
}
fake "$tmp/f1"
build/bin/study collect compose "$tmp/f1" > "$tmp/f1.out" 2>&1 ||
    { bad "study collect compose on the fake folder: exit $?"; cat "$tmp/f1.out"; }
# F CONDITION: every data row of CSV F satisfies the awk CONDITION (over v[column])
# (near(x, y): equal to 1e-5 relative, the tables' 6 significant digits)
rows_ok() { csv_rows "$1" '*' 'function near(x, y) { return (x - y) ^ 2 <= (1e-5 * y) ^ 2 + 1e-18 }
    function emit() { n++; if (!('"$2"')) { bad++; print "  row " n ": " $0 } }
    END { exit !(n > 0 && !bad) }'; }
for t in weak strong; do
    rows_ok "$tmp/f1/scaling_$t.csv" 'v["nodes"] != 1 || v["efficiency"] == 1' &&
        ok "$t: efficiency 1 at N = 1 for every node and scheme" || bad "$t: efficiency is not 1 at N = 1"
done
rows_ok "$tmp/f1/scaling_weak.csv" 'v["node"] != "core" || v["nodes"] != 1 || v["step_ms"] == 9 + 2 + 100 / 10' &&
    ok "weak, this core, N = 1: step = compute (the fastest repeat) + optimizer + evaluation / eval_every (21 ms)" ||
    bad "weak N = 1 step"
rows_ok "$tmp/f1/scaling_weak.csv" 'v["node"] != "core" || (v["compute_ms_min"] == 9 && v["compute_ms_max"] == 12)' &&
    ok "weak: the repeats' spread" || bad "weak: the repeats' spread"
rows_ok "$tmp/f1/scaling_weak.csv" 'v["scheme"] != "per-tensor" || v["nodes"] != 2 || v["exchange_ms"] == 0.55' &&
    ok "per-tensor at N = 2: bptt x the tensors' allreduces (5 x 110 us)" || bad "per-tensor exchange"
rows_ok "$tmp/f1/scaling_strong.csv" 'v["nodes"] != 4 || v["b"] == 2' && ok "strong: b = STRONG_B / N" || bad "strong: per-node batch"
# the band: weak, this core, b = 2, N = 4: a step of 21 ms + the exchange, so 21 / 22 and
# 21 / 21.4 with the exchange at 1000 and 400 us; only fused-library rows at N = 4 have it,
# and fused-best never picks a band's platform
rows_ok "$tmp/f1/scaling_weak.csv" '(v["scheme"] == "fused-library" && v["nodes"] == 4) == (v["efficiency_lo"] != "") &&
    (v["node"] != "core" || v["efficiency_lo"] == "" || (near(v["efficiency_lo"], 21 / 22) &&
    near(v["efficiency_hi"], 21 / 21.4) && near(v["efficiency"], 21 / 21.6))) && v["algo"] !~ /@/' &&
    grep -q "^- fused-library, b = 2, N = 4: efficiency 0.972, \*\*0.955-0.981\*\* with the platform" "$tmp/f1/scaling_compose.md" &&
    ok "the platform band: weak at N = 4, 0.955-0.981 around 0.972, in the table and the report" ||
    bad "the platform band: $(grep -m2 'fused-library, b' "$tmp/f1/scaling_compose.md")"
# the regime study's rows: its best rate per (target, optimizer, N) x T(N), the speedup
# against N = 1 of the same target and optimizer
fake "$tmp/f4"; printf 'B="2"\n' > "$tmp/f4/regime_settings.txt"
printf 'target,target_ppl,optimizer,N,global_batch,lr,rule,seed,steps,reached,steps_cap,b_simple\nbest,60,adam,1,2,0.1,grid,1,300,1,900,\nbest,60,adam,2,4,0.1,sqrt,1,160,1,900,\nbest,60,adam,2,4,0.1,sqrt,2,170,1,900,\nbest,60,adam,4,8,0.1,sqrt,1,,0,900,\nbest,60,momentum,1,2,1,grid,1,320,1,900,\nbest,60,any,1,2,0.1,grid,1,300,1,900,\nbest,60,any,2,4,0.1,sqrt,1,160,1,900,\n' \
    > "$tmp/f4/regime_steps.csv"
build/bin/study collect compose "$tmp/f4" > /dev/null 2>&1 &&
    rows_ok "$tmp/f4/scaling_time_to_target.csv" 'v["study"] != "regime" || (v["target"] == "best" && v["nodes"] < 4 &&
        near(v["time_to_target_s"], v["steps_to_target"] * v["step_ms"] / 1000) &&
        (v["nodes"] != 2 || v["steps_to_target"] == 160) && (v["nodes"] != 1 || v["speedup"] == 1))' &&
    [ "$(col "$tmp/f4/scaling_time_to_target.csv" nodes --where study=regime,node=gflops,scheme=fused-library --all | wc -l)" -eq 5 ] &&
    rows_ok "$tmp/f4/scaling_regime_time.csv" 'near(v["time_to_target_s"], v["steps_to_target"] * v["step_ms"] / 1000) &&
        v["b"] * v["nodes"] == v["global_batch"] && (v["nodes"] != 1 || v["speedup"] == 1)' &&
    [ "$(col "$tmp/f4/scaling_regime_time.csv" nodes --where node=gflops,scheme=fused-best,optimizer=adam --all | wc -l)" -ge 2 ] &&
    grep -q "^### Time to target in the Sunway TaihuLight study's regime" "$tmp/f4/scaling_report.md" &&
    grep -q "^| 1 | .* s / .* s (2) |" "$tmp/f4/scaling_report.md" &&
    ok "the regime study's rows: seed 1, reached, time = steps x T(N); at each N the best B; in the report" ||
    { bad "the regime study's rows"; cat "$tmp/f4/scaling_regime_time.csv" | head -5; }
# a per-node batch past COMPUTE_MAX_B is measured as groups of a divisor: b = 8 as 2 x 4
fake "$tmp/f3"; rm -r "$tmp/f3/points/compute-b8-r1"; echo 'COMPUTE_MAX_B="4"' >> "$tmp/f3/compose_settings.txt"
build/bin/study collect compose "$tmp/f3" > /dev/null 2>&1 &&
    rows_ok "$tmp/f3/scaling_strong.csv" 'v["nodes"] != 1 || v["node"] != "core" || (v["compute_ms"] == 36 && v["compute_ms_min"] == 36)' &&
    ok "strong, N = 1, b = 8 past COMPUTE_MAX_B 4: compute = 2 x b = 4's (36 ms)" || bad "strong: grouped compute"
# the library's own choice, the best built-in per N, hier at its faster group size
rows_ok "$tmp/f1/scaling_weak.csv" 'v["nodes"] == 1 || v["scheme"] != "fused-library" || (v["algo"] == "smpi:ompi" && near(v["exchange_ms"], 0.15 * v["nodes"]))' &&
    rows_ok "$tmp/f1/scaling_weak.csv" 'v["nodes"] == 1 || v["scheme"] != "fused-mpich" || near(v["exchange_ms"], 0.25 * v["nodes"])' &&
    ok "fused-library is Open MPI's choice (SMPI's ompi), fused-mpich MPICH's" || bad "the library schemes"
rows_ok "$tmp/f1/scaling_weak.csv" 'v["scheme"] != "fused-best" || v["nodes"] != 2 || (v["algo"] == "smpi:lr" && near(v["exchange_ms"], 0.12))' &&
    rows_ok "$tmp/f1/scaling_weak.csv" 'v["scheme"] != "fused-best" || v["nodes"] != 4 || (v["algo"] == "smpi:ompi" && near(v["exchange_ms"], 0.6))' &&
    ok "fused-best: the fastest built-in at each N (lr at 2, ompi at 4)" || bad "fused-best"
# N = 2: the simulated trainer's hier (4 ms) is more than 5% off the benchmark's (0.3): its own;
# N = 4, no trainer there: the faster group size
rows_ok "$tmp/f1/scaling_weak.csv" 'v["scheme"] != "fused-hier" || v["nodes"] != 2 || (v["algo"] == "hier (train-sim)" && near(v["exchange_ms"], 4))' &&
    rows_ok "$tmp/f1/scaling_weak.csv" 'v["scheme"] != "fused-hier" || v["nodes"] != 4 || (v["algo"] == "hier" && near(v["exchange_ms"], 0.35))' &&
    ok "fused-hier: the trainer's exchange where the benchmark is >5% off it, else the faster group size" ||
    bad "fused-hier"
cp -r "$tmp/f1" "$tmp/f1h"
sed -i 's/^2,hier,flops:10,9,5,4,/2,hier,flops:10,5.3,5,0.3,/' "$tmp/f1h/points/check-n2-hier/check.csv"
build/bin/study collect compose "$tmp/f1h" > /dev/null 2>&1 &&
    rows_ok "$tmp/f1h/scaling_weak.csv" 'v["scheme"] != "fused-hier" || v["nodes"] != 2 || (v["algo"] == "hier-g16" && near(v["exchange_ms"], 0.25))' &&
    ok "fused-hier: the trainer within 5% of the benchmark: the faster group size (g16)" || bad "fused-hier within 5%"
rows_ok "$tmp/f1/scaling_time_to_target.csv" 'near(v["time_to_target_s"], v["steps_to_target"] * v["step_ms"] / 1000)' &&
    ok "time to target = steps x step time, every row" || bad "time to target is not steps x step time"
[ "$(col "$tmp/f1/scaling_time_to_target.csv" steps_to_target --where nodes=4 --all | grep -cx 120)" -eq 12 ] &&
    ok "time to target takes the best point per (N, b)" || bad "time to target used a point that is not the best"
rows_ok "$tmp/f1/scaling_compose_check.csv" 'near(v["composed_step_ms"], 5 + 4 * 1032 * 6 / 30e6 + (v["nodes"] == 4 ? 0.8 : 0.3)) &&
    (v["rel_diff"] - v["composed_step_ms"] / v["simulated_step_ms"] + 1) ^ 2 < 1e-10 && v["within_10pct"] == (v["rel_diff"] ^ 2 < 0.01)' &&
    ok "the check: composed = flops / G + optimizer + exchange, against train-sim's step" || bad "the composition check"
grep -q "^## Weak and strong scaling" "$tmp/f1/scaling_report.md" && ok "the report section" || bad "no report section"
build/bin/study collect compose "$tmp/f1" > /dev/null 2>&1
[ "$(grep -c "^## Weak and strong scaling" "$tmp/f1/scaling_report.md")" -eq 1 ] &&
    [ "$(grep -c '^<!-- scaling_compose -->$' "$tmp/f1/scaling_report.md")" -eq 1 ] &&
    [ -f "$tmp/f1/old-1/scaling_weak.csv" ] && ok "a rerun replaces the section and keeps the earlier tables in old-1/" ||
    bad "a rerun appended the section twice or overwrote the tables"
rm "$tmp/f1/points/eval/bench.csv" "$tmp/f1/points/compute-b2-r1/bench.csv"
build/bin/study collect compose "$tmp/f1" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok "no compute point at the study's b: exit 2, one line" ||
    bad "a missing compute point: exit $rc: $(cat "$tmp/err")"
mkdir "$tmp/f2" && cp "$tmp/f1/converge_settings.txt" "$tmp/f2/"
for s in "STRONG_B=0" "NODE_GFLOPS=fast" "CHECK_ALGOS=ring" "EVAL_ASYNC=yes"; do
    env $s build/bin/study run compose "$tmp/f2" > /dev/null 2> "$tmp/err"
    rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && [ ! -f "$tmp/f2/compose_settings.txt" ] && [ ! -d "$tmp/f2/points" ] &&
        ok "compose.sh $s: exit 2, one line, nothing run" || bad "compose.sh $s: exit $rc: $(cat "$tmp/err")"
done
# where the regime study ran, the step is measured on its data and at its b (the two
# studies share the model; the corpus sets the class sizes): the plan, then a stop
mkdir "$tmp/f5" && { cat "$tmp/f1/converge_settings.txt"; printf 'THREADS="1"\nSEED="1"\n'; } > "$tmp/f5/converge_settings.txt"
printf 'CORPUS="mobydick"\nVOCAB="500"\nB="4"\n' > "$tmp/f5/regime_settings.txt"
QUICK=1 JOBS=1 timeout 5 build/bin/study run compose "$tmp/f5" > /dev/null 2>&1
n=$(grep -c -e '--corpus mobydick --vocab 500 ' "$tmp/f5/compose_points.txt" 2>/dev/null)
[ "$n" -ge 5 ] && [ "$n" -eq "$(grep -c rnn-train "$tmp/f5/compose_points.txt")" ] &&
    grep -q '^compute-b4-r1 ' "$tmp/f5/compose_points.txt" && ok "the regime's data and b in every measured point ($n)" ||
    bad "compose's points on the regime's data: $n of $(grep -c rnn-train "$tmp/f5/compose_points.txt" 2>/dev/null)"
echo "== study run models: class layer against full softmax at a tiny budget"
# models.sh with two tiny hidden sizes, 1 s each, into folder $1 (the convergence
# study's c1: the report holds both sections)
tiny_models() {
    HIDDEN_LIST='8 16' BUDGET_S=1 BATCH=8 COMPLETION=20 JOBS=2 CELLS=lstm SEEDS=1 TOKENS=0 EVAL_EVERY=0 LR_LIST= \
        CORPUS=mobydick OPT_FLAGS='--optimizer adam --lr 0.002 --schedule const' build/bin/study run models "$1"
}
tiny_models "$tmp/c1" > "$tmp/m1.out" 2>&1 || { bad "models.sh exited $?"; tail -n 5 "$tmp/m1.out"; }
mcsv="$tmp/c1/scaling_models.csv"
# every row: finite ppl > 1, completion in [0, 1] with its questions, the budget spent,
# the class layer ~ sqrt(V) classes (V from the kn3 beside) and the full softmax none
csv_rows "$mcsv" '*' 'function finite(x) { return x ~ /^[0-9.eE+-]+$/ && x + 0 > 1 && x + 0 < 1e6 }
    function emit() { n++; a = v["completion_accuracy"]
      if (!finite(v["valid_ppl"]) || !finite(v["test_ppl"]) || !finite(v["kn3_test_ppl"])) e = e " ppl:" v["point"]
      if (a == "" || a + 0 < 0 || a + 0 > 1 || v["completion_questions"] + 0 < 1) e = e " completion:" v["point"]
      if (v["seconds"] + 0 < v["budget_s"] || v["status"] != "time budget" || v["params"] + 0 < 1) e = e " budget:" v["point"]
      if ((v["output"] == "class") != (v["classes"] + 0 > 0)) e = e " classes:" v["point"]
      k[v["output"] " " v["hidden"]] = 1 }
    END { if (n != 4 || !(("class 8") in k) || !(("full 16") in k)) e = e " rows:" n; if (e != "") { print e; exit 1 } }' \
    > "$tmp/merr" 2>&1 && ok "4 rows (hidden 8, 16 x class, full): finite ppl, completion in [0,1], the budget spent" ||
    { bad "scaling_models.csv: $(cat "$tmp/merr")"; cat "$mcsv"; }
[ -s "$tmp/c1/figures/scaling_models.png" ] || ! command -v gnuplot > /dev/null && ok "the figure is drawn" ||
    bad "no figures/scaling_models.png"
tiny_models "$tmp/c1" > "$tmp/m1b.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ! grep -q "^study: \[" "$tmp/m1b.out" && [ -f "$tmp/c1/old-1/scaling_models.csv" ] &&
    [ "$(grep -c '^<!-- scaling_models -->$' "$tmp/c1/scaling_report.md")" -eq 1 ] &&
    grep -q "^\*\*Verdict" "$tmp/c1/scaling_report.md" &&
    ok "a rerun runs no point, keeps the old results and the report has the section once, with a verdict" ||
    { bad "the models rerun (exit $rc)"; grep "^study" "$tmp/m1b.out"; }
cp "$tmp/c1/scaling_report.md" "$tmp/report-before"
tiny "$tmp/c1" > "$tmp/c1c.out" 2>&1
[ "$(grep -c '^<!-- scaling_models -->$' "$tmp/c1/scaling_report.md")" -eq 1 ] && grep -q "^## Secondary: steps to target" "$tmp/c1/scaling_report.md" &&
    ok "the convergence study re-collected keeps the models section, once" || bad "the models section after a converge rerun"
# the sections laid out alike whoever wrote them last: a scaling.sh run collects in
# another order than make scaling, and must give the same report
cmp -s "$tmp/report-before" "$tmp/c1/scaling_report.md" &&
    ok "the report the same bytes after the convergence study re-collected it" ||
    bad "the report changed when re-collected: $(diff "$tmp/report-before" "$tmp/c1/scaling_report.md" | head -n 4)"
# equal tokens: two cells, two rates, two seeds, every model the same tokens, the time
# and GEMM axes from the logs, a verdict per cell
HIDDEN_LIST='8 16' BATCH=8 BPTT=35 COMPLETION=20 JOBS=2 CELLS='lstm elman' SEEDS='1 2' TOKENS=5600 EVAL_EVERY=5 LR_LIST='0.002 0.004' \
    CORPUS=mobydick build/bin/study run models "$tmp/mt" > "$tmp/mt.out" 2>&1 || { bad "models.sh TOKENS=5600 exited $?"; tail -n 5 "$tmp/mt.out"; }
csv_rows "$tmp/mt/scaling_models.csv" '*' 'function emit() { n++
      if (v["tokens"] != 5600 && v["stop"] !~ /plateau/) e = e " tokens:" v["point"]
      if (v["budget_tokens"] != 5600 || !(v["gflop_per_token"] > 0)) e = e " budget:" v["point"]
      # the cheapest model of a cell and seed sets both budgets: its own last evaluation
      if (v["output"] == "class" && v["hidden"] == 8 && (!(v["valid_ppl_at_equal_seconds"] > 1) ||
          !(v["valid_ppl_at_equal_gflop"] > 1))) e = e " axes:" v["point"]
      k[v["model"] " " v["seed"]] = 1 }
    END { if (n != 24 || !(("elman 2") in k) || !(("lstm 1") in k)) e = e " rows:" n; if (e != "") { print e; exit 1 } }' \
    > "$tmp/merr" 2>&1 && grep -q '^\*\*Verdict (lstm)' "$tmp/mt/scaling_models.md" && grep -q '^\*\*Verdict (elman)' "$tmp/mt/scaling_models.md" &&
    ok "TOKENS=5600: 24 rows (2 cells x 2 hidden x 2 outputs x (2 rates + a seed)), 5600 tokens each, the axes, a verdict per cell" ||
    { bad "models.sh TOKENS=5600: $(cat "$tmp/merr")"; }
# seed 2 of each model runs at the rate whose seed-1 run reached the lowest valid ppl, and
# only those rows are chosen
chose=$(csv_rows "$tmp/mt/scaling_models.csv" model,hidden,output,lr,seed,valid_ppl,chosen 'function emit() {
        m = v["model"] " " v["hidden"] " " v["output"]
        if (v["seed"] == 1 && (!(m in low) || v["valid_ppl"] + 0 < low[m])) { low[m] = v["valid_ppl"] + 0; best[m] = v["lr"] }
        if (v["seed"] == 2) s2[m] = v["lr"]
        if (v["chosen"] == 1) ch[m] = ch[m] " " v["lr"] }
    END { for (m in best) { n++; if (s2[m] != best[m] || ch[m] != " " best[m] " " best[m]) bad++ } print n + 0, bad + 0 }')
[ "$chose" = "8 0" ] && ok "every model's seed 2 at its seed 1's best rate, the two rows chosen" || bad "chosen rates: models, wrong: $chose"
bad_settings models "BUDGET_S=0" "HIDDEN_LIST=big" "LR_LIST=0" "OPT_FLAGS=--optimizer adam --lr 0.002" "CLASSES=-1" "CORPUS=nonsense" "SEEDS=abc" "CELLS=gru" "TOKENS=-1" \
    "OPT_FLAGS=--optimizer adamw" "OPT_FLAGS=--lr nan" "BUDGET_S=1e300" "JOBS=0" "THREADS=x"
cp "$tmp/c1/models_settings.txt" "$tmp/saved.txt"
CORPUS=nonsense build/bin/study run models "$tmp/c1" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && cmp -s "$tmp/saved.txt" "$tmp/c1/models_settings.txt" && ok "models resumed with CORPUS=nonsense: exit 2, the saved settings untouched" ||
    bad "models resumed with CORPUS=nonsense: exit $rc: $(cat "$tmp/err")"

echo "== a study whose points all failed: no table, report or figure; exit 1, one line"
# the model points fail at set-up (60000 evaluation streams: more than the valid split
# holds), the kn3 baseline runs
HIDDEN_LIST=8 BATCH=60000 BPTT=1 BUDGET_S=1 COMPLETION=20 JOBS=2 CELLS=lstm SEEDS=1 TOKENS=0 CORPUS=mobydick \
    build/bin/study run models "$tmp/m0" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "every point failed (their logs: $tmp/m0/points/models-\*/stderr.txt)" "$tmp/err" &&
    [ ! -e "$tmp/m0/scaling_models.csv" ] && [ ! -e "$tmp/m0/scaling_models.md" ] && [ ! -e "$tmp/m0/figures" ] &&
    [ ! -e "$tmp/m0/scaling_report.md" ] && ok "models.sh, every point failed: exit 1, $(cat "$tmp/err")" ||
    { bad "models.sh, every point failed: exit $rc: $(cat "$tmp/err")"; ls "$tmp/m0"; }
# the convergence study's collect on a folder whose grid points all failed
mkdir -p "$tmp/cf/points/kn3" "$tmp/cf/points/b2-n1-momentum-lr1-w0"
printf 'model,tokens,valid_ppl\nkn3,1000,300\n' > "$tmp/cf/points/kn3/summary.csv"; echo 0 > "$tmp/cf/points/kn3/rc"
echo 2 > "$tmp/cf/points/b2-n1-momentum-lr1-w0/rc"
printf 'kn3 1 0 rnn-train --model kn3\nb2-n1-momentum-lr1-w0 1 0,1 rnn-train --steps 1\n' > "$tmp/cf/converge_points.txt"
printf 'point,N,b,optimizer,lr,warmup,eval_every,steps_cap,refines\nb2-n1-momentum-lr1-w0,1,2,momentum,1,0,1,1,\n' > "$tmp/cf/converge_grid.csv"
cp "$tmp/c1/converge_settings.txt" "$tmp/cf/"
build/bin/study collect converge "$tmp/cf" > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "every point failed" "$tmp/err" &&
    [ ! -e "$tmp/cf/scaling_convergence.csv" ] && [ ! -e "$tmp/cf/scaling_report.md" ] && [ ! -e "$tmp/cf/figures" ] &&
    ok "study collect converge, every grid point failed: exit 1, one line, no table" ||
    { bad "study collect converge, every point failed: exit $rc: $(cat "$tmp/err")"; ls "$tmp/cf"; }
[ $fail -eq 0 ] && echo "check-scaling: all passed" || echo "check-scaling: FAILED"
exit $fail
