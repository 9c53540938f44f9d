#!/bin/sh
# train.sh RNN_TRAIN — data-parallel rnn-train under mpirun (target check-mpi-train):
#   1. equivalence: mpirun -np 2 --workers 4 and -np 3 --workers 6 against the same
#      --workers in one process: train loss and valid ppl within 1e-5 relative at each
#      of 50 steps (the sums are associated differently, so not bitwise);
#   2. resume: a checkpoint written at P = 2 resumed at P = 2 gives bit-identical
#      parameters to an uninterrupted P = 2 run; resumed at P = 1 and P = 3, the same
#      losses within 1e-5;
#   3. --sync bucketed (buckets small enough that the tiny model has several) and
#      per-tensor against fused at P = 2 and 3: the same curve within 1e-5; at P = 2 the
#      same parameter bits (every sum has two addends, which commute);
#   4. a parameter checksum mismatch (injected on rank 1) stops the run: exit 1, one line;
#   5. bad input: exit 2, one line from rank 0, no hang (every run is under `timeout`);
#   6. evaluation: one checkpoint scored at P = 1 and sharded at P = 2 gives valid and
#      test ppl within 1e-9 relative (the shards' sums added in another order); at P = 2
#      --eval-async logs the rows the synchronous evaluation logs;
#   7. --eval-ranks: -np 3 --eval-ranks 1 and -np 4 --eval-ranks 2 (2 training ranks)
#      train bit-identically to -np 2 --eval-async (the same final parameters, the same
#      train losses) and log its rows, valid ppl within 1e-9; bad K exits 2.
# The corpus is generated here (a small grammar), the model tiny.  Exits 1 on failure.
set -u
bin=${1:?usage: train.sh RNN_TRAIN}
. "$(dirname "$0")/env.sh"

fail=0
tmp=$(mktemp -d /tmp/rnnscale-mpitrain-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { split("the whale|ahab|the sea|ishmael|the ship", s, "|");
             split("sees|hunts|follows|loves|fears", v, "|");
             split("the captain.|the white whale.|the harpoon.|the sea.|the crew.", o, "|");
             x = 7; for (i = 0; i < 800; i++) { x = (x * 1103515245 + 12345) % 2147483648;
               printf "%s %s %s\n", s[x % 5 + 1], v[int(x / 8) % 5 + 1], o[int(x / 64) % 5 + 1] } }' \
    > "$tmp/corpus.txt"
common="--corpus $tmp/corpus.txt --model lstm --layers 1 --hidden 24 --embed 16
        --bptt 8 --batch 2 --optimizer adam --lr 0.02 --schedule const --seed 5 --threads 1
        --gemm openblas --eval-every 1"

# same_curve A.csv B.csv WHAT: every row's train_loss and valid_ppl within 1e-5 relative
same_curve() {
    if awk -F, 'NR == FNR { if (FNR > 1) { l[$1] = $4; p[$1] = $5 }; next }
                FNR > 1 { n++; if (!($1 in l)) bad = 1
                  else { dl = ($4 - l[$1]) / l[$1]; dp = ($5 - p[$1]) / p[$1];
                         if (dl < 0) dl = -dl; if (dp < 0) dp = -dp;
                         if (dl > 1e-5 || dp > 1e-5) bad = 1 } }
                END { exit (bad || n < 50) }' "$1" "$2"; then
        echo "ok   $3: the same curve over 50 steps (within 1e-5)"
    else
        echo "FAIL $3: curves differ (or short):"; paste -d' ' "$1" "$2" | head -n 8; fail=1
    fi
}
final_hash() { sed -n 's/.*parameters sha256 \([0-9a-f]*\).*/\1/p' "$1"; }

echo "== data-parallel rnn-train: equivalence with one process ($bin)"
for pn in 2:4 3:6; do
    p=${pn%:*}; n=${pn#*:}
    "$bin" $common --workers "$n" --steps 50 --log "$tmp/one$n.csv" > /dev/null 2> "$tmp/err" \
        || { echo "FAIL: one process --workers $n:"; cat "$tmp/err"; fail=1; }
    mpirun_q "$p" "$bin" $common --workers "$n" --steps 50 --log "$tmp/mpi$n.csv" \
        > /dev/null 2> "$tmp/err" || { echo "FAIL: np=$p --workers $n:"; cat "$tmp/err"; fail=1; }
    same_curve "$tmp/one$n.csv" "$tmp/mpi$n.csv" "np=$p --workers $n against one process"
done

echo "== checkpoints: written at P = 2, resumed at P = 2, 1 and 3"
mpirun_q 2 "$bin" $common --workers 6 --steps 50 --checkpoint "$tmp/ck-u" --log "$tmp/u.csv" > "$tmp/u.out" 2> "$tmp/err" \
    || { echo "FAIL: uninterrupted np=2:"; cat "$tmp/err"; fail=1; }
for p in 2 1 3; do
    mpirun_q 2 "$bin" $common --workers 6 --steps 23 --checkpoint "$tmp/ck$p" --checkpoint-every 23 \
        --log "$tmp/res$p.csv" > /dev/null 2> "$tmp/err" || { echo "FAIL: np=2 to step 23:"; cat "$tmp/err"; fail=1; }
    mpirun_q "$p" "$bin" $common --workers 6 --steps 50 --checkpoint "$tmp/ck$p" --resume \
        --log "$tmp/res$p.csv" > "$tmp/r$p.out" 2> "$tmp/err" \
        || { echo "FAIL: resume at np=$p:"; cat "$tmp/err"; fail=1; }
done
hu=$(final_hash "$tmp/u.out"); h2=$(final_hash "$tmp/r2.out")
if [ -n "$hu" ] && [ "$hu" = "$h2" ]; then
    echo "ok   resumed at P = 2: parameters bit-identical to the uninterrupted run ($hu)"
else
    echo "FAIL resumed at P = 2: parameters $h2, uninterrupted $hu"; fail=1
fi
# B_simple's moving averages travel in the checkpoint: the resumed log's b_simple after
# step 23 is the uninterrupted run's, to the digit
if awk -F, 'NR == FNR { if (FNR > 1) b[$1] = $7; next }
            FNR > 1 && $1 > 23 { n++; if (!($1 in b) || $7 == "" || $7 != b[$1]) bad = 1 }
            END { exit (bad || !n) }' "$tmp/u.csv" "$tmp/res2.csv"; then
    echo "ok   resumed at P = 2: b_simple continues as in the uninterrupted run"
else
    echo "FAIL resumed at P = 2: b_simple differs from the uninterrupted run"; fail=1
fi
"$bin" $common --workers 6 --steps 50 --log "$tmp/ref6.csv" > /dev/null 2>&1
same_curve "$tmp/ref6.csv" "$tmp/res1.csv" "written at P = 2, resumed at P = 1"
same_curve "$tmp/ref6.csv" "$tmp/res3.csv" "written at P = 2, resumed at P = 3"

echo "== --sync bucketed and per-tensor against fused"
# the tiny model's gradient is about 18 KiB: buckets of 0.005 MiB make four of them;
# one worker per rank sums the model's own gradient in place, two a separate sum
for pn in 2:4 3:6 2:2; do
    p=${pn%:*}; n=${pn#*:}; k=$p-$n
    for s in fused bucketed per-tensor; do
        mpirun_q "$p" "$bin" $common --workers "$n" --steps 50 --sync "$s" --bucket-mib 0.005 \
            --log "$tmp/sync-$s$k.csv" > "$tmp/sync-$s$k.out" 2> "$tmp/err" \
            || { echo "FAIL: np=$p --workers $n --sync $s:"; cat "$tmp/err"; fail=1; }
    done
    for s in bucketed per-tensor; do
        same_curve "$tmp/sync-fused$k.csv" "$tmp/sync-$s$k.csv" \
            "np=$p --workers $n --sync $s against fused"
        [ "$p" -eq 2 ] || continue
        hf=$(final_hash "$tmp/sync-fused$k.out"); h=$(final_hash "$tmp/sync-$s$k.out")
        if [ -n "$hf" ] && [ "$hf" = "$h" ]; then
            echo "ok   np=2 --workers $n --sync $s: parameters bit-identical to fused ($hf)"
        else
            echo "FAIL np=2 --workers $n --sync $s: parameters $h, fused $hf"; fail=1
        fi
    done
done

echo "== a parameter checksum mismatch stops the run (exit 1, one line)"
RNN_TRAIN_TEST_PERTURB_RANK=1 mpirun_q 2 -x RNN_TRAIN_TEST_PERTURB_RANK "$bin" $common \
    --workers 2 --steps 5 > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "checksum mismatch" "$tmp/err"; then
    echo "ok   $(cat "$tmp/err")"
else
    echo "FAIL: checksum mismatch: exit $rc (want 1):"; head -n 10 "$tmp/err"; fail=1
fi

echo "== evaluation sharded over the ranks; --eval-async under mpirun"
summary_num() { sed -n "s/.*\"$2\": *\([-0-9.eE+]*\).*/\1/p" "$1" | head -n 1; }
"$bin" $common --workers 2 --steps 10 --checkpoint "$tmp/ck-ev" > /dev/null 2> "$tmp/err" \
    || { echo "FAIL: the checkpoint to evaluate:"; cat "$tmp/err"; fail=1; }
for p in 1 2; do   # resumed at its last step: nothing trained, valid and test scored
    mpirun_q "$p" "$bin" $common --workers 2 --steps 10 --checkpoint "$tmp/ck-ev" --resume \
        --json "$tmp/ev$p.json" > /dev/null 2> "$tmp/err" || { echo "FAIL: np=$p eval:"; cat "$tmp/err"; fail=1; }
done
for col in valid_ppl test_ppl; do
    a=$(summary_num "$tmp/ev1.json" $col); b=$(summary_num "$tmp/ev2.json" $col)
    if [ -n "$a" ] && [ -n "$b" ] && awk -v a="$a" -v b="$b" 'BEGIN { d = (a - b) / a;
            if (d < 0) d = -d; exit !(d <= 1e-9) }'; then
        echo "ok   $col sharded over 2 ranks equals one rank's within 1e-9 ($a, $b)"
    else
        echo "FAIL $col: one rank $a, sharded over 2 ranks $b"; fail=1
    fi
done
for mode in sync async; do
    flag=; [ $mode = async ] && flag=--eval-async
    mpirun_q 2 "$bin" $common --workers 2 --steps 20 --eval-every 5 $flag --log "$tmp/$mode.csv" \
        > /dev/null 2> "$tmp/err" || { echo "FAIL: np=2 $mode evaluation:"; cat "$tmp/err"; fail=1; }
done
rows() { cut -d, -f1,2,4,5,6 "$1"; }   # without the timing columns
if [ "$(rows "$tmp/sync.csv")" = "$(rows "$tmp/async.csv")" ] && [ "$(wc -l < "$tmp/async.csv")" -eq 5 ] &&
        head -n 1 "$tmp/async.csv" | grep -q eval_exposed_seconds; then
    echo "ok   np=2 --eval-async logs the synchronous evaluation's rows"
else
    echo "FAIL np=2 --eval-async rows differ:"; paste -d' ' "$tmp/sync.csv" "$tmp/async.csv"; fail=1
fi

echo "== --eval-ranks: evaluation on ranks set aside, as --eval-async at the training ranks' P"
mpirun_q 2 "$bin" $common --workers 2 --steps 20 --eval-every 5 --eval-async --log "$tmp/er0.csv" \
    > "$tmp/er0.out" 2> "$tmp/err" || { echo "FAIL: np=2 --eval-async:"; cat "$tmp/err"; fail=1; }
for k in 1 2; do
    mpirun_q $((2 + k)) "$bin" $common --workers 2 --steps 20 --eval-every 5 --eval-ranks $k \
        --log "$tmp/er$k.csv" > "$tmp/er$k.out" 2> "$tmp/err" ||
        { echo "FAIL: np=$((2 + k)) --eval-ranks $k:"; cat "$tmp/err"; fail=1; }
    h0=$(final_hash "$tmp/er0.out"); h=$(final_hash "$tmp/er$k.out")
    # step, tokens, train loss and lr as printed; valid ppl within 1e-9 relative
    if [ -n "$h0" ] && [ "$h0" = "$h" ] && [ "$(cut -d, -f1,2,4,6 "$tmp/er0.csv")" = \
            "$(cut -d, -f1,2,4,6 "$tmp/er$k.csv")" ] && [ "$(wc -l < "$tmp/er$k.csv")" -eq 5 ] &&
        awk -F, 'NR == FNR { p[FNR] = $5; next } FNR > 1 { d = ($5 - p[FNR]) / p[FNR]
            if (d < 0) d = -d; if (d > 1e-9) bad = 1 } END { exit bad }' "$tmp/er0.csv" "$tmp/er$k.csv"
    then
        echo "ok   np=$((2 + k)) --eval-ranks $k: the parameters and rows of np=2 --eval-async ($h)"
    else
        echo "FAIL np=$((2 + k)) --eval-ranks $k differs from np=2 --eval-async ($h vs $h0):"
        paste -d' ' "$tmp/er0.csv" "$tmp/er$k.csv"; fail=1
    fi
done
timeout 60 "$bin" $common --steps 5 --eval-ranks 1 > /dev/null 2> "$tmp/err"; rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q "needs ranks to set aside" "$tmp/err"; then
    echo "ok   without mpirun: $(cat "$tmp/err")"
else
    echo "FAIL: --eval-ranks without mpirun: exit $rc (want 2):"; head -n 5 "$tmp/err"; fail=1
fi

echo "== bad input: exit 2, one line from rank 0, no hang"
: > "$tmp/exists.csv"
expect_usage() {
    np=$1; frag=$2; shift 2
    mpirun_q "$np" "$bin" $common --steps 5 "$@" > /dev/null 2> "$tmp/err"
    rc=$?
    lines=$(wc -l < "$tmp/err")
    if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -- "$frag" "$tmp/err"; then
        echo "FAIL: np=$np $*: exit $rc (want 2), $lines stderr lines (want 1 with '$frag'):"
        head -n 10 "$tmp/err"; fail=1
    else
        echo "ok   np=$np $*: $(cat "$tmp/err")"
    fi
}
expect_usage 2 "not a multiple of the 2 ranks" --workers 3
expect_usage 3 "unknown algorithm 'foo'" --allreduce foo
expect_usage 4 "does not divide the 4 ranks" --allreduce hier --group-size 3
expect_usage 2 "unknown mode 'lazy'" --sync lazy
expect_usage 2 "bucket-mib 0: out of range (expected a number > 0" --sync bucketed --bucket-mib 0
expect_usage 3 "bucket-mib -2: out of range (expected a number > 0" --sync bucketed --bucket-mib -2
expect_usage 2 "bucket-mib 1e300: out of range" --sync bucketed --bucket-mib 1e300
expect_usage 2 "expected one of: ring, .* or library:K)" --allreduce all
expect_usage 2 "already exists" --log "$tmp/exists.csv"
expect_usage 2 "one process only" --max-seconds 5
expect_usage 2 "leaves none of the 2 ranks" --eval-ranks 2
expect_usage 3 "leaves none of the 3 ranks" --eval-ranks 5
expect_usage 2 "out of range" --eval-ranks -1
expect_usage 3 "not a multiple of the 2 training ranks" --eval-ranks 1 --workers 3
expect_usage 3 "choose one" --eval-ranks 1 --eval-async

# A check that needs the exchange (library:K's range, known once MPI runs) fails before
# the log is made, so the corrected rerun with the same --log is not refused.
for np in 2 3; do
    er=""; [ $np -eq 3 ] && er="--eval-ranks 1"
    rm -f "$tmp/lib.csv"
    expect_usage $np "allreduce: library:99: " --allreduce library:99 $er --log "$tmp/lib.csv" \
        --checkpoint "$tmp/libck"
    if [ -e "$tmp/lib.csv" ] || [ -e "$tmp/libck" ]; then
        echo "FAIL: np=$np --allreduce library:99 left $(ls -d "$tmp/lib.csv" "$tmp/libck" 2>/dev/null)"; fail=1
    fi
    if mpirun_q $np "$bin" $common --steps 2 --allreduce library:1 $er --log "$tmp/lib.csv" \
            > /dev/null 2> "$tmp/err" && [ "$(wc -l < "$tmp/lib.csv")" -eq 3 ]; then
        echo "ok   np=$np the corrected rerun with the same --log ran"
    else
        echo "FAIL: np=$np the corrected rerun with --log $tmp/lib.csv:"; head -n 5 "$tmp/err"; fail=1
    fi
done

if [ $fail -eq 0 ]; then echo "check-mpi-train: all tests passed"; else echo "check-mpi-train: FAILED"; fi
exit $fail
