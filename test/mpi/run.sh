#!/bin/sh
# run.sh TEST_BIN BENCH_BIN — the MPI checks behind `make test` (target check-mpi):
#   1. the correctness matrix (test_allreduce.c) under mpirun for p = 1..9, 13, 16,
#      oversubscribed (more ranks than cores; ranks yield when idle), and float
#      results bitwise identical across two separate runs at p = 5 and 8;
#   2. allreduce-bench on bad input: exit 2, exactly one line on stderr (from rank 0),
#      and no hang (every run is under `timeout`);
#   3. allreduce-bench smoke runs: a checked run exits 0 and writes its CSV once.
# MPIRUN overrides the launcher (default mpirun).  Exits 1 if anything failed.
set -u
test_bin=${1:?usage: run.sh TEST_BIN BENCH_BIN}
bench=${2:?usage: run.sh TEST_BIN BENCH_BIN}
. "$(dirname "$0")/env.sh"

fail=0
tmp=$(mktemp -d /tmp/rnnscale-mpi-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

echo "== MPI correctness matrix: every algorithm, p = 1..9, 13, 16 ($test_bin)"
start=$(date +%s)
for p in 1 2 3 4 5 6 7 8 9 13 16; do
    mpirun_q "$p" "$test_bin" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    if [ $rc -ne 0 ]; then
        [ $rc -eq 124 ] && echo "FAIL p=$p: timed out (a hang?)" || echo "FAIL p=$p: exit $rc"
        head -n 30 "$tmp/err"
        fail=1
    fi
    cat "$tmp/out"
done
echo "   matrix took $(( $(date +%s) - start )) s"

echo "== float results bitwise identical across separate runs (same algorithms, same p)"
for p in 5 8; do
    h1=$(mpirun_q "$p" "$test_bin" 2>/dev/null | sed -n 's/.*float results hash \([0-9a-f]*\).*/\1/p')
    h2=$(mpirun_q "$p" "$test_bin" 2>/dev/null | sed -n 's/.*float results hash \([0-9a-f]*\).*/\1/p')
    if [ -n "$h1" ] && [ "$h1" = "$h2" ]; then
        echo "ok   p=$p: two runs, hash $h1"
    else
        echo "FAIL p=$p: hashes differ or missing ('$h1' vs '$h2')"; fail=1
    fi
done

echo "== allreduce-bench: bad input exits 2 with one line from rank 0, no hang"
printf '4096\n64k\n# a comment\nbanana\n' > "$tmp/bad_sizes"
# expect NP FRAGMENT ARGS...: exit 2, one stderr line containing FRAGMENT
expect_usage() {
    np=$1; frag=$2; shift 2
    mpirun_q "$np" "$bench" "$@" > /dev/null 2> "$tmp/err"
    rc=$?
    lines=$(wc -l < "$tmp/err")
    if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || ! grep -q -- "$frag" "$tmp/err"; then
        echo "FAIL: np=$np $*: exit $rc (want 2), $lines stderr lines (want 1 with '$frag'):"
        head -n 10 "$tmp/err"
        fail=1
    else
        echo "ok   np=$np $*: $(cat "$tmp/err")"
    fi
}
expect_usage 3 "unknown algorithm 'foo'" --algo ring,foo
expect_usage 2 "not a size" -m 4:abc
expect_usage 2 "larger than MAX" -m 8:4
expect_usage 2 "cannot open" --sizes "$tmp/none"
expect_usage 3 "'banana' is not a size" --sizes "$tmp/bad_sizes"
expect_usage 4 "does not divide the 4 ranks" --group-size 3 --algo hier
expect_usage 2 "expected one of: ring, segring, recdbl, rabenseifner, binomial, ordered, library)" --algo hier --inner torus2d
expect_usage 4 "unknown type 'half'" --dtype half
expect_usage 2 "unknown mode" --mode sometimes
expect_usage 2 "has allreduce algorithms 1.." --algo library:42
expect_usage 2 "unknown option" --frobnicate

echo "== allreduce-bench: smoke runs (checked, exit 0, CSV written once)"
if mpirun_q 4 "$bench" --quick -m 4:64k --mode both --inplace --dtype float,int32 \
        --algo all,library:4 --group-size 2 --csv "$tmp/a.csv" > "$tmp/out" 2> "$tmp/err" \
   && [ -s "$tmp/a.csv" ] && head -n 1 "$tmp/a.csv" | grep -q '^algo,p,bytes,dtype'; then
    rows=$(($(wc -l < "$tmp/a.csv") - 1))
    echo "ok   np=4 all algorithms, both modes, in place, float+int32: $rows rows, 0 wrong"
else
    echo "FAIL: np=4 smoke run (exit or CSV):"; tail -n 20 "$tmp/out" "$tmp/err"; fail=1
fi
mpirun_q 2 "$bench" --quick -m 4:16 --algo ring --csv "$tmp/a.csv" > /dev/null 2> "$tmp/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "exists" "$tmp/err"; then
    echo "ok   an existing --csv file is refused before any work (exit 2)"
else
    echo "FAIL: existing --csv: exit $rc"; cat "$tmp/err"; fail=1
fi
if mpirun_q 3 "$bench" --quick -m 1k:4k --algo ring --osu > "$tmp/out" 2> "$tmp/err" \
   && grep -q '^# Size *Avg Latency(us) *Min Latency(us) *Max Latency(us) *Iterations' "$tmp/out" \
   && grep -Eq '^1024 +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$' "$tmp/out"; then
    echo "ok   --osu prints OSU's layout"
else
    echo "FAIL: --osu layout:"; cat "$tmp/out" "$tmp/err"; fail=1
fi

if [ $fail -eq 0 ]; then echo "check-mpi: all MPI tests passed"; else echo "check-mpi: FAILED"; fi
exit $fail
