#!/bin/sh
# run.sh — check-slurm: a study's points as a real Slurm job array on this machine
# (scaling/slurm/slurmlocal.sh: munged, slurmctld, slurmd of Debian's packages):
#   1. up starts the one-node cluster; up again leaves it; status names the node;
#   2. a points file submitted as an array (scaling/slurm/point.sh) runs every point,
#      and each point's log is the same, row by row, as the same plan run by study
#      run-points here;
#   3. scancel of the array part-way, then the whole array submitted again: the points
#      done before are not run again (their sealed results untouched), the rest finish;
#   4. a point past its job's time limit (--time=1) is stopped by Slurm, keeps its
#      checkpoint and stays pending, and the array submitted again continues from it;
#   5. scaling.sh (a whole study, each round of points a job array) on a tiny convergence
#      study: the same report and steps-to-target as study run converge here, no planning
#      file left, nothing run again by a second call;
#   6. point.sh and scaling.sh outside an array and with bad arguments: exit 2, one line;
#      down stops every daemon and removes the folder.
# Skips with a line where the machine cannot (not root, no packages, a daemon refuses).
# Exits 1 on failure.
set -u
cd "$(dirname "$0")/../.."
. test/lib.sh
test_begin slurm
sl=scaling/slurm/slurmlocal.sh
st=build/bin/study
trap 'sh $sl down > /dev/null 2>&1; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
sh $sl down > /dev/null 2>&1
sh $sl up > "$tmp/up" 2>&1; rc=$?
if [ $rc -eq 3 ]; then
    echo "check-slurm: skipped: $(cat "$tmp/up")"
    exit 0
fi
[ $rc -eq 0 ] && ok "up: $(cat "$tmp/up")" || { bad "up: exit $rc: $(cat "$tmp/up")"; exit 1; }
sh $sl up 2>&1 | grep -q "up already" && sh $sl status | grep -q "^up: $(hostname -s) idle" &&
    ok "up again: left as it is; status names the idle node" || bad "up again / status: $(sh $sl status)"
SLURM_CONF=$(sh $sl conf)
export SLURM_CONF
tiny_corpus "$tmp/corpus.txt"
# points of the tiny trainer: NAME 1 0 rnn-train ... (seed K; LENGTH: rnn-train's words
# for how long: --steps S to compare, --max-seconds S to be cut)
points() {   # points FILE COUNT "LENGTH"
    f=$1 n=$2 len=$3
    i=1
    while [ $i -le "$n" ]; do
        echo "p$i 1 0 rnn-train --corpus $tmp/corpus.txt --model lstm --hidden 16 --embed 8 --bptt 8 --batch 4" \
             "--threads 1 --gemm naive --optimizer adam --lr 0.02 --schedule const --seed $i --epochs 100000" \
             "$len --checkpoint ckpt --checkpoint-every 2000 --resume-if-any" \
             "--log log.csv --csv summary.csv"
        i=$((i + 1))
    done > "$f"
}
submit() {   # submit RUN ARRAY [sbatch options]: the job id
    r=$1 a=$2; shift 2
    sbatch --parsable --array="$a" -o "$tmp/slurm-%A_%a.out" "$@" scaling/slurm/point.sh "$r" "$r/pts.txt"
}
wait_job() {   # wait_job ID SECONDS: 0 when no task of it is left
    i=0
    while [ -n "$(squeue --noheader -j "$1" 2>/dev/null)" ] && [ $i -lt $(($2 * 5)) ]; do sleep 0.2; i=$((i + 1)); done
    [ -z "$(squeue --noheader -j "$1" 2>/dev/null)" ]
}
done_count() {   # study status --tally prints "DONE TOTAL"
    set -- $($st status "$1" "$1/pts.txt" --tally)
    echo "${1:-0}"
}

# 4. (submitted first, as it takes the time limit's minute: the others run beside it on
# the second CPU) past the time limit Slurm stops the point; the array again continues it
mkdir -p "$tmp/T"
points "$tmp/T/pts.txt" 1 "--max-seconds 1000 --eval-every 1000000"
tjob=$(submit "$tmp/T" 1 --time=1)

# 2. the array against the same plan run here
mkdir -p "$tmp/A" "$tmp/L"
points "$tmp/A/pts.txt" 4 "--steps 400 --eval-every 100"
sed "s|$tmp/A|$tmp/L|g" "$tmp/A/pts.txt" > "$tmp/L/pts.txt"
job=$(submit "$tmp/A" 1-4) && wait_job "$job" 60 || bad "the array did not end in 60 s"
JOBS=2 $st run-points "$tmp/L" "$tmp/L/pts.txt" > /dev/null 2>&1
same=0
for i in 1 2 3 4; do
    $st compare "$tmp/L/points/p$i/log.csv" "$tmp/A/points/p$i/log.csv" --key step --rows 4 --equal tokens,train_loss,valid_ppl \
        > /dev/null 2>&1 && same=$((same + 1))
done
[ "$(done_count "$tmp/A")" = 4 ] && [ $same -eq 4 ] &&
    ok "an array of 4 points: all done, each log the same as study run-points' (step, tokens, loss, ppl)" ||
    bad "the array: $(done_count "$tmp/A") of 4 done, $same of 4 logs the same: $(cat "$tmp"/slurm-*.out | tail -n 3)"

# 3. scancel part-way, then the whole array again
mkdir -p "$tmp/C"
points "$tmp/C/pts.txt" 5 "--max-seconds 2 --eval-every 1000000"
job=$(submit "$tmp/C" 1-5%1)
i=0
while [ "$(done_count "$tmp/C")" -lt 2 ] && [ $i -lt 300 ]; do sleep 0.2; i=$((i + 1)); done
scancel "$job"
wait_job "$job" 30
before=$(done_count "$tmp/C")
seals=$(cat "$tmp/C/points/p1/result" "$tmp/C/points/p2/result" 2>/dev/null | cksum)
job=$(submit "$tmp/C" 1-5) && wait_job "$job" 90
after=$(cat "$tmp/C/points/p1/result" "$tmp/C/points/p2/result" 2>/dev/null | cksum)
[ "$before" -ge 2 ] && [ "$before" -lt 5 ] && [ "$(done_count "$tmp/C")" = 5 ] && [ "$seals" = "$after" ] &&
    ok "scancel after $before of 5, then the array again: the rest done, the first two untouched" ||
    bad "scancel and resubmit: $before done before, $(done_count "$tmp/C") after, results $([ "$seals" = "$after" ] && echo same || echo changed)"

# 4. continued: the point past its time limit (Slurm enforces it within about 30 s of
# the minute), then submitted again until it has resumed (a budget of 1000 s: its end
# is not waited for; the scancel check above runs stopped points to the end)
wait_job "$tjob" 150
ck=$(ls "$tmp/T/points/p1/ckpt" 2>/dev/null | tail -n 1)
pending=$($st pending "$tmp/T" "$tmp/T/pts.txt" 2>/dev/null)
job=$(submit "$tmp/T" 1)
i=0
while ! grep -q '^resume' "$tmp/T/points/p1/stdout.txt" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.2; i=$((i + 1)); done
sleep 1
scancel "$job"
wait_job "$job" 30
from=$(grep -m1 '^resume' "$tmp/T/points/p1/stdout.txt" | sed 's/:.*//; s/^resume *//')
[ -n "$ck" ] && [ "$pending" = p1 ] && [ "$(basename "$from")" = "$ck" ] &&
    [ "$($st pending "$tmp/T" "$tmp/T/pts.txt" 2>/dev/null)" = p1 ] &&
    ok "past --time=1: stopped with $ck (pending); the array again continued from it" ||
    bad "time limit: checkpoint '$ck', pending '$pending', resumed from '$from': $(tail -n 2 "$tmp/T/points/p1/stdout.txt")"

# 5. a whole study by scaling.sh, each round an array, against study run here (GEMM
# fixed: each side timing its own plan could round differently)
tiny() {
    N_LIST='1 2 4' B_LIST=2 LR_FACTORS=1 TARGET_X=2.3 OPT_N='' WARMUP_N='' EXTEND=0 JOBS=2 CAP_X=30 GEMM=openblas \
    MODEL='--model lstm --hidden 16 --classes 50 --bptt 20' EVAL_STREAMS=4 "$@"
}
tiny sh scaling/slurm/scaling.sh --study converge "$tmp/S s" > "$tmp/S.out" 2>&1; rc=$?
tiny $st run converge "$tmp/L2" > /dev/null 2>&1
rounds=$(grep -c "^scaling.sh: submitting" "$tmp/S.out")
steps() { $st get "$1/scaling_convergence.csv" point,steps_to_target --all 2> /dev/null; }
[ $rc -eq 0 ] && [ "$rounds" -ge 2 ] && cmp -s "$tmp/S s/scaling_report.md" "$tmp/L2/scaling_report.md" &&
    [ -n "$(steps "$tmp/L2")" ] && [ "$(steps "$tmp/S s")" = "$(steps "$tmp/L2")" ] &&
    [ ! -e "$tmp/S s/array_points.txt" ] && [ ! -e "$tmp/S s/array_jobs.txt" ] &&
    ok "scaling.sh --study converge: $rounds arrays, then the same report and steps as study run here" ||
    bad "scaling.sh: exit $rc, $rounds arrays, report $(cmp -s "$tmp/S s/scaling_report.md" "$tmp/L2/scaling_report.md" && echo same || echo differs): $(tail -n 3 "$tmp/S.out")"
tiny sh scaling/slurm/scaling.sh --study converge "$tmp/S s" > "$tmp/S2.out" 2>&1; rc=$?
[ $rc -eq 0 ] && ! grep -q "^scaling.sh: submitting" "$tmp/S2.out" && ok "scaling.sh again on the finished folder: no array, exit 0" ||
    bad "scaling.sh again: exit $rc: $(grep submitting "$tmp/S2.out")"
PLAN=yes $st run converge "$tmp/S s" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok "PLAN=yes: exit 2, one line" || bad "PLAN=yes: exit $rc: $(cat "$tmp/err")"

# 6. bad usage, then down
sh scaling/slurm/point.sh "$tmp/A" "$tmp/A/pts.txt" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok "point.sh outside an array: exit 2, one line" ||
    bad "point.sh outside an array: exit $rc: $(cat "$tmp/err")"
SLURM_ARRAY_TASK_ID=1 sh scaling/slurm/point.sh "$tmp/A" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok "point.sh with one argument: exit 2, one line" ||
    bad "point.sh with one argument: exit $rc: $(cat "$tmp/err")"
for args in "" "--study nope R" "-x R"; do
    sh scaling/slurm/scaling.sh $args > /dev/null 2> "$tmp/err"; rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok "scaling.sh '$args': exit 2, one line" ||
        bad "scaling.sh '$args': exit $rc: $(cat "$tmp/err")"
done
for args in "up --bogus" "sideways" "down now"; do
    sh $sl $args > /dev/null 2> "$tmp/err"; rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok "slurmlocal $args: exit 2, one line" ||
        bad "slurmlocal $args: exit $rc: $(cat "$tmp/err")"
done
sh $sl down
left=$(pgrep -f 'rnnscale-slurm' | wc -l)
[ "$(sh $sl status)" = down ] && [ ! -e /run/rnnscale-slurm ] && [ "$left" -eq 0 ] &&
    ok "down: no daemon left, the folder removed" || bad "down: $left processes left, $(sh $sl status)"
[ $fail -eq 0 ] && echo "check-slurm: all passed" || echo "check-slurm: FAILED"
exit $fail
