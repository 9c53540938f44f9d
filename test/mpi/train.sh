#!/bin/sh
# train.sh RNN_TRAIN — data-parallel rnn-train under mpirun (target check-mpi-train).
# Each check asserts what the arithmetic guarantees, on any CPU:
#   1. equivalence: with --allreduce ordered every step sums the N workers' gradients in
#      one fixed order (the binary-counter tree of models/grad_tree.h, over ranks and
#      workers alike) whenever the workers per rank are a power of two, so mpirun -np 2
#      --workers 4 and -np 3 --workers 6 end with the parameter bits (sha256) of one
#      process running the same --workers, after 50 Adam steps;
#   2. resume: a P = 2, N = 4 checkpoint resumed at P = 1, 2 and 4 (ordered) ends with
#      the uninterrupted run's parameter bits; b_simple continues as uninterrupted;
#   3. --sync bucketed (buckets small enough that the tiny model has several) and
#      per-tensor against fused, ordered, at P = 2 and 3 with 1, 2 and 3 workers per
#      rank: the same parameter bits and the same train loss and valid ppl rows (the
#      same P: the same order of every sum in them);
#   3b. --embed-exchange sparse (fused, bucketed) against dense on a 400-word vocabulary:
#      the same parameter bits, ordered at P = 3, the library's and ring at P = 2;
#   3c. --shard-update against the replicated update: the same parameter bits with ring,
#      rabenseifner (folded: a rank with no block), hier and ordered, Adam, momentum and
#      Nesterov, the clip engaged (at P = 2 and with ordered against the default exchange,
#      elsewhere against one cut alike); a sharded checkpoint resumed likewise;
#   4. the default allreduce, whose order differs (np=2 --workers 6: 3 workers a rank),
#      against one process: one plain SGD step (--clip 0), each parameter within the
#      bound derived below (a multi-step trajectory would amplify rounding); an update
#      off by 1e-3 of itself (lr 0.5005 for 0.5) falls outside it;
#   5. a parameter checksum mismatch (injected on rank 1) stops the run: exit 1, one line;
#   6. bad input: exit 2, one line from rank 0, no hang (every run is under `timeout`),
#      a checkpoint folder a live run holds among it (the line names its pid);
#   7. evaluation: one checkpoint scored at P = 1 and sharded at P = 2 gives valid and
#      test ppl within 1e-9 relative (the shards' double sums added in another order:
#      < 1e-12 for these few thousand terms); at P = 2 --eval-async logs the rows the
#      synchronous evaluation logs;
#   8. --eval-ranks: -np 3 --eval-ranks 1 and -np 4 --eval-ranks 2 (2 training ranks)
#      train bit-identically to -np 2 --eval-async (the same final parameters, the same
#      train losses) and log its rows, valid ppl within 1e-9; bad K exits 2.
# Rows of equal parameters (1, 2): each worker's loss and each scored token's loss are
# the same bits (the same parameters, the same shapes: valid is scored in groups of b
# streams on any rank); only their double sums are added in another order across ranks,
# a relative difference below K 2^-53 for K < 10^4 terms.  The log prints train_loss
# with 6 decimals and valid_ppl with 4, so the printed values are equal, or one unit of
# the last digit apart where the two doubles straddle a rounding boundary.
# The corpus is generated here (a small grammar), the model tiny.  Exits 1 on failure.
set -u
bin=${1:?usage: train.sh RNN_TRAIN}
. "$(dirname "$0")/env.sh"
. "$(dirname "$0")/../lib.sh"   # tiny_corpus
study_bin=$(dirname "$bin")/study
. "$(dirname "$0")/../../scaling/study/get.sh"   # col, study_get: the logs and summaries read

fail=0
tmp=$(mktemp -d /tmp/rnnscale-mpitrain-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
tiny_corpus "$tmp/corpus.txt"
base="--corpus $tmp/corpus.txt --model lstm --layers 1 --hidden 24 --embed 16
      --bptt 8 --batch 2 --schedule const --seed 5 --threads 1 --gemm openblas --eval-every 1"
common="$base --optimizer adam --lr 0.02"
ord="--allreduce ordered"

final_hash() { sed -n 's/.*parameters sha256 \([0-9a-f]*\).*/\1/p' "$1"; }
# same_bits A.out B.out WHAT: the final parameters' sha256 equal
same_bits() {
    ha=$(final_hash "$1"); hb=$(final_hash "$2")
    if [ -n "$ha" ] && [ "$ha" = "$hb" ]; then
        echo "ok   $3: the same parameter bits ($ha)"
    else
        echo "FAIL $3: parameters $hb, want $ha"; fail=1
    fi
}
# same_rows A.csv B.csv N WHAT: N rows, step, tokens and lr equal; train_loss and
# valid_ppl as printed equal or one unit of the last printed digit apart (the header)
same_rows() {
    if "$study_bin" compare "$1" "$2" --equal tokens,lr --abs train_loss=1.5e-6,valid_ppl=1.5e-4 \
        --rows "$3" > "$tmp/cmp" 2>&1; then
        echo "ok   $4: the same $3 log rows (train loss, valid ppl as printed)"
    else
        echo "FAIL $4: log rows differ (or not $3): $(cat "$tmp/cmp")"; fail=1
    fi
}

echo "== data-parallel rnn-train, --allreduce ordered: the bits of one process ($bin)"
for pn in 2:4 3:6; do
    p=${pn%:*}; n=${pn#*:}
    "$bin" $common --workers "$n" --steps 50 --log "$tmp/one$n.csv" > "$tmp/one$n.out" 2> "$tmp/err" \
        || { echo "FAIL: one process --workers $n:"; cat "$tmp/err"; fail=1; }
    mpirun_q "$p" "$bin" $common $ord --workers "$n" --steps 50 --log "$tmp/mpi$n.csv" \
        > "$tmp/mpi$n.out" 2> "$tmp/err" || { echo "FAIL: np=$p --workers $n:"; cat "$tmp/err"; fail=1; }
    same_bits "$tmp/one$n.out" "$tmp/mpi$n.out" "np=$p --workers $n against one process, 50 Adam steps"
    same_rows "$tmp/one$n.csv" "$tmp/mpi$n.csv" 50 "np=$p --workers $n against one process"
done

echo "== checkpoints (ordered): written at P = 2, N = 4, resumed at P = 2, 1 and 4"
mpirun_q 2 "$bin" $common $ord --workers 4 --steps 50 --checkpoint "$tmp/ck-u" --log "$tmp/u.csv" \
    > "$tmp/u.out" 2> "$tmp/err" || { echo "FAIL: uninterrupted np=2:"; cat "$tmp/err"; fail=1; }
for p in 2 1 4; do
    mpirun_q 2 "$bin" $common $ord --workers 4 --steps 23 --checkpoint "$tmp/ck$p" --checkpoint-every 23 \
        --log "$tmp/res$p.csv" > /dev/null 2> "$tmp/err" || { echo "FAIL: np=2 to step 23:"; cat "$tmp/err"; fail=1; }
    mpirun_q "$p" "$bin" $common $ord --workers 4 --steps 50 --checkpoint "$tmp/ck$p" --resume \
        --log "$tmp/res$p.csv" > "$tmp/r$p.out" 2> "$tmp/err" \
        || { echo "FAIL: resume at np=$p:"; cat "$tmp/err"; fail=1; }
    same_bits "$tmp/u.out" "$tmp/r$p.out" "written at P = 2, resumed at P = $p, against the uninterrupted run"
    same_rows "$tmp/u.csv" "$tmp/res$p.csv" 50 "written at P = 2, resumed at P = $p"
done
# B_simple's moving averages travel in the checkpoint: the resumed log's b_simple after
# step 23 is the uninterrupted run's, to the digit
if "$study_bin" compare "$tmp/u.csv" "$tmp/res2.csv" --after 23 --equal b_simple --filled b_simple \
    > "$tmp/cmp" 2>&1; then
    echo "ok   resumed at P = 2: b_simple continues as in the uninterrupted run"
else
    echo "FAIL resumed at P = 2: b_simple differs from the uninterrupted run: $(cat "$tmp/cmp")"; fail=1
fi

echo "== --sync bucketed and per-tensor against fused (ordered)"
# the tiny model's gradient is about 18 KiB: buckets of 0.005 MiB make four of them;
# one worker per rank sums the model's own gradient in place, two or three the tree's
# the rows without the timing columns and b_simple (bucketed takes the last worker's
# squared norm range by range: the same value rounded another way, not in the update)
rows() { col "$1" step,tokens,train_loss,valid_ppl,lr --all; }
for pn in 2:4 3:6 2:2 2:6; do
    p=${pn%:*}; n=${pn#*:}; k=$p-$n
    for s in fused bucketed per-tensor; do
        mpirun_q "$p" "$bin" $common $ord --workers "$n" --steps 50 --sync "$s" --bucket-mib 0.005 \
            --log "$tmp/sync-$s$k.csv" > "$tmp/sync-$s$k.out" 2> "$tmp/err" \
            || { echo "FAIL: np=$p --workers $n --sync $s:"; cat "$tmp/err"; fail=1; }
    done
    for s in bucketed per-tensor; do
        same_bits "$tmp/sync-fused$k.out" "$tmp/sync-$s$k.out" "np=$p --workers $n --sync $s against fused"
        a=$(rows "$tmp/sync-fused$k.csv"); b=$(rows "$tmp/sync-$s$k.csv")
        if [ "$(wc -l < "$tmp/sync-$s$k.csv")" -eq 51 ] && [ -n "$a" ] && [ "$a" = "$b" ]; then
            echo "ok   np=$p --workers $n --sync $s: fused's 50 rows of train loss and valid ppl, as printed"
        else
            echo "FAIL np=$p --workers $n --sync $s: log rows differ from fused's:"
            paste -d' ' "$tmp/sync-fused$k.csv" "$tmp/sync-$s$k.csv" | head -n 8; fail=1
        fi
    done
done

echo "== --embed-exchange sparse against dense"
# The union's rows packed and summed, every other row zero as the dense sum leaves it:
# the same sums where the order does not depend on the position (ordered; P = 2 with any
# algorithm), so the same parameter bits after 50 steps, fused and bucketed; on a
# vocabulary of 400 words, where a step touches a fraction of the rows (its --bench
# reports the fraction, which must be below 1 for the check to mean anything).
awk 'BEGIN { x = 7; for (i = 0; i < 3000; i++) { line = "";
               for (j = 0; j < 8; j++) { x = (x * 1103515245 + 12345) % 2147483648;
                 r = x / 2147483648; line = line sprintf("w%d ", int(400 * r * r)) }
               print line "." } }' > "$tmp/wide.txt"
wide="--corpus $tmp/wide.txt --model lstm --hidden 24 --embed 16 --bptt 8 --batch 2 --schedule const
      --seed 5 --threads 1 --gemm openblas --optimizer adam --lr 0.02 --eval-every 25"
for case in "3:6:$ord" "2:4:" "2:2:--allreduce ring"; do
    p=${case%%:*}; rest=${case#*:}; n=${rest%%:*}; algo=${rest#*:}; k=$p-$n
    mpirun_q "$p" "$bin" $wide $algo --workers "$n" --steps 50 > "$tmp/sp-dense$k.out" 2> "$tmp/err" ||
        { echo "FAIL: np=$p dense:"; cat "$tmp/err"; fail=1; }
    for s in fused bucketed; do
        mpirun_q "$p" "$bin" $wide $algo --workers "$n" --steps 50 --sync "$s" --bucket-mib 0.005 \
            --embed-exchange sparse > "$tmp/sp-$s$k.out" 2> "$tmp/err" ||
            { echo "FAIL: np=$p --embed-exchange sparse --sync $s:"; cat "$tmp/err"; fail=1; }
        same_bits "$tmp/sp-dense$k.out" "$tmp/sp-$s$k.out" "np=$p --workers $n ${algo:-(library)} --embed-exchange sparse --sync $s against dense"
    done
done
mpirun_q 2 "$bin" $wide --workers 2 --embed-exchange sparse --bench 25 --csv "$tmp/sp.csv" > /dev/null 2> "$tmp/err"
rows=$(col "$tmp/sp.csv" embed_rows 2> /dev/null)
if [ -n "$rows" ] && awk -v f="$rows" 'BEGIN { exit !(f > 0 && f < 1) }'; then
    echo "ok   sparse steps moved $rows of the embedding's rows"
else
    echo "FAIL the sparse steps' fraction of rows is '$rows' (expected in (0, 1)): $(cat "$tmp/err")"; fail=1
fi

echo "== --shard-update against the replicated update"
# Each rank updates its block between the reduce-scatter and the allgather; the global
# norm comes from whole 1024-float chunks (this model: 20), so the clip (0.5, which
# changes the result here) and every update are the replicated run's bits.  The sharded
# exchange cuts its blocks on those chunks: at P = 2 (a + b = b + a) and with ordered
# the replicated run's default cut sums alike; elsewhere the replicated run takes the
# same cut (test hook RNN_TRAIN_TEST_GRANULE).  Algorithms with a fold (rabenseifner at
# P = 3: a rank with no block) and groups (hier); a sharded checkpoint resumed.
shard="$wide --clip 0.5 --eval-every 25 --steps 50"
for case in "2:ring:adam:0" "3:rabenseifner:momentum:1024" "4:hier --group-size 2 --inner ring:adam:1024" \
            "3:ordered:nesterov:0" "4:hier --group-size 2:momentum:1024"; do
    p=${case%%:*}; rest=${case#*:}; algo=${rest%%:*}; rest=${rest#*:}; opt=${rest%%:*}; cut=${rest#*:}
    k=$p-$opt
    [ "$cut" = 0 ] || export RNN_TRAIN_TEST_GRANULE=$cut
    mpirun_q "$p" "$bin" $shard --allreduce $algo --optimizer "$opt" --workers "$p" \
        > "$tmp/rep$k.out" 2> "$tmp/err" || { echo "FAIL: np=$p $algo replicated:"; cat "$tmp/err"; fail=1; }
    unset RNN_TRAIN_TEST_GRANULE
    mpirun_q "$p" "$bin" $shard --allreduce $algo --optimizer "$opt" --workers "$p" --shard-update \
        > "$tmp/sh$k.out" 2> "$tmp/err" || { echo "FAIL: np=$p $algo --shard-update:"; cat "$tmp/err"; fail=1; }
    same_bits "$tmp/rep$k.out" "$tmp/sh$k.out" "np=$p --allreduce $algo --optimizer $opt --shard-update against replicated ($([ "$cut" = 0 ] && echo "its own cut" || echo "cut in $cut"))"
done
mpirun_q 3 "$bin" $shard --allreduce ring --workers 3 --shard-update --steps 23 --checkpoint "$tmp/ck-sh" \
    --checkpoint-every 23 > /dev/null 2> "$tmp/err" &&
mpirun_q 3 "$bin" $shard --allreduce ring --workers 3 --shard-update --checkpoint "$tmp/ck-sh" --resume \
    > "$tmp/sh-res.out" 2> "$tmp/err" &&
mpirun_q 3 "$bin" $shard --allreduce ring --workers 3 --shard-update > "$tmp/sh-u.out" 2> "$tmp/err" ||
    { echo "FAIL: the sharded resume's runs:"; cat "$tmp/err"; fail=1; }
same_bits "$tmp/sh-u.out" "$tmp/sh-res.out" "np=3 --shard-update, checkpoint at 23, resumed, against uninterrupted"

echo "== the default allreduce (another order): one SGD step within the derived bound"
# One plain SGD step from the same start, x = the parameters after it, u = 2^-24:
#   S = fl(sum_i g_i) in some order: |S_a - S_b| <= 2 (N-1) u sum_i|g_i| (+ O(u^2));
#   x = fl(x0 - fl(lr fl(S/N))), the two roundings of the update and the one of the
#   subtraction on each side: |x_a - x_b| <= (2N + 2) u M + u (|x_a| + |x_b|), where
#   M = lr sum_i|g_i| / N (times 1 + 1e-5 for the O(u^2) terms).
# M comes from the trainer itself: RNN_TRAIN_TEST_ABS_GRADS=1 sums |g_i| (a sum of
# positive terms, relative error <= (N-1) u), and steps at lr and 2 lr from the same
# x0 differ by exactly the update (times 2 is exact) up to the subtractions' rounding:
# M <= (|x'_1 - x'_2| + u (|x'_1| + |x'_2|)) (1 + 1e-5).  np=2 --workers 6 sums three
# workers per rank, an order that no allreduce makes the one-process tree's.
sgd="$base --optimizer sgd --clip 0 --steps 1 --checkpoint-every 1 --workers 6"
ckpt_params() {   # the parameters of the checkpoint in DIR, one hex float a line
    f=$(ls "$1"/ckpt-*.bin 2> /dev/null | tail -n 1)
    [ -n "$f" ] || return 1
    hb=$(od -An -t u4 -j 12 -N 4 "$f" | tr -d ' ')         # ckpt_header.header_bytes
    np=$(od -An -t d8 -j $((8 + hb - 16)) -N 8 "$f" | tr -d ' ')   # .nparams, before .nstate
    od -An -v -t x4 -w4 -j $((8 + hb)) -N $((4 * np)) "$f" | tr -d ' '
}
"$bin" $sgd --lr 0.5 --checkpoint "$tmp/sgd-a" > /dev/null 2> "$tmp/err" &&
mpirun_q 2 "$bin" $sgd --lr 0.5 --checkpoint "$tmp/sgd-b" > /dev/null 2> "$tmp/err" &&
RNN_TRAIN_TEST_ABS_GRADS=1 "$bin" $sgd --lr 0.5 --checkpoint "$tmp/sgd-1" > /dev/null 2> "$tmp/err" &&
RNN_TRAIN_TEST_ABS_GRADS=1 "$bin" $sgd --lr 1 --checkpoint "$tmp/sgd-2" > /dev/null 2> "$tmp/err" &&
"$bin" $sgd --lr 0.5005 --checkpoint "$tmp/sgd-c" > /dev/null 2> "$tmp/err" ||
    { echo "FAIL: the SGD step's runs:"; cat "$tmp/err"; fail=1; }
for d in a b c 1 2; do ckpt_params "$tmp/sgd-$d" > "$tmp/p$d" || : > "$tmp/p$d"; done
# within_bound A B: every parameter of run A within the bound of run B's; says how close
within_bound() {
    paste "$tmp/p$1" "$tmp/p$2" "$tmp/p1" "$tmp/p2" | awk -v N=6 '
        function f32(h,   b, s, e, m, i) { b = 0
            for (i = 1; i <= 8; i++) b = b * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
            s = b >= 2147483648 ? -1 : 1; if (s < 0) b -= 2147483648
            e = int(b / 8388608); m = b - e * 8388608
            if (e == 255) bad = 1
            return e ? s * (1 + m / 8388608) * 2 ^ (e - 127) : s * m * 2 ^ -149 }
        function abs(x) { return x < 0 ? -x : x }
        { a = f32($1); b = f32($2); x1 = f32($3); x2 = f32($4); u = 2 ^ -24; n++
          M = (abs(x1 - x2) + u * (abs(x1) + abs(x2))) * (1 + 1e-5)
          bound = ((2 * N + 2) * u * M + u * (abs(a) + abs(b))) * (1 + 1e-5)
          if (a != b) diff++
          if (abs(a - b) > bound) over++
          if (bound > 0 && abs(a - b) / bound > worst) worst = abs(a - b) / bound }
        END { printf "%d parameters, %d differ, %d beyond, largest |difference| / bound %.3g\n",
                     n, diff, over, worst
              exit (bad || n < 1000 || over) }'
}
if res=$(within_bound a b); then
    echo "ok   np=2 --workers 6 (library) against one process, one SGD step: $res"
else
    echo "FAIL np=2 --workers 6 against one process, one SGD step, beyond the bound: ${res:-no parameters}"; fail=1
fi
# the bound catches an update off by 1e-3 of itself (a worker lost would be 1/6)
res=$(within_bound a c)
case $res in
    "" | *" 0 beyond"*) echo "FAIL one SGD step at lr 0.5005 passes as lr 0.5's (${res:-no parameters})"; fail=1 ;;
    *) echo "ok   the bound tells lr 0.5005's SGD step from lr 0.5's: $res" ;;
esac

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
summary_num() { study_get "$1" "rows.0.$2" 2> /dev/null; }   # full precision (the CSV: 6 digits)
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
# (rows: without the timing columns)
a=$(rows "$tmp/sync.csv"); b=$(rows "$tmp/async.csv")
if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$(wc -l < "$tmp/async.csv")" -eq 5 ] &&
        [ -n "$(csv_has "$tmp/async.csv" eval_exposed_seconds)" ]; then
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
    if [ -n "$h0" ] && [ "$h0" = "$h" ] && [ "$(wc -l < "$tmp/er$k.csv")" -eq 5 ] &&
        "$study_bin" compare "$tmp/er0.csv" "$tmp/er$k.csv" --equal tokens,train_loss,lr \
            --rel valid_ppl=1e-9 --rows 4 > /dev/null 2>&1
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
expect_usage 2 "no reduce-scatter and allgather" --shard-update --allreduce recdbl
expect_usage 2 "use --sync fused (not bucketed)" --shard-update --allreduce ring --sync bucketed
expect_usage 2 "optimizer lamb scales each tensor" --shard-update --allreduce ring --optimizer lamb
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
# a live one-process run's folder: rank 0 finds it locked, every rank ends
"$bin" $common --steps 100000000 --eval-every 50 --checkpoint "$tmp/live" > /dev/null 2>&1 &
live=$!
i=0
while [ $i -lt 300 ] && ! ls "$tmp/live" 2>/dev/null | grep -q '^ckpt-'; do sleep 0.1; i=$((i + 1)); done
expect_usage 2 "checkpoint folder $tmp/live is in use by pid $live" --checkpoint "$tmp/live"
expect_usage 2 "checkpoint folder $tmp/live is in use by pid $live" --checkpoint "$tmp/live" --resume
expect_usage 3 "checkpoint folder $tmp/live is in use by pid $live" --checkpoint "$tmp/live" \
    --resume --eval-ranks 1
kill -TERM $live
wait $live

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
