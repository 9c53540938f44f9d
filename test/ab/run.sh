#!/bin/sh
# test/ab/run.sh — scaling/bench/ab.py: bad usage is one line and exit 2 with nothing
# built; a real A/B of HEAD against the working tree (platform-gen --help, the quickest
# program to build) prints its table and writes its CSV, which a second run refuses to
# overwrite.  Exits 1 on failure.
set -u
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d /tmp/rnnscale-ab-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
ab="/usr/bin/python3 scaling/bench/ab.py"

# usage NAME WANT ARGS...: exit 2, one line on stderr containing WANT
usage() {
    name=$1; want=$2; shift 2
    $ab "$@" > "$tmp/out" 2> "$tmp/err"; rc=$?
    n=$(grep -c . "$tmp/err")
    if [ $rc -eq 2 ] && [ "$n" -eq 1 ] && grep -q -- "$want" "$tmp/err"; then ok "$name: $(cat "$tmp/err")"
    else bad "$name: exit $rc, $n lines: $(cat "$tmp/err")"; fi
}
usage bad-ref "not a commit" no-such-commit-xyz
usage rounds "--rounds 0" HEAD --rounds 0
usage only "no configuration 'nope'" HEAD --only nope
usage dashes "nothing after '--'" HEAD --
usage program "not a program of build/bin" HEAD -- /bin/sh -c true
: > "$tmp/taken.csv"
usage csv-exists "exists" HEAD --csv "$tmp/taken.csv"

if $ab HEAD --rounds 2 --csv "$tmp/ab.csv" -- platform-gen --help > "$tmp/out" 2>&1 &&
    grep -q '^command ' "$tmp/out" && grep -q '^config,a_wall_ms,b_wall_ms,ratio_b_over_a' "$tmp/ab.csv" &&
    grep -q '^command,' "$tmp/ab.csv"; then
    ok "HEAD against the working tree: $(grep '^command ' "$tmp/out")"
else
    bad "a real A/B: $(tail -n 5 "$tmp/out")"
fi
usage csv-kept "exists" HEAD --rounds 1 --csv "$tmp/ab.csv" -- platform-gen --help

# two at once: the second waits for the first (one make per tree, no timing of each other)
$ab HEAD --rounds 40 -- platform-gen --help > "$tmp/one.out" 2>&1 & one=$!
sleep 0.3
$ab HEAD --rounds 1 -- platform-gen --help > "$tmp/two.out" 2>&1; two=$?
wait $one; one=$?
[ $one -eq 0 ] && [ $two -eq 0 ] && grep -q "waiting for it" "$tmp/two.out" && grep -q '^command ' "$tmp/two.out" &&
    ok "two at once: the second waited, both finished" || bad "two at once: exits $one and $two: $(tail -n 2 "$tmp/two.out")"
[ $fail = 0 ] && echo "check-ab: all passed" || { echo "check-ab: FAILED"; exit 1; }
