#!/bin/sh
# test/study/safety.sh [BIN_DIR] — the study layer as a hostile user meets it
# (study run-points: the pool every study runs its points with):
#   - a second writer on a run folder exits 2 naming the holder, at once;
#   - SIGTERM and SIGINT end every point's processes within 3 s (exit 143 / 130), and a
#     SIGKILLed study's points end too (nothing left running);
#   - a point's words reach the program as they were: `$(...)`, spaces, quotes, a
#     newline are never run by a shell, in RUN's path or in an argument;
#   - point names stay inside RUN; a FIFO or a folder given as input is refused
#     without blocking (exit 2);
#   - a finished point whose result was emptied is damaged: named, run again, never
#     read as done; one that ran another command than the plan's runs again.
# About 10 s.
set -u
bin=${1:-build/bin}
cd "$(dirname "$0")/../.."
. test/lib.sh
test_begin safety
st=$bin/study
mark=rnnscale-safety-$$   # in every point's command line, so pgrep finds ours alone
nap=3613                  # the points' grandchildren: "sleep 3613" (no mark of their own)

# alive: the processes still running with our mark, or their grandchildren
alive() { pgrep -f "$mark" > /dev/null || pgrep -f "^sleep $nap\$" > /dev/null; }
cleanup() { pkill -KILL -f "$mark"; pkill -KILL -f "^sleep $nap\$"; }

echo "== a second writer on a run folder"
mkdir "$tmp/r1"
printf 'slow 1 0 sh -c sleep\\s3 %s\n' "$mark" > "$tmp/p1"
$st run-points "$tmp/r1" "$tmp/p1" > /dev/null 2>&1 &
first=$!
for i in $(seq 50); do [ -d "$tmp/r1/points/slow" ] && break; sleep 0.1; done
$st run-points "$tmp/r1" "$tmp/p1" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "in use by pid $first " "$tmp/err" &&
    ok "the second exits 2 and names the holder: $(cat "$tmp/err")" || bad "the second: exit $rc: $(cat "$tmp/err")"
wait $first

for sig in TERM INT; do
    echo "== SIG$sig to the study: every point ends within 3 s"
    mkdir "$tmp/s$sig"
    # a point that ignores SIGTERM (its group gets SIGKILL after the grace), one that does not
    printf 'deaf 1 0 sh -c trap\\s""\\sTERM\\sINT;\\ssleep\\s%s;\\strue %s\nplain 1 0 sh -c sleep\\s%s;\\strue %s\n' \
        $nap "$mark" $nap "$mark" > "$tmp/p$sig"
    JOBS=2 $st run-points "$tmp/s$sig" "$tmp/p$sig" > "$tmp/out" 2>&1 &
    pid=$!
    for i in $(seq 50); do [ "$(pgrep -f "$mark" | wc -l)" -ge 3 ] && break; sleep 0.1; done
    t0=$(date +%s%N); kill -$sig $pid; wait $pid; rc=$?; t1=$(date +%s%N)
    ms=$(( (t1 - t0) / 1000000 ))
    want=143; [ $sig = INT ] && want=130
    [ $rc -eq $want ] && [ $ms -le 3000 ] && ! alive && [ ! -f "$tmp/s$sig/points/plain/rc" ] &&
        ok "exit $rc in $ms ms, no process left, the points pending" ||
        { bad "SIG$sig: exit $rc in $ms ms, left: $(pgrep -af "$mark|sleep $nap" | head -n 3)"; cleanup; }
done

echo "== two starts on one new folder, and STUDY_CHECK=1"
# both at once: whichever loses the race exits 2 naming the other, which runs
QUICK=1 $st run regime "$tmp/race" > /dev/null 2> "$tmp/errA" &
a=$!
QUICK=1 $st run regime "$tmp/race" > /dev/null 2> "$tmp/errB" &
b=$!
for i in $(seq 100); do kill -0 $a 2> /dev/null && kill -0 $b 2> /dev/null || break; sleep 0.1; done
if ! kill -0 $a 2> /dev/null; then wait $a; rc=$?; loser=A; other=$b; else wait $b; rc=$?; loser=B; other=$a; fi
kill -TERM $a $b 2> /dev/null; wait
[ $rc -eq 2 ] && grep -q "in use by pid $other " "$tmp/err$loser" && ok "the loser names the winner: $(cat "$tmp/err$loser")" ||
    bad "two starts: the first to end exited $rc: $(cat "$tmp/err$loser")"
STUDY_CHECK=1 QUICK=1 $st scaling "$tmp/sc" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 0 ] && [ ! -e "$tmp/sc" ] && ok "STUDY_CHECK=1 study scaling: checks alone, nothing made" ||
    bad "STUDY_CHECK=1 study scaling: exit $rc, $(ls -d "$tmp/sc" 2>/dev/null): $(cat "$tmp/err")"

echo "== SIGTERM to the study: a trainer checkpoints, and the rerun continues it"
mkdir "$tmp/t"
printf 'train 1 0 rnn-train --model lstm --hidden 16 --classes 50 --bptt 20 --batch 4 --threads 1 --seed 3 --gemm blocked --steps 3000 --eval-every 1000 --eval-tokens 2000 --checkpoint ckpt --checkpoint-every 100 --resume-if-any --log log.csv --csv %s.csv\n' "$mark" > "$tmp/pt"
$st run-points "$tmp/t" "$tmp/pt" > /dev/null 2>&1 &
pid=$!
for i in $(seq 100); do ls "$tmp/t/points/train/ckpt" 2> /dev/null | grep -q bin && break; sleep 0.1; done
kill -TERM $pid; wait $pid; rc=$?
n=$(ls "$tmp/t/points/train/ckpt" 2> /dev/null | grep -c 'ckpt-.*bin$')
$st run-points "$tmp/t" "$tmp/pt" > /dev/null 2>&1 &
pid=$!
for i in $(seq 100); do grep -q "^resume" "$tmp/t/points/train/stdout.txt" 2> /dev/null && break; sleep 0.1; done
kill -KILL $pid; wait $pid 2> /dev/null
for i in $(seq 40); do alive || break; sleep 0.1; done
[ $rc -eq 143 ] && [ "$n" -ge 1 ] && grep -q "^resume" "$tmp/t/points/train/stdout.txt" && ! alive &&
    ok "stopped with $n checkpoint(s) kept, the rerun resumed from one; killed, the trainer went with it" ||
    { bad "trainer: exit $rc, $n checkpoints, stdout: $(tail -n 2 "$tmp/t/points/train/stdout.txt")"; cleanup; }

echo "== SIGKILL to the study: its points end with it"
mkdir "$tmp/k"
printf 'a 1 0 sh -c trap\\s""\\sTERM;\\ssleep\\s%s;\\strue %s\nb 1 0 sh -c sleep\\s%s;\\strue %s\n' \
    $nap "$mark" $nap "$mark" > "$tmp/pk"
JOBS=2 $st run-points "$tmp/k" "$tmp/pk" > /dev/null 2>&1 &
pid=$!
for i in $(seq 50); do [ "$(pgrep -f "$mark" | wc -l)" -ge 2 ] && break; sleep 0.1; done
kill -KILL $pid; wait $pid 2> /dev/null
for i in $(seq 30); do alive || break; sleep 0.1; done
! alive && ok "no orphan after SIGKILL, grandchildren and a point deaf to SIGTERM included" ||
    { bad "orphans: $(pgrep -af "$mark|sleep $nap" | head -n 3)"; cleanup; }
JOBS=2 timeout 5 $st run-points "$tmp/k" "$tmp/pk" > "$tmp/out" 2>&1 &
sleep 0.5; cleanup; wait
grep -q "0 of 2 points done" "$tmp/out" && ok "the killed run resumes: the lock of the dead holder taken" ||
    bad "resume after SIGKILL: $(head -n 2 "$tmp/out")"

echo "== words are data, never shell code"
odd="$tmp/a b \$(touch pwned-run) 'q\""
mkdir "$odd"
printf 'w 1 0 sh -c printf\\s"%%s|"\\s"$@"\\s>\\sargs.txt x $(touch\\spwned-arg) a\\sb q\047" line\\nbreak\n' > "$tmp/pw"
$st run-points "$odd" "$tmp/pw" > /dev/null 2>&1; rc=$?
got=$(cat "$odd/points/w/args.txt" 2> /dev/null)
want=$(printf '%s|%s|%s|%s|' '$(touch pwned-arg)' 'a b' "q'\"" "line
break")
[ $rc -eq 0 ] && [ "$got" = "$want" ] && [ ! -e pwned-run ] && [ ! -e pwned-arg ] &&
    [ ! -e "$odd/points/w/pwned-arg" ] && ok "RUN with spaces, quotes and \$(...); every argument as written" ||
    bad "words: exit $rc, got '$got'"
rm -f pwned-run pwned-arg
# make hands a setting given on its command line to the study as written, through the
# environment (make scaling JOBS=2 RUN=R, as the README says): the value and nothing run
got=$(make --no-print-directory --eval='print-settings: ; @printenv RUN JOBS QUICK' print-settings \
    "RUN=$odd" JOBS=2 QUICK=1 2> /dev/null)
[ "$got" = "$(printf '%s\n2\n1' "$odd")" ] && [ ! -e pwned-run ] &&
    ok "make's command-line RUN, JOBS, QUICK reach the study's environment as written" ||
    bad "make's command-line settings: got '$got'"
rm -f pwned-run

echo "== names and odd files"
printf 'x/../../evil 1 0 true\n' > "$tmp/pn"
$st run-points "$tmp/r1" "$tmp/pn" > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "inside the run folder" "$tmp/err" && [ ! -e "$tmp/evil" ] &&
    ok "a point name with ../ is refused: exit 2" || bad "a ../ name: exit $rc: $(cat "$tmp/err")"
mkfifo "$tmp/fifo"
for c in "run-points $tmp/r1 $tmp/fifo" "status $tmp/r1 $tmp/fifo" "get $tmp/fifo x" "concat $tmp/o.csv $tmp/fifo" \
         "get $tmp/r1 x"; do
    timeout 5 $st $c > /dev/null 2> "$tmp/err"; rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && ok "study ${c%% *} on a FIFO or folder: exit 2" ||
        bad "study $c: exit $rc (124: it blocked): $(cat "$tmp/err")"
done

echo "== a damaged result"
mkdir "$tmp/d"
printf 'p 1 0 sh -c echo\\s42\\s>\\sresult.csv\n' > "$tmp/pd"
$st run-points "$tmp/d" "$tmp/pd" > /dev/null 2>&1
: > "$tmp/d/points/p/result.csv"   # emptied after it finished
$st status "$tmp/d" "$tmp/pd" > "$tmp/out" 2>&1
$st run-points "$tmp/d" "$tmp/pd" > "$tmp/out2" 2>&1; rc=$?
grep -q "damaged 1" "$tmp/out" && grep -q "result.csv changed after the point finished" "$tmp/out2" &&
    [ $rc -eq 0 ] && [ "$(cat "$tmp/d/points/p/result.csv")" = 42 ] && [ -d "$tmp/d/points/p.attempt-1" ] &&
    ok "damaged, named, run again (the damaged folder kept aside)" ||
    bad "a damaged point: exit $rc: $(cat "$tmp/out" "$tmp/out2" | head -n 4)"

echo "== a done point whose command is not the plan's (settings lost, the plan made again)"
printf 'p 1 0 sh -c echo\\s43\\s>\\sresult.csv\n' > "$tmp/pd2"
$st run-points "$tmp/d" "$tmp/pd2" > "$tmp/out3" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "ran another command than the plan" "$tmp/out3" && [ "$(cat "$tmp/d/points/p/result.csv")" = 43 ] &&
    ok "run again with the plan's command, the other kept aside" || bad "another command: exit $rc: $(cat "$tmp/out3")"

[ $fail -eq 0 ] && echo "check-safety: all passed" || echo "check-safety: FAILED"
exit $fail
