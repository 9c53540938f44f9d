#!/bin/sh
# run.sh SCRIPT — the PyTorch peer's checks behind `make test` (target check-peers):
#   1. --help, and bad usage: exit 2 with one line on stderr;
#   2. tiny LSTM and Elman runs (hidden 16, vocab 50, 2 steps): exit 0, a CSV with the
#      columns report.sh reads, one row, the configuration asked for, positive tokens/s,
#      min <= median <= max, a first loss of about ln(vocab) (the model is wired up:
#      small initial weights give near-uniform predictions), peer = pytorch;
#   3. the OpenBLAS core-type probe: a core type whose instructions the CPU lacks
#      (SkylakeX where the CPU has no AVX-512), set in the environment, is found not
#      correct and not picked; the pick is one the CPU can run;
#   4. --csv never overwrites: a second run to the same file exits 2, one line on
#      stderr, the file unchanged, no temporary left behind;
#   5. --classes (RNNLM's class softmax as nn.AdaptiveLogSoftmaxWithLoss): a tiny run's
#      CSV (classes 5, its first loss near a uniform predictor's under the
#      factorization, below ln 50; its work above rnn-train's count, which has no tail
#      projections), and --check: passes on the full softmax and on classes, and fails
#      (exit 1, one line) where the loss cannot fall (--lr 1e-9).
# Skipped (exit 0, one line saying why) where /usr/bin/python3 cannot import torch:
# `make peers` installs it.  PYTHON overrides the interpreter.  Exits 1 if anything failed.
set -u
script=${1:?usage: run.sh SCRIPT}
py=${PYTHON:-/usr/bin/python3}
if ! [ -x "$py" ] || ! "$py" -c 'import torch' 2>/dev/null; then
    echo "check-peers: skipped ($py cannot import torch; \`make peers\` installs python3-torch)"
    exit 0
fi
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../../scaling/study/get.sh"   # col, csv_rows: the CSV read back
test_begin peers
tiny="--hidden 16 --vocab 50 --batch 4 --bptt 5 --steps 2 --threads 1"

echo "== peer_torch.py: --help and bad usage"
if "$py" "$script" --help > "$tmp/help" 2>&1 && grep -q -- '--csv' "$tmp/help" &&
    grep -q -- '--model' "$tmp/help"; then ok "--help"; else bad "--help"; cat "$tmp/help"; fi
# expect FRAGMENT ARGS...: exit 2, exactly one stderr line containing FRAGMENT
expect_usage() {
    frag=$1; shift
    "$py" "$script" "$@" > /dev/null 2> "$tmp/err"
    rc=$?
    lines=$(wc -l < "$tmp/err")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$frag" "$tmp/err"; then ok "$*: exit 2, '$(cat "$tmp/err")'"
    else bad "$*: exit $rc (want 2), $lines stderr lines (want 1 with '$frag')"; head -n 5 "$tmp/err"; fi
}
expect_usage "unknown model" --model gru
expect_usage "positive" --model lstm --hidden 0
expect_usage "does not exist" --csv "$tmp/no/such/dir/x.csv"
expect_usage "invalid int" --hidden many
expect_usage "--classes: expected 0" --classes 1
expect_usage "--classes: expected 0" --classes -3
expect_usage "--classes: expected 0" --vocab 50 --classes 51
expect_usage "exceed 1 GiB" --hidden 4096 --classes 100
expect_usage "--check writes no CSV" --check --csv "$tmp/check.csv"
expect_usage "finite" --clip nan

# check_csv FILE MODEL [CLASSES]: the row's configuration and figures
check_csv() {
    csv_rows "$1" '*' '
    function emit(   i) {
        if (++rows == 1) for (i = 1; i <= ncol; i++) seen[hdr[i]] = 1
        for (c in want) if (!(c in seen)) { print "missing column " c; bad = 1 }
        if (v["model"] != model || v["hidden"] != 16 || v["embed"] != 16 || v["vocab"] != 50 ||
            v["batch"] != 4 || v["bptt"] != 5 || v["threads"] != 1 || v["steps"] != 2 || v["classes"] != classes) {
            print "configuration " v["model"] " " v["hidden"] " " v["vocab"] " " v["batch"] " " v["bptt"] " " v["threads"] " " v["steps"] " classes " v["classes"]; bad = 1 }
        if (!(v["tokens_per_s"] > 0)) { print "tokens_per_s " v["tokens_per_s"]; bad = 1 }
        if (v["tokens_per_s"] + 0 > 0 && (v["tokens_per_s"] * v["step_ms_median"] / 1e3 < 19.9 ||
            v["tokens_per_s"] * v["step_ms_median"] / 1e3 > 20.1)) { print "tokens_per_s != batch bptt / median"; bad = 1 }
        if (!(v["step_ms_min"] + 0 > 0 && v["step_ms_min"] + 0 <= v["step_ms_median"] + 0 && v["step_ms_median"] + 0 <= v["step_ms_max"] + 0)) {
            print "step times " v["step_ms_min"] " " v["step_ms_median"] " " v["step_ms_max"]; bad = 1 }
        # small initial weights: near-uniform predictions, ln 50 with the full softmax;
        # with classes ln(head) + ln(the target class size), below ln 50
        if (classes == 0 && (v["loss_first"] < log(50) - 0.3 || v["loss_first"] > log(50) + 0.3)) { print "first loss " v["loss_first"] ", want about ln 50 = 3.91"; bad = 1 }
        if (v["loss_uniform"] - v["loss_first"] > 0.3 || v["loss_first"] - v["loss_uniform"] > 0.3) { print "first loss " v["loss_first"] ", a uniform predictor " v["loss_uniform"]; bad = 1 }
        if (classes == 0 && (v["loss_uniform"] < 3.9119 || v["loss_uniform"] > 3.9121)) { print "loss_uniform " v["loss_uniform"] ", want ln 50"; bad = 1 }
        if (classes > 0 && !(v["loss_uniform"] < log(50) - 0.3)) { print "loss_uniform " v["loss_uniform"] ", want below ln 50 with classes"; bad = 1 }
        if (classes > 0 && !(v["gflop_per_step"] + 0 > v["gflop_per_step_rnnscale"] + 0 && v["gflop_per_step_rnnscale"] + 0 > 0)) { print "GFLOP/step " v["gflop_per_step"] " against rnn-train count " v["gflop_per_step_rnnscale"]; bad = 1 }
        if (classes == 0 && v["gflop_per_step"] != v["gflop_per_step_rnnscale"]) { print "GFLOP/step " v["gflop_per_step"] " != " v["gflop_per_step_rnnscale"]; bad = 1 }
        if ((classes > 0) != (v["output"] ~ /^adaptive_log_softmax/)) { print "output " v["output"]; bad = 1 }
        if (v["peer"] != "pytorch" || v["peer_version"] == "" || v["openblas_coretype"] == "" || v["openblas_core"] == "") {
            print "peer " v["peer"] " " v["peer_version"] " coretype " v["openblas_coretype"] " core " v["openblas_core"]; bad = 1 }
    }
    BEGIN { n = split("model,layers,hidden,embed,vocab,batch,bptt,threads,classes,steps,step_ms_median,step_ms_min,step_ms_max,tokens_per_s,gflops,gflop_per_step,gflop_per_step_rnnscale,output,loss_first,loss_uniform,peer,peer_version,openblas_coretype,openblas_core,openblas_coretype_user,coretype_reason", w, ",")
            for (i = 1; i <= n; i++) want[w[i]] = 1 }
    END { if (rows != 1) { print rows + 0 " data rows, want 1"; bad = 1 } exit bad }' -v model="$2" -v classes="${3:-0}"
}

echo "== tiny runs (hidden 16, vocab 50, 2 steps): the CSV"
# LSTM with the probe (the environment's own value is a candidate too)
"$py" "$script" --model lstm $tiny --csv "$tmp/lstm.csv" > "$tmp/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ -f "$tmp/lstm.csv" ] && check_csv "$tmp/lstm.csv" lstm > "$tmp/why"; then
    ok "lstm: $(sed -n 's/^picked *//p' "$tmp/out" | cut -c1-100)"
else bad "lstm: exit $rc"; cat "$tmp/why" 2>/dev/null; tail -n 15 "$tmp/out"; fi
"$py" "$script" --model elman $tiny --coretype keep --csv "$tmp/elman.csv" > "$tmp/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ -f "$tmp/elman.csv" ] && check_csv "$tmp/elman.csv" elman > "$tmp/why"; then ok "elman (--coretype keep)"
else bad "elman: exit $rc"; cat "$tmp/why" 2>/dev/null; tail -n 15 "$tmp/out"; fi

echo "== the OpenBLAS core-type probe rejects a core type the CPU cannot run"
if grep -q '^flags.* avx512f' /proc/cpuinfo; then
    echo "skip this CPU has AVX-512: no SkylakeX-or-below core type is known to fail here"
else
    OPENBLAS_CORETYPE=SkylakeX "$py" "$script" --probe-only > "$tmp/probe" 2>&1
    rc=$?
    row=$(grep '^ *SkylakeX (environment)' "$tmp/probe")
    picked=$(sed -n 's/^picked *\([^:]*\):.*/\1/p' "$tmp/probe")
    if [ $rc -eq 0 ] && [ -n "$row" ] && ! echo "$row" | grep -q ' correct$' &&
        [ -n "$picked" ] && ! echo "$picked" | grep -qi skylakex; then
        ok "SkylakeX without AVX-512: '$(echo "$row" | sed 's/  */ /g')'; picked $picked"
    else bad "probe with OPENBLAS_CORETYPE=SkylakeX (exit $rc)"; cat "$tmp/probe"; fi
fi
# the pick of the LSTM run above is a core type whose ISA the CPU has
pick=$(col "$tmp/lstm.csv" openblas_coretype --all 2>/dev/null)
case "$pick" in
    SkylakeX|Cooperlake) need=avx512f ;;
    Zen|Haswell) need=avx2 ;;
    *) need= ;;
esac
if [ -n "$pick" ] && { [ -z "$need" ] || grep -q "^flags.* $need" /proc/cpuinfo; }; then ok "picked $pick: the CPU has ${need:-what it needs}"
else bad "picked '$pick', which needs $need"; fi

echo "== --csv never overwrites"
cp "$tmp/lstm.csv" "$tmp/before.csv"
"$py" "$script" --model lstm $tiny --coretype keep --csv "$tmp/lstm.csv" > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q 'already exists' "$tmp/err" &&
    cmp -s "$tmp/lstm.csv" "$tmp/before.csv"; then ok "existing file: exit 2, '$(cat "$tmp/err")'"
else bad "existing file: exit $rc"; cat "$tmp/err"; fi
left=$(find "$tmp" -name '*.tmp*' | head -n 3)
if [ -z "$left" ]; then ok "no temporary files left"; else bad "temporary files left: $left"; fi

echo "== --classes: nn.AdaptiveLogSoftmaxWithLoss at RNNLM's split, and --check"
"$py" "$script" --model lstm $tiny --classes 5 --coretype keep --csv "$tmp/classes.csv" > "$tmp/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ -f "$tmp/classes.csv" ] && check_csv "$tmp/classes.csv" lstm 5 > "$tmp/why"; then
    ok "lstm, 5 classes: first loss $(col "$tmp/classes.csv" loss_first --all), a uniform predictor's $(col "$tmp/classes.csv" loss_uniform --all)"
else bad "lstm --classes 5: exit $rc"; cat "$tmp/why" 2>/dev/null; tail -n 15 "$tmp/out"; fi
for c in 0 5; do
    "$py" "$script" --model lstm $tiny --classes $c --coretype keep --check > "$tmp/out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q '^check    passed' "$tmp/out"; then ok "--check --classes $c: $(grep '^check    loss' "$tmp/out" | cut -c10-90)..."
    else bad "--check --classes $c: exit $rc"; tail -n 5 "$tmp/out"; fi
done
"$py" "$script" --model lstm $tiny --classes 5 --coretype keep --check --lr 1e-9 > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && grep -q 'check failed: the loss on a repeated window' "$tmp/err"; then
    ok "--check with --lr 1e-9: exit 1, '$(cut -c1-110 "$tmp/err")...'"
else bad "--check with --lr 1e-9: exit $rc (want 1)"; cat "$tmp/err"; fi

[ $fail -eq 0 ] && echo "check-peers: passed" || echo "check-peers: FAILED"
exit $fail
