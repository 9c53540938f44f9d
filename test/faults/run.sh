#!/bin/sh
# test/faults/run.sh BIN_DIR — faults a long run meets, and what must survive them:
#   1. a full disk (a small tmpfs; skipped, with a line, where mounting is not allowed)
#      while rnn-train writes a checkpoint and a result file: the run stops with one
#      line naming the file, exit 1 or 2; the previous checkpoint stays whole (a resume
#      from it continues) and no partial or temporary file is left;
#   2. one rank killed (SIGKILL) mid-run, under mpirun, of allreduce-bench and of
#      data-parallel rnn-train: the job ends within seconds with a message, exit != 0,
#      and no result file is half-written; the next start in that checkpoint folder
#      removes the killed writer's temporaries;
#   3. test/faults/files.sh: locked folders and logs, stale temporaries, FIFOs.
# Exits 1 on failure.
set -u
bin=${1:-build/bin}
cd "$(dirname "$0")/../.."
. test/mpi/env.sh
. test/lib.sh   # ok, bad, tiny_corpus
tmp=$(mktemp -d /tmp/rnnscale-faults-XXXXXX)
disk=$tmp/disk
cleanup() { umount "$disk" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail=0

tiny_corpus "$tmp/corpus.txt"
train="$bin/rnn-train --corpus $tmp/corpus.txt --model lstm --layers 1 --hidden 24 --embed 16 --bptt 8
       --batch 2 --optimizer adam --lr 0.02 --schedule const --seed 5 --threads 1 --gemm openblas"
# leftovers DIR: files that are not a finished checkpoint or result (temporaries)
leftovers() { find "$1" -type f ! -name 'ckpt-*.bin' ! -name '*.csv' ! -name 'filler' ! -name .lock | head -n 3; }

echo "== a full disk"
mkdir -p "$disk"
if ! mount -t tmpfs -o size=512k tmpfs "$disk" 2>/dev/null; then
    echo "skip a full disk: cannot mount a tmpfs here (not root, or no CAP_SYS_ADMIN)"
else
    # room for one 59 KB checkpoint, not two: the first is written, the second fails
    free_kb=$(df -k "$disk" | awk 'NR == 2 { print $4 }')
    dd if=/dev/zero of="$disk/filler" bs=1k count=$((free_kb - 100)) 2>/dev/null
    $train --steps 40 --eval-every 5 --checkpoint "$disk/ck" > "$tmp/full.out" 2> "$tmp/full.err"
    rc=$?
    first=$(ls "$disk/ck" 2>/dev/null | head -n 1)
    if [ $rc -ne 0 ] && [ $rc -ne 130 ] && [ "$(wc -l < "$tmp/full.err")" -eq 1 ] && grep -qi "space\|write" "$tmp/full.err"; then
        ok "checkpoint on a full disk: exit $rc, one line: $(cat "$tmp/full.err")"
    else
        bad "checkpoint on a full disk: exit $rc:"; cat "$tmp/full.err"
    fi
    [ -z "$(leftovers "$disk")" ] && ok "no temporary or partial file left" || bad "left behind: $(leftovers "$disk")"
    # the checkpoint that was written is whole: with room again, the run resumes from it
    rm -f "$disk/filler"
    if [ "$first" = ckpt-000000005.bin ] &&
       $train --steps 10 --eval-every 5 --checkpoint "$disk/ck" --resume > "$tmp/res.out" 2> "$tmp/res.err"; then
        ok "the checkpoint written before the disk filled resumes ($first)"
    else
        bad "resume from $first after the full disk:"; cat "$tmp/res.err"
    fi
    # a result file (--csv) on a full disk: refused whole, nothing partial
    dd if=/dev/zero of="$disk/filler" bs=1k count=$(($(df -k "$disk" | awk 'NR == 2 { print $4 }') - 4)) 2>/dev/null
    $train --steps 5 --eval-every 5 --csv "$disk/summary.csv" --json "$disk/summary.json" \
        --log "$disk/log.csv" > /dev/null 2> "$tmp/csv.err"
    rc=$?
    if [ $rc -ne 0 ] && [ ! -s "$disk/summary.json" ] && [ -z "$(leftovers "$disk")" ]; then
        ok "result files on a full disk: exit $rc, none half-written: $(head -n 1 "$tmp/csv.err")"
    else
        bad "result files on a full disk: exit $rc, $(ls "$disk")"; cat "$tmp/csv.err"
    fi
    umount "$disk"
fi

echo "== one rank killed mid-run"
# killed NAME MARK NP CMD...: run CMD under mpirun, SIGKILL its newest rank once the
# folder MARK holds a file (or after 3 s without one); the job must end within 20 s, exit != 0
killed() {
    name=$1; mark=$2; np=$3; shift 3
    ASAN_OPTIONS=$rank_asan $MPIRUN --oversubscribe --bind-to none -np "$np" "$@" > "$tmp/$name.out" 2>&1 &
    job=$!
    i=0
    if [ -n "$mark" ]; then   # until the folder MARK holds a file (at most 60 s)
        while [ $i -lt 120 ] && [ -z "$(ls "$mark" 2>/dev/null)" ]; do sleep 0.5; i=$((i + 1)); done
    else
        sleep 3
    fi
    # the newest rank: a child of this mpirun, never another run's process of that name
    victim=$(pgrep -n -P "$job" -f -- "$1")
    [ -n "$victim" ] && kill -KILL "$victim"
    t0=$(date +%s); i=0
    while kill -0 $job 2>/dev/null && [ $i -lt 40 ]; do sleep 0.5; i=$((i + 1)); done
    if kill -0 $job 2>/dev/null; then
        kill -KILL $job; bad "$name: still running 20 s after a rank was killed"; return
    fi
    wait $job; rc=$?
    said=$(grep -m1 -i 'signal 9\|killed' "$tmp/$name.out" | sed 's/^ *//')
    [ $rc -ne 0 ] && [ -n "$said" ] && ok "$name: a killed rank ends the job in $(( $(date +%s) - t0 )) s, exit $rc: $said" ||
        { bad "$name: exit $rc after a rank was killed, saying:"; tail -n 5 "$tmp/$name.out"; }
}
killed bench "" 2 "$bin/allreduce-bench" -m 4:16M --iters 2000 --algo ring,recdbl --csv "$tmp/ar.csv"
[ ! -e "$tmp/ar.csv" ] && [ -z "$(find "$tmp" -maxdepth 1 -name '*ar.csv*')" ] &&
    ok "allreduce-bench: no result file, nor a partial one" || bad "allreduce-bench left $(ls "$tmp" | grep ar.csv)"
mkdir -p "$tmp/mck"
killed train "$tmp/mck" 2 $train --workers 2 --steps 100000000 --eval-every 5 \
    --checkpoint "$tmp/mck" --csv "$tmp/train.csv"
# a kill mid-write may leave the writer's temporary (NAME.tmp.HOST.PID.XXXXXX), never a partial NAME
[ ! -e "$tmp/train.csv" ] && [ -z "$(leftovers "$tmp/mck" | grep -v '\.tmp\.')" ] && ok "rnn-train: no summary, no partial checkpoint" ||
    bad "rnn-train left $(ls "$tmp/mck") $(ls "$tmp" | grep train.csv)"
$train --workers 2 --steps 1 --checkpoint "$tmp/mck" --resume > /dev/null 2> "$tmp/mres.err" &&
    ok "rnn-train: its last checkpoint resumes in one process" || { bad "resume after the kill:"; cat "$tmp/mres.err"; }
[ -z "$(leftovers "$tmp/mck")" ] && ok "rnn-train: the resume removed the killed writer's temporaries" ||
    bad "left after the resume: $(leftovers "$tmp/mck")"

echo "== files"
sh test/faults/files.sh "$bin" || fail=1

[ $fail -eq 0 ] && echo "check-faults: all passed" || echo "check-faults: FAILED"
exit $fail
