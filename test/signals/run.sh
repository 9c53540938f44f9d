#!/bin/sh
# test/signals/run.sh BIN_DIR — every phase of rnn-train ends on a signal: SIGTERM (exit
# 143) or SIGINT (130) within 3 s, with one to three lines on stderr, no temporary or
# partial file left, the checkpoint written where one is due (before an evaluation at
# its step); a second signal exits at once; under mpirun, a signal to rank 0 alone or to
# every rank (mpirun forwards it) ends every rank, --eval-ranks' scoring abandoned;
# under `ulimit -v` OpenBLAS is refused in one line, never spun on.
# The signal is sent once the phase has begun: rnn-train appends each phase it enters to
# the file RNN_TRAIN_PHASES names (a test hook), and each phase here is made long (a
# large valid/test split, a large model).  Prints the time from signal to exit.
# Exits 1 on failure.
set -u
bin=${1:-build/bin}
cd "$(dirname "$0")/../.."
. test/mpi/env.sh
tmp=$(mktemp -d /tmp/rnnscale-signals-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

# 20000 sentences of 8 words from 400 (a valid/test split of ~16000 tokens each; words of
# rank >= 50 for --completion's questions)
awk 'BEGIN { x = 7; for (i = 0; i < 20000; i++) { line = "";
               for (j = 0; j < 8; j++) { x = (x * 1103515245 + 12345) % 2147483648;
                 r = x / 2147483648; line = line sprintf("w%d ", int(400 * r * r)) }
               print line "." } }' > "$tmp/corpus.txt"
small="--corpus $tmp/corpus.txt --model lstm --hidden 24 --embed 16 --bptt 8 --batch 2 --threads 1 --seed 5"
big="--corpus $tmp/corpus.txt --model lstm --hidden 512 --embed 64 --bptt 8 --batch 2 --threads 1 --seed 5"
train="$bin/rnn-train"

# leftovers DIR: temporaries or partial files (anything but finished checkpoints)
leftovers() { find "$1" -name '*.tmp*' | head -n 3; }
# lines FILE: the non-empty lines of a stderr (a progress bar's \r-overwritten line counts once)
lines() { tr '\r' '\n' < "$1" | grep -c -v '^[[:space:]]*$'; }

# sig_case NAME MARK SIG RC CMD...: start CMD (stdout NAME.out, stderr NAME.err), send SIG
# once the phase MARK has begun (a line of the phase fd starting with it), and check it
# exits RC within 3 s with one to three lines on stderr, the last containing $says (the
# phase, by default MARK itself).  Sets $elapsed_ms, $rc.
sig_case() {
    name=$1; mark=$2; sig=$3; want=$4; shift 4
    s_says=${says-$mark}; s_pre=${pre_delay:-}; s_second=${second:-}
    unset says pre_delay second   # given before the call: for this case only
    : > "$tmp/$name.ph"
    RNN_TRAIN_PHASES="$tmp/$name.ph" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err" &
    pid=$!
    i=0
    while [ $i -lt 1200 ] && kill -0 $pid 2>/dev/null && ! grep -q "^$mark" "$tmp/$name.ph"; do
        sleep 0.05; i=$((i + 1))
    done
    if ! grep -q "^$mark" "$tmp/$name.ph"; then
        kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
        bad "$name: the phase '$mark' never began (phases: $(tr '\n' '|' < "$tmp/$name.ph"))"
        cat "$tmp/$name.err"; rc=-1; return 1
    fi
    [ -n "$s_pre" ] && sleep "$s_pre"
    t0=$(date +%s%N)
    kill -"$sig" $pid
    [ -n "$s_second" ] && { sleep "$s_second"; kill -"$sig" $pid 2>/dev/null; }
    i=0
    while kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    elapsed_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    if kill -0 $pid 2>/dev/null; then
        kill -KILL $pid; wait $pid 2>/dev/null
        bad "$name: still running 10 s after SIG$sig"; rc=-1; return 1
    fi
    wait $pid; rc=$?
    n=$(lines "$tmp/$name.err")
    said=$(tr '\r' '\n' < "$tmp/$name.err" | grep -v '^[[:space:]]*$' | tail -n 1)
    case "$said" in *"$s_says"*) named=1 ;; *) named=0 ;; esac
    if [ $rc -eq "$want" ] && [ "$elapsed_ms" -le 3000 ] && [ "$n" -ge 1 ] && [ "$n" -le 3 ] && [ $named = 1 ]; then
        ok "$name: SIG$sig ${mark#during } -> exit $rc in $elapsed_ms ms: $said"
        return 0
    fi
    bad "$name: SIG$sig during '$mark': exit $rc (expected $want) after $elapsed_ms ms, $n stderr lines:"
    cat "$tmp/$name.err"; return 1
}

echo "== one process"
# set-up: a corpus of 70 MB (the small one 100 times) takes seconds to read and count
i=0; while [ $i -lt 100 ]; do cat "$tmp/corpus.txt"; i=$((i + 1)); done > "$tmp/slow.txt"
mkdir "$tmp/ck0"
sig_case setup "during set-up" TERM 143 $train --corpus "$tmp/slow.txt" --hidden 24 --batch 2 --threads 1 \
    --checkpoint "$tmp/ck0" --log "$tmp/setup.csv"
rm -f "$tmp/slow.txt"
[ ! -e "$tmp/setup.csv" ] && [ -z "$(ls "$tmp/ck0")" ] && ok "setup: no log, nothing in the checkpoint folder" ||
    bad "setup left $(ls "$tmp" | grep setup.csv) $(ls "$tmp/ck0")"

# --gemm auto's timing, on a model whose products take a while to time
sig_case tuning "during set-up (--gemm auto" TERM 143 $train $big --hidden 1024 --batch 64 --bptt 35 \
    --gemm auto --steps 1 --log "$tmp/tune.csv"
[ ! -e "$tmp/tune.csv" ] && ok "tuning: no log" || bad "tuning left its log"

# training, SIGINT: the step in flight finishes and its checkpoint is written
mkdir "$tmp/ck1"
pre_delay=0.5 says="interrupted at step" sig_case training "training" INT 130 $train $small --gemm blocked --schedule const \
    --epochs 100000 --eval-every 100000 --checkpoint "$tmp/ck1" --log "$tmp/train.csv"
step=$(sed -n 's/.*interrupted at step \([0-9]*\);.*/\1/p' "$tmp/training.err")
[ -n "$step" ] && [ -f "$tmp/ck1/$(printf 'ckpt-%09d.bin' "$step")" ] && [ -z "$(leftovers "$tmp/ck1")" ] &&
    ok "training: the checkpoint of step $step written, no temporary" || bad "training: checkpoints $(ls "$tmp/ck1")"

# a periodic evaluation: stopped at once; the newest checkpoint (step 2) is named and kept
mkdir "$tmp/ck2"
sig_case eval "during the evaluation at step 3" TERM 143 $train $big --gemm blocked --steps 100 \
    --eval-every 3 --checkpoint-every 2 --checkpoint "$tmp/ck2" --log "$tmp/eval.csv"
grep -q "ckpt-000000002.bin" "$tmp/eval.err" && [ -f "$tmp/ck2/ckpt-000000002.bin" ] &&
    [ -z "$(leftovers "$tmp")" ] && ok "eval: the newest checkpoint named and kept, no temporary" ||
    bad "eval: $(ls "$tmp/ck2")"

# a periodic evaluation at a checkpoint step: that checkpoint is written before it, so
# the signal leaves it (a resumed run evaluates first: test_models_checkpoint)
mkdir "$tmp/ck6"
sig_case eval-ckpt "during the evaluation at step 3" TERM 143 $train $big --gemm blocked --steps 100 \
    --eval-every 3 --checkpoint "$tmp/ck6" --log "$tmp/evalck.csv"
grep -q "ckpt-000000003.bin (step 3) is the newest" "$tmp/eval-ckpt.err" && [ -f "$tmp/ck6/ckpt-000000003.bin" ] &&
    [ -z "$(leftovers "$tmp")" ] && ok "eval-ckpt: the checkpoint due at the step named and kept, no temporary" ||
    bad "eval-ckpt: $(ls "$tmp/ck6")"

# the final evaluation (the test split), after the last step's checkpoint; the evaluation
# at step 3 scores 64 tokens, so the final one is reached in seconds on a slow machine too
# (it scores all of valid and test)
mkdir "$tmp/ck3"
sig_case final "during the final evaluation" TERM 143 $train $big --gemm blocked --steps 3 --eval-every 3 --eval-tokens 64 \
    --checkpoint "$tmp/ck3" --csv "$tmp/final.csv" --json "$tmp/final.json"
[ -f "$tmp/ck3/ckpt-000000003.bin" ] && [ ! -e "$tmp/final.csv" ] && [ ! -e "$tmp/final.json" ] &&
    [ -z "$(leftovers "$tmp")" ] && ok "final: the last step's checkpoint kept, no result file" ||
    bad "final: $(ls "$tmp/ck3") $(ls "$tmp" | grep final)"

# --completion's questions
sig_case completion "during --completion" TERM 143 $train $big --hidden 128 --gemm blocked --steps 1 --completion 100000 \
    --csv "$tmp/compl.csv"
[ ! -e "$tmp/compl.csv" ] && [ -z "$(leftovers "$tmp")" ] && ok "completion: no result file" ||
    bad "completion left $(ls "$tmp" | grep compl)"

# --bench: between timed steps; --pipeline: at once
says="interrupted during --bench" sig_case bench "during --bench" TERM 143 $train $big --gemm blocked --bench 100000 --csv "$tmp/bench.csv"
[ ! -e "$tmp/bench.csv" ] && ok "bench: no result file" || bad "bench left its CSV"
sig_case pipeline "during --pipeline" TERM 143 $train $big --gemm openblas --pipeline --bench 100000 \
    --csv "$tmp/pipe.csv"
[ ! -e "$tmp/pipe.csv" ] && ok "pipeline: no result file" || bad "pipeline left its CSV"

# while a checkpoint of a large model is written (every step): its temporary is removed
mkdir "$tmp/ck5"
says="interrupted" sig_case ckpt-write "while writing a checkpoint" TERM 143 $train $big --hidden 1024 \
    --gemm blocked --steps 1000 --eval-every 1000 --checkpoint-every 1 --checkpoint "$tmp/ck5"
[ -z "$(leftovers "$tmp/ck5")" ] && ok "ckpt-write: no temporary left ($(ls "$tmp/ck5" | wc -l) whole checkpoints)" ||
    bad "ckpt-write left $(leftovers "$tmp/ck5")"

# a second signal while the first waits for a safe point: --eval-async evaluates the big
# valid split after every step, and the loop waits for it before it stops
mkdir "$tmp/ck4"
pre_delay=0.5 second=0.3 says="a second signal" sig_case second "training" TERM 143 $train $big --gemm openblas --eval-async \
    --eval-every 1 --steps 1000 --checkpoint "$tmp/ck4"
grep -q "second signal" "$tmp/second.err" && [ -z "$(leftovers "$tmp/ck4")" ] &&
    ok "second: the second signal stopped the wait at once, no temporary" || bad "second: $(cat "$tmp/second.err")"

echo "== memory limits"
# a sanitizer reserves terabytes of address space for its shadow: no run starts under ulimit -v
if [ -n "${ASAN_OPTIONS:-}" ] || ldd "$train" 2>/dev/null | grep -q 'lib[at]san'; then
    echo "skip ulimit -v: $train is built with a sanitizer (its shadow memory needs the address space)"
else
    # OpenBLAS retries its buffer's mmap for ever: refused in one line under ulimit -v
    ( ulimit -v 200000; exec timeout -s KILL 30 $train $small --gemm openblas --steps 1 --log "$tmp/lim.csv" ) \
        > /dev/null 2> "$tmp/lim.err"
    rc=$?
    if [ $rc -eq 2 ] && [ "$(lines "$tmp/lim.err")" -eq 1 ] && grep -q "ulimit -v" "$tmp/lim.err" && [ ! -e "$tmp/lim.csv" ]; then
        ok "ulimit -v 200000, --gemm openblas: exit 2, no log: $(cat "$tmp/lim.err")"
    else
        bad "ulimit -v 200000, --gemm openblas: exit $rc (137: it spun until killed):"; cat "$tmp/lim.err"
    fi
    # --gemm auto goes on without a backend that does not fit, or that crashes or hangs on a
    # first product tried in a child (oneDNN's JIT under a low limit); whatever else runs
    # short says so in one line (exit 1 or 2), never spins (137) nor crashes (134, 139)
    for lim in 110000 150000 200000; do
        ( ulimit -v $lim; ulimit -c 0; exec timeout -s KILL 30 $train $small --threads 2 --steps 1 ) \
            > "$tmp/lim2.out" 2> "$tmp/lim2.err"
        rc=$?
        if [ $rc -eq 0 ] || { [ $rc -le 2 ] && [ "$(lines "$tmp/lim2.err")" -eq 1 ]; }; then
            ok "ulimit -v $lim, --gemm auto: exit $rc $(grep -o '[a-z]* not available' "$tmp/lim2.out" | tr '\n' ' ')$(cat "$tmp/lim2.err")"
        else
            bad "ulimit -v $lim, --gemm auto: exit $rc:"; cat "$tmp/lim2.err"
        fi
    done
fi

echo "== under mpirun"
# mp_start NAME MARK ARGS...: rnn-train under mpirun -np ${mp_np:-2}, until rank 0 enters
# phase MARK for the ${mp_nth:-1}th time (a line of the phase file starting with it)
mp_start() {
    name=$1; mark=$2; shift 2
    rm -rf "$tmp/mck"; mkdir "$tmp/mck"
    : > "$tmp/$name.ph"
    ASAN_OPTIONS=$rank_asan RNN_TRAIN_PHASES="$tmp/$name.ph" $MPIRUN -q --oversubscribe --bind-to none \
        -np "${mp_np:-2}" $train "$@" --workers 2 --checkpoint "$tmp/mck" > "$tmp/$name.out" 2> "$tmp/$name.err" &
    job=$!
    i=0
    while [ $i -lt 1200 ] && kill -0 $job 2>/dev/null && [ "$(grep -c "^$mark" "$tmp/$name.ph")" -lt "${mp_nth:-1}" ]; do
        sleep 0.05; i=$((i + 1))
    done
    [ "$(grep -c "^$mark" "$tmp/$name.ph")" -ge "${mp_nth:-1}" ] ||
        { bad "$name: '$mark' never began"; kill -KILL $job; return 1; }
}
# mp_signal TARGET: SIGTERM to rank 0 alone (r0) or to mpirun, which forwards it to every
# rank (all); the job must end within $mp_bound_ms, mpirun's own teardown included (sanitized
# ranks finalize slowly).  Sets $rc, $elapsed_ms, $n (stderr lines).
mp_bound_ms=5000; [ -z "${ASAN_OPTIONS:-}" ] || mp_bound_ms=15000
mp_signal() {
    victim=$job
    [ "$1" = r0 ] && victim=$(pgrep -o -P "$job" -f -- "$train")
    t0=$(date +%s%N)
    kill -TERM "$victim"
    i=0
    while kill -0 $job 2>/dev/null && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    elapsed_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    if kill -0 $job 2>/dev/null; then
        kill -KILL $job; bad "$name: mpirun still running 10 s after SIGTERM"; return 1
    fi
    wait $job; rc=$?
    n=$(lines "$tmp/$name.err")
    [ "$elapsed_ms" -le $mp_bound_ms ] || { bad "$name: the job took $elapsed_ms ms to end after SIGTERM"; return 1; }
}
# training: the ranks agree to stop after the step; rank 0 writes its checkpoint.  Rank 0
# alone: the ranks' code, 143; mpirun forwarding: mpirun's own non-zero code.
for target in r0 all; do
    name=mpi-train-$target
    mp_start $name training $small --gemm blocked --schedule const --epochs 100000 --eval-every 100000 &&
        sleep 0.5 && mp_signal $target || continue
    step=$(sed -n 's/.*interrupted at step \([0-9]*\);.*/\1/p' "$tmp/$name.err")
    if { [ $target = all ] && [ $rc -ne 0 ] || [ $rc -eq 143 ]; } && [ "$n" -ge 1 ] && [ "$n" -le 3 ] &&
       [ -n "$step" ] && [ -f "$tmp/mck/$(printf 'ckpt-%09d.bin' "$step")" ] && [ -z "$(leftovers "$tmp/mck")" ]; then
        ok "$name: exit $rc in $elapsed_ms ms, checkpoint of step $step: $(tail -n 1 "$tmp/$name.err")"
    else
        bad "$name: exit $rc after $elapsed_ms ms, checkpoints $(ls "$tmp/mck"), $n lines:"; cat "$tmp/$name.err"
    fi
done
# an evaluation (no safe point ahead): every rank exits at once, mpirun with a non-zero
# code; the checkpoint of step 2 stays the newest.  Rank 0 alone says so in one line;
# when mpirun forwards the signal it may tear down before relaying that line.
for target in r0 all; do
    name=mpi-eval-$target
    mp_start $name "during the evaluation at step 3" $big --gemm blocked --steps 100 --eval-every 3 \
        --checkpoint-every 2 && mp_signal $target || continue
    if [ $rc -ne 0 ] && [ "$n" -le 3 ] && { [ $target = all ] || grep -q "during the evaluation" "$tmp/$name.err"; } &&
       [ -f "$tmp/mck/ckpt-000000002.bin" ] && [ -z "$(leftovers "$tmp/mck")" ]; then
        ok "$name: exit $rc in $elapsed_ms ms: $(tail -n 1 "$tmp/$name.err")"
    else
        bad "$name: exit $rc after $elapsed_ms ms, checkpoints $(ls "$tmp/mck"), $n lines:"; cat "$tmp/$name.err"
    fi
done

# --eval-ranks: the training ranks stop after their step without waiting for the eval
# ranks' scoring of step 3 (a large valid split on a large model: seconds): it is
# abandoned, the eval rank told, and checkpoint 3 (written before that evaluation began)
# stays the newest (no checkpoint 4: waiting would have written it).  Rank 0 alone: exit
# 143, the job's end bounded as above.  Marked: rank 0 back to training after checkpoint
# 3 (the second "training"), so the step after it has the evaluation in flight.
name=mpi-evalranks
mp_np=3 mp_nth=2
if mp_start $name training $big --gemm blocked --steps 100 --eval-every 3 --eval-ranks 1 && mp_signal r0; then
    if [ $rc -eq 143 ] && [ "$n" -ge 1 ] && [ "$n" -le 3 ] &&
       grep -q "evaluation of step 3 abandoned: checkpoint .*ckpt-000000003.bin" "$tmp/$name.err" &&
       [ "$(ls "$tmp/mck")" = ckpt-000000003.bin ] && [ -z "$(leftovers "$tmp/mck")" ]; then
        ok "$name: exit $rc in $elapsed_ms ms: $(tail -n 1 "$tmp/$name.err")"
    else
        bad "$name: exit $rc after $elapsed_ms ms, checkpoints $(ls "$tmp/mck"), $n lines:"; cat "$tmp/$name.err"
    fi
fi
# SIGTERM to mpirun: Open MPI 4 sends the ranks SIGTERM odls_base_sigkill_timeout seconds
# later and SIGKILL as long again after it (README).  Given 3 s, the ranks stop after
# their step and the checkpoint the line names exists (steps of a large model: the
# default 1 s can lose it).  The job ends within 2 x 3 s and a margin.
export OMPI_MCA_odls_base_sigkill_timeout=3
mp_bound_ms=$((mp_bound_ms + 6000))
for ev in 0 1; do
    name=mpi-forwarded-$ev
    if [ $ev = 1 ]; then set -- --eval-ranks 1; mp_np=3 mp_nth=2; else set -- --eval-every 100000; mp_np=2 mp_nth=1; fi
    mp_start $name training $big --gemm blocked --steps 1000 --eval-every 3 "$@" && mp_signal all || continue
    ck=$(grep -o 'ckpt-[0-9]*\.bin' "$tmp/$name.err" | head -n 1)
    if [ $rc -ne 0 ] && [ "$n" -ge 1 ] && [ "$n" -le 3 ] && [ -n "$ck" ] && [ -f "$tmp/mck/$ck" ] &&
       [ -z "$(leftovers "$tmp/mck")" ]; then
        ok "$name: exit $rc in $elapsed_ms ms, $ck kept: $(tail -n 1 "$tmp/$name.err")"
    else
        bad "$name: exit $rc after $elapsed_ms ms, checkpoints $(ls "$tmp/mck"), $n lines:"; cat "$tmp/$name.err"
    fi
done
unset OMPI_MCA_odls_base_sigkill_timeout mp_np mp_nth

[ $fail -eq 0 ] && echo "check-signals: all passed" || echo "check-signals: FAILED"
exit $fail
