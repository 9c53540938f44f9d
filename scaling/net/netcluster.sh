#!/bin/sh
# netcluster.sh — a small real cluster on this machine: H hosts, each a network namespace
# (rsn1..rsnH, address 10.77.0.K/24), joined by veth pairs to a bridge that lives in a
# namespace of its own (rsn-hub), so no address or route touches the machine's own
# network.  Each link is shaped by TBF to --rate Mbit/s both ways (0: the veth's own
# speed); its latency is what the veth gives (pingpong-bench measures it across the
# hosts).  Open MPI runs across the hosts over TCP, launched by netns_agent.sh (its
# plm_rsh_agent).
#
#   netcluster.sh up [--hosts H] [--rate MBIT]   make it (again if it differs; idempotent)
#   netcluster.sh down                            remove every namespace it made
#   netcluster.sh status                          the hosts, links and rates, or "down"
#   netcluster.sh mpirun [ARGS...]                mpirun -np H across the hosts, from host 1
#
# Two cores serve every host: ranks share them, so compare where the network dominates.
# A failure or a signal during `up` takes down what was made.  Needs root, network
# namespaces, veth and the tbf qdisc; exits 3 with one line where the kernel lacks one
# (the checks skip then), 2 on bad usage.
set -u
here=$(cd "$(dirname "$0")" && pwd)
state=/run/rnnscale-netcluster.conf
die() { echo "netcluster: $*" >&2; exit 2; }
lack() { echo "netcluster: $*" >&2; exit 3; }

made() { [ -f "$state" ] && . "$state" && [ -n "${HOSTS:-}" ]; }

down() {
    ip netns del rsn-hub 2>/dev/null
    # every name up can make (at most 16 hosts), none read back from ip's output; a veth
    # pair made but not yet moved into its namespaces (a signal between the two) is still
    # in this one, and the next up could not make it again
    k=1
    while [ $k -le 16 ]; do   # deleting one end of a pair takes its peer
        ip netns del "rsn$k" 2>/dev/null
        ip link del "rsn$k-e" 2>/dev/null || ip link del "rsn$k-h" 2>/dev/null
        k=$((k + 1))
    done
    rm -f "$state"
}

up() {
    hosts=2 rate=100
    while [ $# -gt 0 ]; do
        case $1 in
            --hosts) [ $# -ge 2 ] || die "--hosts needs a number"; hosts=$2; shift 2 ;;
            --rate) [ $# -ge 2 ] || die "--rate needs Mbit/s"; rate=$2; shift 2 ;;
            *) die "up: unknown option '$1' (expected --hosts H, --rate MBIT)" ;;
        esac
    done
    # no leading zeros: the shell's arithmetic would read 010 as octal
    case $hosts in ''|0*|*[!0-9]*) die "--hosts $hosts: not a number of hosts 2-16" ;; esac
    case $rate in ''|0?*|*[!0-9]*) die "--rate $rate: not a whole number of Mbit/s, e.g. 100 (0: unshaped)" ;; esac
    [ "$hosts" -ge 2 ] && [ "$hosts" -le 16 ] || die "--hosts $hosts: expected 2 to 16"
    [ "$(id -u)" = 0 ] || lack "needs root (network namespaces)"
    if made && [ "$HOSTS" = "$hosts" ] && [ "$RATE" = "$rate" ]; then
        echo "netcluster: up already ($hosts hosts, rate $rate Mbit/s)"
        return 0
    fi
    down
    trap 'down; exit 130' INT; trap 'down; exit 143' TERM
    ip netns add rsn-hub 2>/dev/null || lack "cannot create a network namespace (ip netns add)"
    ip -n rsn-hub link set lo up
    ip -n rsn-hub link add br0 type bridge 2>/dev/null || { down; lack "no bridge device in this kernel"; }
    ip -n rsn-hub link set br0 up
    k=1
    while [ $k -le "$hosts" ]; do
        ns=rsn$k
        ip netns add "$ns" || { down; lack "cannot create namespace $ns"; }
        ip link add "rsn$k-e" type veth peer name "rsn$k-h" 2>/dev/null || { down; lack "no veth in this kernel"; }
        ip link set "rsn$k-e" netns "$ns" && ip link set "rsn$k-h" netns rsn-hub || { down; lack "cannot move a veth"; }
        ip -n rsn-hub link set "rsn$k-h" master br0 up
        ip -n "$ns" link set lo up
        ip -n "$ns" addr add "10.77.0.$k/24" dev "rsn$k-e"
        ip -n "$ns" link set "rsn$k-e" up
        if [ "$rate" -gt 0 ]; then   # both ways: the host's egress and the hub's toward it
            # the bucket: two frames, or 200 us of the rate where that is more.  Every byte
            # past it waits for the rate, as on a wire; a larger bucket lets the first
            # bytes after a pause through at the veth's speed (a 256 KiB one made a
            # 64 KiB ping-pong 2x faster than the rate), which no platform models.
            burst=$((rate * 25 > 3028 ? rate * 25 : 3028))
            for side in "$ns rsn$k-e" "rsn-hub rsn$k-h"; do
                set -- $side
                tc -n "$1" qdisc add dev "$2" root tbf rate "${rate}mbit" burst "$burst" latency 100ms 2>/dev/null ||
                    { down; lack "no tbf qdisc in this kernel (tc qdisc add ... tbf)"; }
            done
        fi
        k=$((k + 1))
    done
    printf 'HOSTS=%s\nRATE=%s\n' "$hosts" "$rate" > "$state"
    trap - INT TERM
    echo "netcluster: up, $hosts hosts 10.77.0.1-$hosts, links $( [ "$rate" -gt 0 ] && echo "of $rate Mbit/s" || echo unshaped)"
}

hostlist() {
    k=1 list=
    while [ $k -le "$HOSTS" ]; do list=$list${list:+,}10.77.0.$k; k=$((k + 1)); done
    echo "$list"
}

cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in up|down)   # one at a time: two ups would interleave their namespaces
    [ "$(id -u)" = 0 ] || lack "needs root (network namespaces)"
    exec 9> /run/rnnscale-netcluster.lock && flock 9 ;;
esac
case $cmd in
    up) up "$@" ;;
    down) [ $# -eq 0 ] || die "down takes no arguments"; down; echo "netcluster: down" ;;
    status)
        if made; then echo "netcluster: up, $HOSTS hosts ($(hostlist)), rate $RATE Mbit/s (0: unshaped)"
        else echo "netcluster: down"; fi ;;
    mpirun)
        made || die "not up (netcluster.sh up)"
        # --bind-to none: each host's daemon binds as if it had the machine to itself, so
        # every rank would be bound to core 0, and two ranks polling on one core wait a
        # scheduler slice per message (8 ms a 4 KiB allreduce, against 37 us unbound)
        # keepalive: a host whose link is cut is noticed in about 8 s, not 8 minutes (the
        # daemons' default), so the job ends when a rank does
        # more ranks than cores: each daemon sees one rank on its host, so the ranks would
        # poll without yielding (a 4 KiB ring allreduce at 4 hosts: 18.6 ms, 0.58 ms yielding)
        yield=0
        [ "$HOSTS" -gt "$(nproc)" ] && yield=1
        # btl_tcp_flags without "put": Open MPI 4.1's TCP transport sends a large message by
        # an emulated put, and an exchange then moves each way at half the rate, as if its two
        # directions took turns (a 16 MiB MPI_Sendrecv at 100 Mbit/s: 5.9 MB/s each way with
        # put, 11.7 without, 11.8 one way)
        exec ip netns exec rsn1 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$HOSTS" --host "$(hostlist)" \
            --mca mpi_yield_when_idle "$yield" --mca btl_tcp_flags send,inplace,need-ack,need-csum,hetero-rdma \
            --mca oob_tcp_keepalive_time 5 --mca oob_tcp_keepalive_intvl 1 --mca oob_tcp_keepalive_probes 3 \
            --mca plm_rsh_agent "$here/netns_agent.sh" --mca btl tcp,self \
            --mca btl_tcp_if_include 10.77.0.0/24 --mca oob_tcp_if_include 10.77.0.0/24 "$@" ;;
    *) die "usage: netcluster.sh up [--hosts H] [--rate MBIT] | down | status | mpirun [ARGS...]" ;;
esac
