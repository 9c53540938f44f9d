#!/bin/sh
# run.sh — check-net: the small real cluster of scaling/net/netcluster.sh (network
# namespaces on a bridge, shaped links, Open MPI across them):
#   1. up makes H hosts whose addresses exist only in their namespaces; up again with
#      the same settings changes nothing, with others remakes it; status says which;
#   2. tcpring.py streams plain TCP around the hosts; mpirun runs one rank in each
#      host's namespace, over TCP;
#   3. a TERM during up leaves no namespace; down removes every one; bad usage exits 2
#      with one line and makes nothing;
#   4. netcheck.sh --quick, run by study run simulate (make simulate), calibrates a
#      platform from the hosts and predicts them, and the simulate report shows it;
#   5. a host's link cut under data-parallel rnn-train ends the job within 30 s, and its
#      checkpoint resumes in one process; a stopped peer, and a link throttled to
#      8 kbit/s, end it by --exchange-timeout.
# Skips with a line where the machine forbids it (not root, no netns, veth or tbf).
# Exits 1 on failure.
set -u
cd "$(dirname "$0")/../.."
. test/lib.sh
test_begin net
# under make test SAN=1 the ranks run without LeakSanitizer: Open MPI's components leak
# at MPI_Finalize, and a leak report turns every rank's exit status into 1
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
nc=scaling/net/netcluster.sh
sh $nc down > /dev/null 2>&1
sh $nc up --hosts 3 --rate 100 > "$tmp/up" 2>&1; rc=$?
if [ $rc -eq 3 ]; then
    echo "check-net: skipped: $(cat "$tmp/up")"
    exit 0
fi
[ $rc -eq 0 ] && ok "up: 3 hosts, 100 Mbit/s links" || { bad "up: exit $rc: $(cat "$tmp/up")"; exit 1; }
ns=$(ip netns list | awk '{print $1}' | grep -c -E '^rsn([0-9]+|-hub)$')
mine=$(ip -o -4 addr show | grep -c '10\.77\.0\.' || true)
[ "$ns" -eq 4 ] && [ "$mine" -eq 0 ] && ok "3 host namespaces and the hub; no 10.77.0.x address outside them" ||
    bad "$ns namespaces, $mine addresses outside"
qd=$(ip netns exec rsn2 tc qdisc show dev rsn2-e | grep -c 'tbf.*rate 100Mbit' || true)
[ "$qd" -eq 1 ] && ok "host 2's link shaped by tbf at 100 Mbit/s" || bad "host 2's qdisc: $(ip netns exec rsn2 tc qdisc show dev rsn2-e)"
sh $nc up --hosts 3 --rate 100 > "$tmp/up2" 2>&1 && grep -q "up already" "$tmp/up2" && ok "up again: nothing changes" ||
    bad "up again: $(cat "$tmp/up2")"
timeout 60 python3 scaling/net/tcpring.py --hosts 3 --bytes 262144 --rounds 2 > "$tmp/ring" 2>&1 &&
    grep -q "^tcpring: 3 hosts, 262144 bytes each way: .* MB/s each way$" "$tmp/ring" &&
    ok "tcpring.py: plain TCP around the 3 hosts ($(sed 's/.*: median/median/' "$tmp/ring"))" || bad "tcpring.py: $(cat "$tmp/ring")"
sh $nc up --hosts 2 --rate 0 > /dev/null 2>&1 && sh $nc status | grep -q "up, 2 hosts .* rate 0" &&
    [ "$(ip netns list | grep -c -E '^rsn[0-9]+')" -eq 2 ] && ok "up with other settings remakes it (2 hosts, unshaped)" ||
    bad "remade: $(sh $nc status)"
got=$(timeout 60 sh $nc mpirun sh -c 'ip -o -4 addr show scope global | cut -d" " -f7' 2>&1 | sort | tr '\n' ' ')
[ "$got" = "10.77.0.1/24 10.77.0.2/24 " ] && ok "mpirun: a rank in each host's namespace" || bad "mpirun: '$got'"
sh $nc down > /dev/null
[ "$(ip netns list | grep -c -E '^rsn')" -eq 0 ] && sh $nc status | grep -q down && ok "down: no namespace left" ||
    bad "down left $(ip netns list | grep -c -E '^rsn')"
# a TERM while up builds 16 hosts: what it made is taken down
sh $nc up --hosts 16 > /dev/null 2>&1 &
pid=$!
sleep 0.3; kill -TERM $pid; wait $pid; rc=$?
sleep 0.2
links=$(ip -o link show | grep -c ' rsn[0-9]*-[eh]' || true)   # a veth made, not yet moved
[ "$rc" -eq 143 ] && [ "$(ip netns list | grep -c -E '^rsn')" -eq 0 ] && [ "$links" -eq 0 ] &&
    ok "TERM during up: exit 143, no namespace or veth left" ||
    { bad "TERM during up: exit $rc, $(ip netns list | grep -c -E '^rsn') namespaces and $links veths left"
      sh $nc down > /dev/null; }
# the simulator against the hosts: a calibrated platform predicts a network-bound 4 KiB
# ring within 25% (measured -0.1 to +3%), and the 256 KiB ring too (-2.1 to -2.2% in five
# quiet runs without Open MPI's emulated put, which netcluster.sh leaves out; with it the
# two-way exchange ran at 0.4-1 of the rate).  A failure shows the tools' own lines, not
# only mpirun's last words.
st=build/bin/study
# busy: other work holds the cores (under half of them idle over 0.5 s, from /proc/stat):
# the ranks then wait for a core at every message, and the measured side is the
# machine's load, not the network
busy() {
    a=$(awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
    sleep 0.5
    b=$(awk '/^cpu / { print $5 + $6, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat)
    awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ");
        exit !(y[2] > x[2] && (y[1] - x[1]) / (y[2] - x[2]) < 0.5) }'
}
# the tools' own lines, and a sanitizer's or mpirun's verdict where one ended a rank
said() {
    grep -E '^(netcheck|pingpong-bench|allreduce-bench|netcluster|study|mpirun|==[0-9]+==|SUMMARY)' "$1" |
        tail -6 | tr '\n' ' '
}
# through make simulate (study run simulate, NETCHECK=1): netcheck.sh --quick into
# RUN/netcheck first, its output in RUN/netcheck.txt, then a tiny sweep whose report
# carries the section
loaded=0; busy && loaded=1
printf 'simulate_small --nodes 2 --algo ring --sizes 4\n' > "$tmp/part"
nq="$tmp/simq/netcheck"
if NETCHECK=1 DP_SIM_NODES= SIM_PARTS="$tmp/part" SIM_JOBS=1 $st run simulate "$tmp/simq" > "$tmp/sim.out" 2>&1 &&
    [ -f "$nq/netcheck.csv" ]; then
    e4=$($st get "$nq/netcheck.csv" error --where algo=ring,bytes=4096)
    e256=$($st get "$nq/netcheck.csv" error --where algo=ring,bytes=262144)
    # both rows present and numbers (awk compares a missing one as text, which passes);
    # the bounds only where the cores were free
    awk -v a="$e4" -v b="$e256" -v l=$loaded 'BEGIN { exit !(a ~ /^-?[0-9.]+(e-?[0-9]+)?$/ &&
        b ~ /^-?[0-9.]+(e-?[0-9]+)?$/ && (l || (a >= -0.25 && a <= 0.25 && b >= -0.25 && b <= 0.25))) }' &&
        [ -s "$nq/netcheck.md" ] && [ "$(ip netns list | grep -c -E '^rsn')" -eq 0 ] &&
        grep -q "^## Held against a real network" "$tmp/simq/simulate_report.md" &&
        ok "make simulate's netcheck --quick: ring 4 KiB error $e4, 256 KiB $e256; the hosts taken down; the report's section$([ $loaded = 1 ] &&
            echo "; other work held the cores, so the 25% bounds were not checked")" ||
        bad "netcheck --quick: errors $e4 and $e256: $(said "$tmp/simq/netcheck.txt")"
else
    bad "make simulate's netcheck --quick failed: $(said "$tmp/simq/netcheck.txt") $(tail -n 2 "$tmp/sim.out" | tr '\n' ' ')"
fi
sh scaling/net/netcheck.sh "$nq" --quick > /dev/null 2> "$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q 'exists' "$tmp/err" && ok "netcheck into an existing folder: exit 2, nothing overwritten" ||
    bad "netcheck again: exit $rc: $(cat "$tmp/err")"
for args in "--rate 0" "--rate 08" "--hosts 2\$(id)" "--hosts 1" "--algo nothing" "--algo ring,hier" "--algo ," \
    "--bogus 1"; do
    sh scaling/net/netcheck.sh "$tmp/nc2" $args > /dev/null 2> "$tmp/err"; rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && [ ! -e "$tmp/nc2" ] &&
        ok "netcheck $args: exit 2, one line, nothing made" || bad "netcheck $args: exit $rc: $(cat "$tmp/err")"
done
# a host's link cut under data-parallel training: the job ends, the checkpoint resumes
# in one process; mpirun's own keepalive (netcluster.sh) or --exchange-timeout ends it.
# start_job OUT TIMEOUT TRAINER...: the trainer across the hosts in the background ($job),
# returning once its first checkpoint is written; ended JOB WHAT: waits up to 30 s, then
# 0 when the job ended ($rc, $took), else 1 with the job killed and a FAIL line.
start_job() {
    out=$1 to=$2; shift 2
    rm -rf "$tmp/ck"
    (cd "$tmp" && exec sh "$OLDPWD/$nc" mpirun "$@" --steps 100000000 --exchange-timeout "$to" > "$out" 2>&1) &
    job=$!
    i=0
    while [ -z "$(ls "$tmp/ck" 2>/dev/null)" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}
ended() {
    t0=$(date +%s) i=0
    while kill -0 $job 2> /dev/null && [ $i -lt 60 ]; do sleep 0.5; i=$((i + 1)); done
    took=$(( $(date +%s) - t0 ))
    if kill -0 $job 2> /dev/null; then
        bad "$1: the job still runs 30 s later: $(tail -n 2 "$out")"
        pkill -KILL -f "$tmp/corpus.txt"; pkill -P $job; kill $job; wait $job
        return 1
    fi
    wait $job; rc=$?
    return 0
}
if sh $nc up --hosts 2 --rate 100 > /dev/null 2>&1; then
    tiny_corpus "$tmp/corpus.txt"
    set -- "$(pwd)/build/bin/rnn-train" --corpus "$tmp/corpus.txt" --model lstm --hidden 24 --embed 16 --bptt 8 \
        --batch 2 --optimizer adam --lr 0.02 --threads 1 --gemm openblas --checkpoint "$tmp/ck" \
        --checkpoint-every 10
    start_job "$tmp/cut.out" 10 "$@"
    ip -n rsn2 link set rsn2-e down
    if ended "link cut"; then
        said=$(grep -m1 -E 'lost communication|exchange-timeout' "$tmp/cut.out" | sed 's/^ *//')
        [ $rc -ne 0 ] && [ -n "$said" ] && ok "link cut: the job ends in $took s, exit $rc: $said" ||
            bad "link cut: exit $rc after $took s: $(tail -n 3 "$tmp/cut.out")"
    fi
    last=$(ls "$tmp/ck" | tail -n 1 | tr -dc 0-9 | sed 's/^0*//')
    "$@" --workers 2 --steps $((last + 5)) --resume > "$tmp/res.out" 2>&1 &&
        ok "link cut: checkpoint $last resumes in one process, 2 workers" || bad "resume: $(tail -n 2 "$tmp/res.out")"
    i=0
    while [ -n "$(pgrep -f "$tmp/corpus.txt")" ] && [ $i -lt 30 ]; do sleep 1; i=$((i + 1)); done
    [ -z "$(pgrep -f "$tmp/corpus.txt")" ] && ok "link cut: no rank left on the cut host ($i s after the resume)" ||
        { bad "link cut: ranks left: $(pgrep -f "$tmp/corpus.txt")"; pkill -f "$tmp/corpus.txt"; }
    # a peer stopped (SIGSTOP), its daemon alive: only --exchange-timeout ends the job
    ip -n rsn2 link set rsn2-e up
    start_job "$tmp/stop.out" 5 "$@"
    peer=
    for p in $(pgrep -f "$tmp/corpus.txt"); do
        [ "$(ip netns identify "$p")" = rsn2 ] && peer=$p
    done
    [ -n "$peer" ] && kill -STOP "$peer"
    if [ -z "$peer" ]; then
        bad "a stopped peer: no rank found in host 2's namespace"
    elif ended "a stopped peer"; then
        said=$(grep -m1 'exchange-timeout' "$tmp/stop.out" | sed 's/^ *//')
        [ $rc -ne 0 ] && [ -n "$said" ] && ok "a stopped peer: --exchange-timeout 5 ends the job in $took s, exit $rc" ||
            bad "a stopped peer: exit $rc after $took s: $(tail -n 3 "$tmp/stop.out")"
    fi
    pkill -KILL -f "$tmp/corpus.txt"
    # a link throttled to 8 kbit/s both ways (the ~20 KB gradient takes ~20 s): TCP still
    # delivers, so no keepalive fires; --exchange-timeout ends the job
    start_job "$tmp/slow.out" 5 "$@"
    ip netns exec rsn2 tc qdisc change dev rsn2-e root tbf rate 8kbit burst 3028 latency 100ms &&
        ip netns exec rsn-hub tc qdisc change dev rsn2-h root tbf rate 8kbit burst 3028 latency 100ms ||
        bad "throttle: tc qdisc change failed"
    if ended "a link at 8 kbit/s"; then
        said=$(grep -m1 'exchange-timeout' "$tmp/slow.out" | sed 's/^ *//')
        [ $rc -ne 0 ] && [ -n "$said" ] &&
            ok "a link throttled to 8 kbit/s: --exchange-timeout 5 ends the job in $took s, exit $rc" ||
            bad "a throttled link: exit $rc after $took s: $(tail -n 3 "$tmp/slow.out")"
    fi
    pkill -KILL -f "$tmp/corpus.txt"
    sh $nc down > /dev/null
else
    bad "up --hosts 2 --rate 100 failed: the link-cut, stopped-peer and throttled-link checks did not run"
fi
for args in "up --hosts 1" "up --hosts 99" "up --hosts 010" "up --rate fast" "up --rate 08" "up --rate 1\$(id)" \
    "up --bogus" "mpirun" "sideways"; do
    sh $nc $args > /dev/null 2> "$tmp/err"; rc=$?
    [ $rc -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && [ "$(ip netns list | grep -c -E '^rsn')" -eq 0 ] &&
        ok "$args: exit 2, one line, nothing made" || bad "$args: exit $rc: $(cat "$tmp/err")"
done
[ $fail -eq 0 ] && echo "check-net: all passed" || echo "check-net: FAILED"
exit $fail
