#!/bin/sh
# slurmlocal.sh — a real one-node Slurm cluster on this machine, for running a study's
# points as a job array the way a cluster would (scaling/slurm/point.sh): Debian's
# munged, slurmctld and slurmd, each with its own key, socket, ports (16817, 16818),
# state and logs in one private folder (/run/rnnscale-slurm), so nothing of the
# machine's own Slurm or munge configuration is read or changed.  The node has this
# machine's CPUs, one task a CPU (select/cons_tres, CR_Core).
#
#   slurmlocal.sh up        start it (idempotent: a running one is left as it is)
#   slurmlocal.sh down      cancel every job, stop the daemons, remove the folder
#   slurmlocal.sh status    the node's state, or "down"
#   slurmlocal.sh conf      the slurm.conf path (sbatch, squeue and scancel read it from
#                           SLURM_CONF: SLURM_CONF=$(slurmlocal.sh conf) sbatch ...)
#
# A failure or a signal during `up` takes down what was made.  Needs root and the
# packages slurmctld, slurmd, slurm-client and munge (make deps); exits 3 with one line
# where one is missing or a daemon will not start (the checks skip then), 2 on bad usage.
set -u
dir=${RNNSCALE_SLURM_DIR:-/run/rnnscale-slurm}
conf=$dir/slurm.conf
die() { echo "slurmlocal: $*" >&2; exit 2; }
lack() { echo "slurmlocal: $*" >&2; exit 3; }

pid_of() { [ -f "$dir/$1.pid" ] && p=$(cat "$dir/$1.pid" 2>/dev/null) && kill -0 "$p" 2>/dev/null && echo "$p"; }
running() { [ -f "$conf" ] && pid_of munged > /dev/null && pid_of slurmctld > /dev/null && pid_of slurmd > /dev/null; }

down() {
    if [ -f "$conf" ] && pid_of slurmctld > /dev/null; then
        SLURM_CONF=$conf scancel --quiet --full --user=root 2>/dev/null
    fi
    for d in slurmd slurmctld munged; do
        p=$(pid_of "$d") && kill "$p" 2>/dev/null
    done
    i=0   # slurmd ends its jobs' steps first; then nothing of ours may be left
    while { pid_of slurmd || pid_of slurmctld || pid_of munged; } > /dev/null && [ $i -lt 50 ]; do
        sleep 0.1; i=$((i + 1))
    done
    for d in slurmd slurmctld munged; do
        p=$(pid_of "$d") && kill -KILL "$p" 2>/dev/null
    done
    rm -rf "$dir"
}

# Waits up to 10 s for the node to take jobs.
ready() {
    i=0
    while [ $i -lt 100 ]; do
        st=$(SLURM_CONF=$conf sinfo --noheader --format=%t 2>/dev/null)
        case $st in idle*|mix*|alloc*) return 0 ;; esac
        sleep 0.1; i=$((i + 1))
    done
    return 1
}

up() {
    [ $# -eq 0 ] || die "up: no options (got '$1')"
    [ "$(id -u)" = 0 ] || lack "needs root (the daemons run as root here)"
    for b in munged slurmctld slurmd sbatch sinfo scancel; do
        command -v "$b" > /dev/null 2>&1 || [ -x "/usr/sbin/$b" ] ||
            lack "no $b: install slurmctld slurmd slurm-client munge (make deps)"
    done
    if running; then
        echo "slurmlocal: up already ($conf)"
        return 0
    fi
    down
    trap 'down; exit 130' INT; trap 'down; exit 143' TERM
    # others may pass through, not read (munged requires the socket's folder so)
    mkdir -p "$dir/state" "$dir/spool" && chmod 711 "$dir" || lack "cannot make $dir"
    # a key of its own (munge's minimum is 32 bytes; 1024 random ones as mungekey makes)
    head -c 1024 /dev/urandom > "$dir/munge.key" && chmod 400 "$dir/munge.key" || { down; lack "cannot write a munge key"; }
    PATH=$PATH:/usr/sbin munged --socket="$dir/munge.socket" --key-file="$dir/munge.key" \
        --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" \
        > "$dir/munged.out" 2>&1 || { why=$(tail -n 1 "$dir/munged.out"); down; lack "munged did not start: $why"; }
    host=$(hostname -s)
    cpus=$(nproc)
    mem=$(awk '/^MemTotal/ { printf "%d", $2 / 1024 * 0.8 }' /proc/meminfo)
    cat > "$conf" <<EOF
# written by scaling/slurm/slurmlocal.sh up: a one-node cluster of this machine
ClusterName=rnnscale
SlurmctldHost=$host
SlurmctldPort=16817
SlurmdPort=16818
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
# a job past its time limit gets SIGTERM, then SIGKILL this many seconds later: time
# for a point to write its checkpoint
KillWait=15
MinJobAge=300
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
    PATH=$PATH:/usr/sbin slurmctld -f "$conf" -i > "$dir/slurmctld.out" 2>&1 ||
        { why=$(tail -n 1 "$dir/slurmctld.log" 2>/dev/null); down; lack "slurmctld did not start: $why"; }
    PATH=$PATH:/usr/sbin slurmd -f "$conf" > "$dir/slurmd.out" 2>&1 ||
        { why=$(tail -n 1 "$dir/slurmd.log" 2>/dev/null); down; lack "slurmd did not start: $why"; }
    ready || { tail -n 3 "$dir/slurmd.log" >&2 2>/dev/null; down; lack "the node did not come up in 10 s"; }
    trap - INT TERM
    echo "slurmlocal: up: node $host, $cpus CPUs; SLURM_CONF=$conf"
}

[ $# -ge 1 ] || die "usage: slurmlocal.sh up|down|status|conf"
cmd=$1; shift
case $cmd in
    up) up "$@" ;;
    down) [ $# -eq 0 ] || die "down: no options"; down ;;
    status)
        if running; then
            echo "up: $(SLURM_CONF=$conf sinfo --noheader --format='%n %t, %c CPUs' 2>/dev/null); SLURM_CONF=$conf"
        else
            echo "down"
        fi ;;
    conf) running || { echo "slurmlocal: down (slurmlocal.sh up first)" >&2; exit 1; }; echo "$conf" ;;
    *) die "unknown command '$cmd' (expected up, down, status, conf)" ;;
esac
