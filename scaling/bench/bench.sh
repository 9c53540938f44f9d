#!/bin/sh
# bench.sh — the default campaign behind `make bench`: a new run folder
#   results/runs/<UTC yyyymmddTHHMMSSZ>-<host>/
# with machine.json (peak), one CSV + JSON per study, the console output of each
# step (*.txt), figures/*.png and report.md.  QUICK=1 for a one-minute smoke run (every
# step on small sizes; the kernels on one thread unless THREADS=N says otherwise),
# THREADS=N for the all-threads count (default: every CPU), COUNTERS=likwid to run the
# microbench studies under likwid-perfctr -m (scaling/bench/likwid.sh).
# A study whose correctness check fails still gets its results, figures and report;
# the campaign then exits 1.  It only launches: the parts' tables are joined, the
# figures' values computed and report.md written by build/bin/study (scaling/study/).
set -u
cd "$(dirname "$0")/../.."
study=build/bin/study
run=$($study new-run) || exit 2
mkdir "$run/figures"
q=""; [ -n "${QUICK:-}" ] && q="--quick"
t=""; [ -n "${THREADS:-}" ] && t="--threads 1,$THREADS"
[ -n "${QUICK:-}" ] && t="--threads ${THREADS:-1}"
status=0

# A stop (SIGINT, SIGTERM, SIGHUP) reaches the step running: it runs in the background
# and is waited for, since a shell runs its traps only after a foreground child ends;
# the step gets SIGTERM (a study passes it to its points), then the campaign exits.
child=
stop() {
    [ -n "$child" ] && kill -TERM "$child" 2> /dev/null && wait "$child"
    echo "bench: stopped; $run keeps what was written"
    exit "$1"
}
trap 'stop 130' INT
trap 'stop 143' TERM HUP

# step NAME CMD...: runs CMD, keeps its output in $run/NAME.txt, remembers failure.
step() {
    name=$1; shift
    echo "== $name: $*"
    "$@" > "$run/$name.txt" 2>&1 &
    child=$!
    wait "$child"
    rc=$?
    child=
    cat "$run/$name.txt"
    if [ $rc -eq 130 ] || [ $rc -eq 143 ]; then echo "bench: interrupted; $run keeps what was written"; exit $rc; fi
    if [ $rc -ne 0 ]; then echo "bench: $name exited $rc"; [ $status -eq 0 ] && status=$rc; fi
}

echo "bench: run folder $run"
. scaling/bench/likwid.sh
likwid_setup "$run"
step peak build/bin/microbench peak $q ${THREADS:+--threads $THREADS} \
    --json "$run/machine.json" --csv "$run/peak.csv"
[ -f "$run/machine.json" ] || { echo "bench: peak wrote no machine.json; stopping"; exit 1; }
step exp $(likwid_cmd exp) build/bin/microbench exp $q $t --machine "$run/machine.json" \
    --csv "$run/exp.csv" --json "$run/exp.json"
step softmax $(likwid_cmd softmax) build/bin/microbench softmax $q $t --machine "$run/machine.json" \
    --csv "$run/softmax.csv" --json "$run/softmax.json"
step gemm $(likwid_cmd gemm) build/bin/microbench gemm $q $t --machine "$run/machine.json" \
    --csv "$run/gemm.csv" --json "$run/gemm.json"

# ---- rnn-train (models/): the Kneser-Ney trigram baseline, a short training
# run's learning curve (train.csv, drawn by plot/train.gp; an LSTM with RNNLM's class
# softmax, which beats kn3 in about a minute on 2 cores) and its summary, and the
# training-step throughput per configuration (train_bench.csv: tokens/s, GFLOP/s,
# fraction of this machine's FMA peak).  About 3 minutes on 2 cores; QUICK=1 ~20 s
# (a shorter curve and a smaller benchmark shape, all threads only).
tr_all=${THREADS:-$(nproc 2>/dev/null || echo 1)}
tr_shape="--hidden 512 --batch 32 --bptt 35 --vocab 10000"
if [ -n "${QUICK:-}" ]; then
    tr_train="--hidden 128 --classes 100 --steps 60 --eval-every 20"; tr_steps=2; tr_threads=$tr_all
    tr_shape="--hidden 256 --batch 16 --bptt 20 --vocab 5000"
else
    tr_train="--hidden 256 --classes 100 --epochs 2 --eval-every 38"; tr_steps=10; tr_threads="1 $tr_all"
    [ "$tr_all" -eq 1 ] && tr_threads=1
fi
step train_kn3 build/bin/rnn-train --model kn3 --completion 300 --csv "$run/train_kn3.csv" --json "$run/train_kn3.json"
# The curve is about learning (its speed is train_bench's): one thread, whose step time
# holds still, where the class layer's two-thread plans vary several-fold run to run.
step train build/bin/rnn-train --model lstm $tr_train --optimizer adam --lr 2e-3 --schedule const \
    --completion 300 --threads 1 --log "$run/train.csv" --csv "$run/train_summary.csv" \
    --json "$run/train_summary.json"
# Each configuration is timed in C, then in PyTorch right after (models/peer_torch.py;
# Debian's python3-torch, `make peers`), so a slow spell of the machine hits both sides.
# PyTorch runs OpenBLAS at the fastest core type that computes correctly here, probed
# once per run (~10 s, kept in train_peer.d); ~2 minutes on 2 cores.
have_torch=""; /usr/bin/python3 -c 'import torch' 2>/dev/null && have_torch=1
mkdir -p "$run/train_bench.d"
[ -n "$have_torch" ] && mkdir -p "$run/train_peer.d"
for tr_t in $tr_threads; do
    for tr_m in lstm elman; do
        step "train_bench_${tr_m}_t$tr_t" build/bin/rnn-train --model $tr_m $tr_shape \
            --threads "$tr_t" --bench $tr_steps \
            --csv "$run/train_bench.d/${tr_m}_t$tr_t.csv"
        [ -n "$have_torch" ] && step "train_peer_${tr_m}_t$tr_t" /usr/bin/python3 models/peer_torch.py \
            --model $tr_m $tr_shape --threads "$tr_t" \
            --steps $tr_steps --probe-cache "$run/train_peer.d/openblas_probe.json" \
            --csv "$run/train_peer.d/${tr_m}_t$tr_t.csv"
    done
done
# RNNLM's class-factorized softmax (100 classes) on the same LSTM, at each thread count
# (the report holds it to the full softmax's tokens/s: it does 3.3x fewer FLOPs); then
# PyTorch's nearest layer, nn.AdaptiveLogSoftmaxWithLoss, cut at the same kind of
# equal-mass split (peer_torch.py --classes: its row in train_peer.csv, classes 100)
for tr_t in $tr_threads; do
    step "train_bench_lstm_classes_t$tr_t" build/bin/rnn-train --model lstm $tr_shape --classes 100 \
        --threads "$tr_t" --bench $tr_steps \
        --csv "$run/train_bench.d/lstm_classes_t$tr_t.csv"
    [ -n "$have_torch" ] && step "train_peer_lstm_classes_t$tr_t" /usr/bin/python3 models/peer_torch.py \
        --model lstm $tr_shape --classes 100 --threads "$tr_t" \
        --steps $tr_steps --probe-cache "$run/train_peer.d/openblas_probe.json" \
        --csv "$run/train_peer.d/lstm_classes_t$tr_t.csv"
done
# The scaling study's model (make scaling: LSTM 128, 100 classes, T 35, V 10k) at its
# b = 80 a worker and at 800 (a group of 10 workers in one process), so that a study's
# cost can be predicted from its steps; on the corpus the study reads where it is
# downloaded (class sizes follow its counts)
tr_study="--model lstm --hidden 128 --classes 100 --bptt 35 --vocab 10000"
[ -f build/data/big/big.txt ] && tr_study="$tr_study --corpus big"
for tr_t in $tr_threads; do
    for tr_b in 80 800; do
        [ -n "${QUICK:-}" ] && [ $tr_b = 800 ] && continue
        step "train_bench_study_b${tr_b}_t$tr_t" build/bin/rnn-train $tr_study --batch $tr_b \
            --threads "$tr_t" --bench $((tr_b == 80 ? tr_steps * 4 : tr_steps)) \
            --csv "$run/train_bench.d/study_b${tr_b}_t$tr_t.csv"
    done
done
# the two-stage pipeline (output of step t overlapping the recurrence of t+1) against
# the sequential order, bit-identical, in one run
step train_pipeline build/bin/rnn-train --model lstm $tr_shape --threads "$tr_all" --pipeline \
    --bench $tr_steps --csv "$run/train_pipeline.csv"
# the distributed testing module: evaluation every 4 steps, serial and on a spare thread
# (--eval-async), 1 training thread; eval_exposed_fraction is what evaluation adds to
# the wall time over its own time
mkdir -p "$run/train_eval.d"
for tr_e in serial async; do
    step "train_eval_$tr_e" build/bin/rnn-train --model lstm --hidden 128 --classes 100 \
        --threads 1 --bench $((tr_steps * 2 + 8)) --eval-every 4 $([ $tr_e = async ] && echo --eval-async) \
        --csv "$run/train_eval.d/$tr_e.csv"
done
# data parallel: one process, then mpirun -np 2 (one rank a core, one thread, --workers
# 2) with each exchange: fused, bucketed (a communication thread; 4 MiB buckets, so the
# output layer's are sent while the LSTM's backward runs: the default 25 MiB's first
# bucket reaches into the LSTM and is final only at its end), and either with
# --embed-exchange sparse (the embedding's touched rows); report.md: the P = 2
# weak-scaling efficiency and the exposed exchange against fused's.  ~1 minute.
mkdir -p "$run/train_dp.d"
dp_bind="--bind-to core"; [ "$tr_all" -ge 2 ] || dp_bind="--oversubscribe --bind-to none"
step train_dp_one build/bin/rnn-train --model lstm $tr_shape --threads 1 --bench $tr_steps \
    --csv "$run/train_dp.d/one.csv"
for tr_x in fused bucketed fused-sparse bucketed-sparse; do
    step "train_dp_$tr_x" env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        mpirun -q $dp_bind --mca mpi_yield_when_idle 1 -np 2 build/bin/rnn-train --model lstm $tr_shape \
        --threads 1 --workers 2 --bench $tr_steps --sync "${tr_x%-sparse}" --bucket-mib 4 \
        --embed-exchange "$(case $tr_x in *-sparse) echo sparse ;; *) echo dense ;; esac)" \
        --csv "$run/train_dp.d/$tr_x.csv"
done
step train_dp_one_after build/bin/rnn-train --model lstm $tr_shape --threads 1 --bench $tr_steps \
    --csv "$run/train_dp.d/one_after.csv"   # a drift of the machine shows between the two
# concat NAME [--label COL]: one table RUN/NAME.csv of the parts RUN/NAME.d/*.csv
concat() {
    name=$1; shift
    $study concat "$run/$name.csv" "$run/$name.d"/*.csv "$@" || { [ $status -eq 0 ] && status=1; }
}
concat train_bench
concat train_eval --label eval_mode   # a first column: the part's name (serial, async)
concat train_dp --label dp_mode
# the PyTorch rows, one table for the report's "Against PyTorch" section
if [ -n "$have_torch" ]; then
    concat train_peer
else
    echo "== train_peer: skipped (/usr/bin/python3 cannot import torch; \`make peers\` installs PyTorch)"
fi
# ---- end rnn-train

# allreduce on real MPI, np = 2 and 4 on this machine (oversubscribed; allowed as root);
# the two CSVs are joined into allreduce.csv for the figure and report.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpi="mpirun -q --oversubscribe --bind-to none --mca mpi_yield_when_idle 1"
step allreduce_np2 $mpi -np 2 build/bin/allreduce-bench $q --algo all,library:3,library:4,library:6 \
    --csv "$run/allreduce_np2.csv" --json "$run/allreduce_np2.json"
step allreduce_np4 $mpi -np 4 build/bin/allreduce-bench $q --algo all,library:3,library:4,library:6 \
    --group-size 2 --csv "$run/allreduce_np4.csv" --json "$run/allreduce_np4.json"
parts=""
for p in 2 4; do [ -f "$run/allreduce_np$p.csv" ] && parts="$parts $run/allreduce_np$p.csv"; done
[ -z "$parts" ] || $study concat "$run/allreduce.csv" $parts || { [ $status -eq 0 ] && status=1; }

# The simulator held against a real network: two namespace hosts on 100 Mbit/s links,
# calibrated, allreduce-bench across them against study simulate (scaling/net/netcheck.sh
# --quick, about 30 s, into netcheck/): report.md's "Held against a real network".  Exit
# 3 (not root, no namespaces, veth or tbf) is no failure: the report gives its reason.
# Before simulate, whose simulate_report.md then carries it.  Not in the one-minute
# QUICK run.
if [ -z "${QUICK:-}" ]; then
    before=$status
    step netcheck sh scaling/net/netcheck.sh "$run/netcheck" --quick
    [ $rc -eq 3 ] && status=$before
fi

# Under SimGrid SMPI: make simulate's quick preset (allreduce up to 256 simulated nodes,
# the Sunway TaihuLight study's gradient-exchange experiment, and the scaling study's
# training step data-parallel at 1 and 16 nodes: train_dp_sim.csv); its figures and
# simulate_report.md, which report.md includes.  The sweep to 1024 nodes and the step at
# 100 and 800 nodes are `make simulate`'s (the report says so).  Not in the one-minute
# QUICK run.
if [ -z "${QUICK:-}" ] && [ -x build/bin/allreduce-bench-smpi ] && command -v smpirun >/dev/null; then
    step simulate env QUICK=1 $study run simulate "$run"
fi

$study figures "$run" || status=1
$study report "$run" && echo "bench: report $run/report.md" || { [ $status -eq 0 ] && status=1; }
exit $status
