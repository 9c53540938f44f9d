#!/bin/sh
# test/faults/files.sh BIN_DIR — rnn-train's files are never raced or lost (run by
# test/faults/run.sh, so by `make check-faults`):
#   1. a second run, or a --resume, on the checkpoint folder or the --log of a live run:
#      exit 2, one line naming the holder's pid, nothing written; the live run's log
#      keeps every row it wrote;
#   2. a killed run's lock does not block the next run, which removes the killed
#      writer's temporaries with one note; so does a run whose --csv has a dead
#      writer's temporary (a live writer's is kept);
#   3. a ckpt-*.bin that is a FIFO, a folder or a link to a device, and a FIFO as
#      --corpus, --csv or a resumed --log: exit 2, one line naming it, never blocked;
#   4. a resume with another --workers: one line with both counts and the fix.
# Every command runs under `timeout`: a hang fails.  Exits 1 on failure.
set -u
bin=${1:-build/bin}
cd "$(dirname "$0")/../.."
. test/lib.sh   # ok, bad, tiny_corpus
study_bin=$bin/study
. scaling/study/get.sh   # col: the log read back
tmp=$(mktemp -d /tmp/rnnscale-files-XXXXXX)
live=
cleanup() { [ -n "$live" ] && kill -KILL "$live" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0

tiny_corpus "$tmp/corpus.txt"
model="--model lstm --layers 1 --hidden 24 --embed 16 --bptt 8 --batch 2 --optimizer adam
       --lr 0.02 --schedule const --seed 5 --threads 1 --gemm blocked"
train="timeout 30 $bin/rnn-train --corpus $tmp/corpus.txt $model"
long="$bin/rnn-train --corpus $tmp/corpus.txt $model --steps 100000000 --eval-every 50"   # killed here
# what the refused runs must leave as it was: every path with its size, but the live
# run's folder and log (which it writes meanwhile)
state() { (cd "$tmp" && find . ! -path './live*' ! -name err ! -name 'st.*' -printf '%p %s\n' | sort); }
# refused NAME FRAGMENT ARGS...: exit 2, one line containing FRAGMENT, nothing changed
refused() {
    name=$1; frag=$2; shift 2
    state > "$tmp/st.before"
    $train "$@" > /dev/null 2> "$tmp/err"
    rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q -- "$frag" "$tmp/err"; then
        ok "$name: $(cat "$tmp/err")"
    else
        bad "$name: exit $rc (want 2, one line with '$frag'):"; head -n 5 "$tmp/err"
    fi
    state > "$tmp/st.after"
    cmp -s "$tmp/st.before" "$tmp/st.after" ||
        bad "$name: files changed: $(diff "$tmp/st.before" "$tmp/st.after" | grep '^[<>]' | head -n 4 | tr '\n' ' ')"
}

$train --steps 10 --eval-every 5 --checkpoint "$tmp/other" --log "$tmp/other.csv" > /dev/null 2> "$tmp/err" ||
    { bad "a short run: $(cat "$tmp/err")"; exit 1; }

echo "== a live run's folder and log"
$long --checkpoint "$tmp/live" --log "$tmp/live.csv" > /dev/null 2> "$tmp/live.err" &
live=$!
i=0
while [ $i -lt 200 ] && ! ls "$tmp/live" 2>/dev/null | grep -q '^ckpt-'; do sleep 0.1; i=$((i + 1)); done
refused "a second run on its folder" "checkpoint folder $tmp/live is in use by pid $live on host" \
    --steps 5 --checkpoint "$tmp/live" --log "$tmp/second.csv"
refused "--resume on its folder and log" "checkpoint folder $tmp/live is in use by pid $live" \
    --steps 5 --checkpoint "$tmp/live" --log "$tmp/live.csv" --resume
refused "--resume of another folder onto its log" "log $tmp/live.csv is in use by pid $live" \
    --steps 20 --checkpoint "$tmp/other" --log "$tmp/live.csv" --resume
kill -TERM $live
wait $live
rc=$?
live=
last=$(ls "$tmp/live" | grep '^ckpt-' | tail -n 1 | sed 's/ckpt-0*\([0-9]*\)\.bin/\1/')
# every 50th step from 50 on, none missing, up to the last checkpoint (the signal may
# land in a checkpoint's writing: then the row of that step is there, its file not; or
# in the evaluation after it: then the file is there, written first, its row not)
n=0; s=0; gap=
for step in $(col "$tmp/live.csv" step --all 2> /dev/null); do
    n=$((n + 1)); [ "$step" = $((50 * n)) ] || gap=1; s=$step
done
if { [ $rc -eq 130 ] || [ $rc -eq 143 ]; } && [ -z "$gap" ] && [ $n -ge 1 ] &&
   [ $((${last:-0} - s)) -le 50 ] && [ $((s - ${last:-0})) -le 50 ]; then
    ok "the live run kept every row of its log ($(($(wc -l < "$tmp/live.csv") - 1)) rows, stopped at step $last, exit $rc)"
else
    bad "the live run's log (exit $rc, last checkpoint $last):"; head -n 3 "$tmp/live.csv"; tail -n 3 "$tmp/live.csv"; cat "$tmp/live.err"
fi

echo "== a killed run's lock and temporaries"
$long --checkpoint "$tmp/killed" > /dev/null 2>&1 &
live=$!
i=0
while [ $i -lt 200 ] && ! ls "$tmp/killed" 2>/dev/null | grep -q '^ckpt-'; do sleep 0.1; i=$((i + 1)); done
kill -KILL $live
wait $live 2> /dev/null
live=
newest=$(ls "$tmp/killed" | grep '^ckpt-' | tail -n 1)
# as a writer killed mid-write leaves it (the kill may also have left a real one)
cp "$tmp/killed/$newest" "$tmp/killed/$newest.tmp.Ab12Cd"
$train --steps 1 --checkpoint "$tmp/killed" --resume > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
   grep -q "removed stale temporary $tmp/killed/ckpt-0.*\.bin\.tmp\." "$tmp/err" &&
   [ -z "$(ls -A "$tmp/killed" | grep -v '^ckpt-[0-9]*\.bin$' | grep -v '^\.lock$')" ]; then
    ok "the killed run's lock did not block; $(cat "$tmp/err")"
else
    bad "resume after a SIGKILL: exit $rc, left $(ls -A "$tmp/killed" | tr '\n' ' '):"; cat "$tmp/err"
fi

echo "== a killed writer's --csv temporary"
# named as rs_write_atomic names them: NAME.tmp.HOST.PID.XXXXXX; a dead pid's is
# removed with one note, a live one's (this script's) kept
h=$(hostname | tr / _)
dead=$(sh -c 'echo $$')
touch "$tmp/sum.csv.tmp.$h.$dead.Ab12Cd" "$tmp/sum.csv.tmp.$h.$$.Cd34Ef"
$train --steps 1 --csv "$tmp/sum.csv" > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && [ -s "$tmp/sum.csv" ] &&
   grep -qF "removed stale temporary $tmp/sum.csv.tmp.$h.$dead.Ab12Cd (left by pid $dead" "$tmp/err" &&
   [ ! -e "$tmp/sum.csv.tmp.$h.$dead.Ab12Cd" ] && [ -e "$tmp/sum.csv.tmp.$h.$$.Cd34Ef" ]; then
    ok "a dead writer's temporary removed, a live one's kept: $(cat "$tmp/err")"
else
    bad "--csv beside stale temporaries: exit $rc, left $(ls "$tmp" | grep '^sum' | tr '\n' ' '):"; cat "$tmp/err"
fi
rm -f "$tmp"/sum.csv*

echo "== entries that are not regular files"
mkfifo "$tmp/other/ckpt-000000099.bin"
refused "a FIFO as the newest checkpoint" "ckpt-000000099.bin, which is a FIFO" \
    --steps 20 --checkpoint "$tmp/other" --resume
rm "$tmp/other/ckpt-000000099.bin"; mkdir "$tmp/other/ckpt-000000099.bin"
refused "a folder named as a checkpoint" "ckpt-000000099.bin, which is a folder" \
    --steps 20 --checkpoint "$tmp/other" --resume
rmdir "$tmp/other/ckpt-000000099.bin"; ln -s /dev/null "$tmp/other/ckpt-000000099.bin"
refused "a link to a device as a checkpoint" "ckpt-000000099.bin, which is a device" \
    --steps 20 --checkpoint "$tmp/other" --resume
refused "... also without --resume" "ckpt-000000099.bin, which is a device" \
    --steps 20 --checkpoint "$tmp/other"
rm "$tmp/other/ckpt-000000099.bin"
mkfifo "$tmp/fifo"
ln -s "$tmp/fifo" "$tmp/fifo-link"
before=$(state)
timeout 30 "$bin/rnn-train" --corpus "$tmp/fifo-link" $model --steps 3 > /dev/null 2> "$tmp/err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "corpus $tmp/fifo-link is a FIFO" "$tmp/err" &&
    [ "$(state)" = "$before" ] && ok "a FIFO as --corpus: $(cat "$tmp/err")" ||
    { bad "a FIFO as --corpus: exit $rc:"; cat "$tmp/err"; }
refused "a FIFO as --csv" "already exists as a FIFO" --steps 3 --csv "$tmp/fifo"
refused "a FIFO as a resumed --log" "log $tmp/fifo is a FIFO" \
    --steps 20 --checkpoint "$tmp/other" --resume --log "$tmp/fifo"

echo "== a resume with another worker count"
refused "--workers 2 on a --workers 1 checkpoint" \
    "with --workers 1 (1 x 2 streams), this run has --workers 2: resume with --workers 1" \
    --steps 20 --checkpoint "$tmp/other" --resume --workers 2

[ $fail -eq 0 ] && echo "files: all passed" || echo "files: FAILED"
exit $fail
