# likwid.sh — `make bench COUNTERS=likwid`: the microbench studies under likwid-perfctr -m,
# sourced by results/bench.sh.
#   likwid_setup RUN   probes once whether likwid-perfctr can count here, with a group
#                      this CPU has (FLOPS_SP: the kernels are fp32; else FLOPS_DP, CLOCK)
#                      on every CPU, and writes the verdict to RUN/likwid.txt
#   likwid_cmd NAME    the words to put before a study's command (none when not
#                      counting); likwid's own output goes to RUN/likwid_NAME.txt
# Where it cannot count (a VM without a PMU: "Cannot get access to MSRs") one line says
# why and the studies run as without COUNTERS.  -c, not -C: -C would pin the process
# to its first CPU, and the studies pin their threads themselves, over the CPUs they
# start with (common/bench.c); -c measures those CPUs without pinning.
likwid_on=""
likwid_setup() {
    [ "${COUNTERS:-}" = likwid ] || return 0
    lk_run=$1 lk_why="" lk_group=""
    lk_cpus="0-$(( $(nproc 2>/dev/null || echo 1) - 1 ))"
    if ! command -v likwid-perfctr >/dev/null 2>&1; then
        lk_why="likwid-perfctr not found on PATH (Debian package likwid)"
    else
        lk_groups=$(likwid-perfctr -a 2>/dev/null | awk '{ print $1 }')
        for g in FLOPS_SP FLOPS_DP CLOCK; do
            printf '%s\n' "$lk_groups" | grep -qx "$g" && { lk_group=$g; break; }
        done
        if [ -z "$lk_group" ]; then
            lk_why="likwid-perfctr -a lists none of FLOPS_SP, FLOPS_DP, CLOCK on this CPU"
        elif ! lk_out=$(likwid-perfctr -c "$lk_cpus" -g "$lk_group" true 2>&1); then
            lk_why="likwid-perfctr -c $lk_cpus -g $lk_group: $(printf '%s\n' "$lk_out" | grep -v -e '^-*$' -e '^CPU ' | tail -n 1)"
        fi
    fi
    if [ -n "$lk_why" ]; then
        echo "likwid: unavailable: $lk_why" | tee "$lk_run/likwid.txt"
        echo "bench: COUNTERS=likwid: running the studies without likwid-perfctr"
    else
        likwid_on=1
        echo "likwid: likwid-perfctr -m -g $lk_group -c $lk_cpus ($(likwid-perfctr -v 2>&1 | grep -o '[0-9][0-9.]*' | head -n 1))" |
            tee "$lk_run/likwid.txt"
    fi
}

likwid_cmd() {
    [ -n "$likwid_on" ] && echo "likwid-perfctr -m -g $lk_group -c $lk_cpus -o $lk_run/likwid_$1.txt"
}
