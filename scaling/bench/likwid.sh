# likwid.sh — `make bench COUNTERS=likwid`: the microbench studies under likwid-perfctr -m,
# sourced by scaling/bench/bench.sh.
#   likwid_setup RUN   probes once whether likwid-perfctr can count here and how
#                      (`study likwid RUN`: the group, the CPUs; the verdict in
#                      RUN/likwid.txt, and one line saying so)
#   likwid_cmd NAME    the words to put before a study's command (none when not
#                      counting); likwid's own output goes to RUN/likwid_NAME.txt
# Where it cannot count (a VM without a PMU: "Cannot get access to MSRs") the studies
# run as without COUNTERS.
likwid_pre=""
likwid_setup() {
    [ "${COUNTERS:-}" = likwid ] || return 0
    lk_run=$1
    likwid_pre=$(build/bin/study likwid "$lk_run")
}

likwid_cmd() {
    [ -n "$likwid_pre" ] && echo "$likwid_pre -o $lk_run/likwid_$1.txt"
}
