#!/bin/sh
# test/likwid/run.sh — scaling/bench/likwid.sh (its probe: `study likwid`), behind `make bench
# COUNTERS=likwid`, with stand-in likwid-perfctr programs on PATH: one that cannot count
# (as on a VM: "Cannot get access to MSRs", exit 1), one that counts, and none at all.
# Where it cannot count the verdict file says why and the study runs bare; where it
# counts the study runs under it with the group this CPU lists and its output kept in
# the run folder.  Exits 1 on failure.
set -u
cd "$(dirname "$0")/../.."
. test/lib.sh
test_begin likwid
# fake DIR EXIT: a likwid-perfctr in DIR listing CLOCK and FLOPS_DP that exits EXIT on a
# measurement (after printing what a VM prints) or, with 0, runs the program it is given
fake() {
    mkdir -p "$1"
    cat > "$1/likwid-perfctr" <<FAKE
#!/bin/sh
case "\$1" in -a) printf 'Group name\tDescription\n   CLOCK\tc\nFLOPS_DP\td\n'; exit 0;; -v) echo "likwid-perfctr -- Version 5.2.2"; exit 0;; esac
[ $2 -ne 0 ] && { echo "CPU name:	AMD EPYC"; echo "Cannot get access to MSRs. Please check permissions to the MSRs"; exit $2; }
echo "\$*" >> "$1/calls"
while [ \$# -gt 0 ]; do case "\$1" in -m) shift;; -g|-c|-C) shift 2;; -o) echo counted > "\$2"; shift 2;; *) break;; esac; done
exec "\$@"
FAKE
    chmod +x "$1/likwid-perfctr"
}
# bench DIR RUN: likwid.sh as bench.sh uses it, then one study ("echo ran") under likwid_cmd
bench() {
    mkdir -p "$2"
    PATH="$1:/usr/bin:/bin" COUNTERS=likwid sh -c '. scaling/bench/likwid.sh; likwid_setup "$1"; $(likwid_cmd exp) echo ran' \
        sh "$2" > "$2/out" 2>&1
}

fake "$tmp/vm" 1
bench "$tmp/vm" "$tmp/run_vm"
grep -q '^likwid: unavailable: .*Cannot get access to MSRs' "$tmp/run_vm/likwid.txt" 2>/dev/null &&
    ok "cannot count: likwid.txt says why" || bad "cannot count: likwid.txt is $(cat "$tmp/run_vm/likwid.txt" 2>&1)"
grep -qx ran "$tmp/run_vm/out" && ok "cannot count: the study still runs" || bad "cannot count: the study did not run"
[ "$(grep -c unavailable "$tmp/run_vm/out")" -eq 1 ] && ok "cannot count: one line says so" || bad "cannot count: $(cat "$tmp/run_vm/out")"

fake "$tmp/pmu" 0
bench "$tmp/pmu" "$tmp/run_pmu"
grep -qx ran "$tmp/run_pmu/out" && grep -q -- '-m -g FLOPS_DP -c 0-' "$tmp/pmu/calls" 2>/dev/null &&
    ok "counts: the study runs under likwid-perfctr -m with a group the CPU lists" || bad "counts: $(cat "$tmp/pmu/calls" 2>&1)"
grep -qx counted "$tmp/run_pmu/likwid_exp.txt" 2>/dev/null && ok "counts: its output is kept in the run folder" ||
    bad "counts: no likwid_exp.txt"

# not installed: a PATH without it (likwid.sh needs no tool of its own)
mkdir -p "$tmp/none"
sh_path=$(command -v sh)
mkdir -p "$tmp/run_none"
PATH="$tmp/none" COUNTERS=likwid "$sh_path" -c '. scaling/bench/likwid.sh; likwid_setup "$1"; $(likwid_cmd exp) echo ran' \
    sh "$tmp/run_none" > "$tmp/run_none/out" 2>&1
grep -q '^likwid: unavailable: likwid-perfctr not found' "$tmp/run_none/likwid.txt" 2>/dev/null && grep -qx ran "$tmp/run_none/out" &&
    ok "not installed: said so, the study runs" || bad "not installed: $(cat "$tmp/run_none/out")"

[ $fail -eq 0 ] && echo "check-likwid: all passed" || echo "check-likwid: FAILED"
exit $fail
