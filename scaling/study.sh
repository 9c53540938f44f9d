#!/bin/sh
# study.sh — the point driver of the scaling studies (scaling/converge.sh and the parts
# that join it).  A point is one command line and the files it writes, in its own folder
# RUN/points/NAME/; a study is a points file, one point per line:
#
#   NAME WEIGHT OK COMMAND...     run the shell command line COMMAND in RUN/points/NAME/
#                                 (the files it names without a folder land there),
#                                 fields separated by spaces; OK: the exit codes that
#                                 count as done, comma-separated (e.g. 0 or 0,1);
#                                 WEIGHT: its expected cost, any unit, for the ETA
#   NAME 0 x REASON...            a point that cannot run here: recorded, not run
#   # ...                         a comment
#
#   scaling/study.sh run RUN POINTS     every point not yet done, JOBS=K at once (default 1)
#   scaling/study.sh point RUN POINTS NAME|N   one point (by name, or the N-th line:
#                                              a Slurm array task)
#   scaling/study.sh status RUN POINTS  done / failed / infeasible / pending counts
#
# A point's folder keeps cmd (the command line), stdout.txt, stderr.txt, seconds and rc
# (written last: a point is done when rc holds one of its OK codes).  A rerun skips done
# points; a failed or interrupted one is moved aside to NAME.attempt-K (never
# overwritten) and runs again.  Commands find the project's programs on PATH
# (build/bin first); LAUNCH is put before each (e.g. LAUNCH="mpirun -np 4").
# Exit: 0 every point done, 1 some point failed (the others still ran), 2 bad usage,
# 130/143 interrupted.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SELF="$ROOT/scaling/study.sh"
die() { echo "study: $*" >&2; exit 2; }

# The points file's lines as "NAME WEIGHT OK REST", comments and blank lines dropped.
point_lines() { awk 'NF && $1 !~ /^#/' "$1"; }

# NAME OK: 0 when RUN/points/NAME/rc holds one of the OK codes.
is_done() {
    [ -f "$run/points/$1/rc" ] || return 1
    awk -v ok="$2" 'BEGIN { n = split(ok, c, ",") } { for (i = 1; i <= n; i++) if ($1 == c[i]) d = 1 }
        END { exit !d }' "$run/points/$1/rc"
}

# A new name for a folder that is moved aside: NAME.attempt-K, the first K free.
aside() {
    k=1
    while [ -e "$1.attempt-$k" ]; do k=$((k + 1)); done
    mv "$1" "$1.attempt-$k"
}

# Done points' and all points' weights, and counts, as "done total wdone_now wleft".
tally() {
    point_lines "$points" | while read -r name weight ok rest; do
        state=pending
        if [ "$ok" = x ]; then state=done
        elif is_done "$name" "$ok"; then
            state=done
            [ "$(cat "$run/points/$name/session" 2>/dev/null)" = "${STUDY_SESSION:-}" ] && state=now
        fi
        echo "$state $weight"
    done | awk '{ n++; if ($1 != "pending") d++; if ($1 == "now") wn += $2; if ($1 == "pending") wl += $2 }
        END { printf "%d %d %g %g\n", d, n, wn, wl }'
}

# The progress line after a point: done/total, the point, and the ETA from the weight
# this session has done so far against the weight still pending.
progress() {
    set -- $(tally)
    now=$(date +%s)
    eta=$(awk -v el=$((now - ${STUDY_T0:-$now})) -v wn="$3" -v wl="$4" 'BEGIN {
        if (wl == 0) { print "done"; exit } if (wn == 0) { print "?"; exit }
        s = el * wl / wn; printf "%dm%02ds\n", s / 60, s % 60 }')
    echo "study: [$1/$2] $pname rc=$prc ${psec}s; ETA $eta"
}

# One point: its line from the points file by name or index, run in its folder.
run_point() {
    want=$1
    line=$(point_lines "$points" | awk -v w="$want" '$1 == w || (w ~ /^[0-9]+$/ && NR == w + 0)' | head -n 1)
    [ -n "$line" ] || die "no point '$want' in $points"
    pname=$(echo "$line" | awk '{ print $1 }'); ok=$(echo "$line" | awk '{ print $3 }')
    command=$(echo "$line" | sed 's/^[^ ]*  *[^ ]*  *[^ ]*  *//')
    dir="$run/points/$pname"
    if [ "$ok" = x ]; then
        [ -f "$dir/infeasible" ] || { mkdir -p "$dir" && echo "$command" > "$dir/infeasible"; }
        return 0
    fi
    is_done "$pname" "$ok" && return 0
    [ -e "$dir" ] && aside "$dir"
    mkdir -p "$dir" || die "cannot create $dir"
    echo "${LAUNCH:+$LAUNCH }$command" > "$dir/cmd"
    t0=$(date +%s)
    (cd "$dir" && PATH="$ROOT/build/bin:$PATH" exec sh -c "${LAUNCH:+$LAUNCH }$command") \
        > "$dir/stdout.txt" 2> "$dir/stderr.txt"
    prc=$?
    psec=$(( $(date +%s) - t0 ))
    { [ $prc -eq 130 ] || [ $prc -eq 143 ]; } && { echo "study: $pname interrupted"; exit $prc; }
    echo "$psec" > "$dir/seconds"
    echo "${STUDY_SESSION:-}" > "$dir/session"
    echo "$prc" > "$dir/rc.tmp" && mv "$dir/rc.tmp" "$dir/rc"
    progress
    is_done "$pname" "$ok" || { echo "study: $pname failed (exit $prc): $(tail -n 1 "$dir/stderr.txt")"; return 1; }
}

# Every point not yet done, JOBS at once; 1 if any failed.
run_all() {
    jobs=${JOBS:-1}
    case "$jobs" in ''|*[!0-9]*|0) die "JOBS=$jobs: not a positive integer" ;; esac
    STUDY_T0=$(date +%s); STUDY_SESSION="$STUDY_T0.$$"
    export STUDY_T0 STUDY_SESSION
    set -- $(tally)
    echo "study: $run: $1 of $2 points done; running the rest, $jobs at once"
    trap 'echo "study: interrupted; $run keeps every finished point"; exit 130' INT TERM
    point_lines "$points" | awk '{ print $1 }' |
        xargs -P "$jobs" -n 1 sh "$SELF" point "$run" "$points"
    rc=$?
    [ $rc -ge 128 ] && exit 130
    set -- $(tally)
    failed=$(point_lines "$points" | while read -r name weight ok rest; do
        [ "$ok" = x ] || is_done "$name" "$ok" || echo "$name"; done)
    [ -z "$failed" ] || { echo "study: failed points (rerun to retry):" $failed; return 1; }
    echo "study: all $2 points done"
}

# status: one count per state.
show_status() {
    point_lines "$points" | while read -r name weight ok rest; do
        if [ "$ok" = x ]; then echo infeasible
        elif is_done "$name" "$ok"; then echo done
        elif [ -f "$run/points/$name/rc" ]; then echo failed
        else echo pending; fi
    done | sort | uniq -c | awk '{ printf "%s %s  ", $2, $1 } END { print "" }'
}

[ $# -ge 1 ] || die "usage: study.sh run RUN POINTS | point RUN POINTS NAME | status RUN POINTS"
cmd=$1; shift
case "$cmd" in
run|status) [ $# -eq 2 ] || die "usage: study.sh $cmd RUN POINTS" ;;
point) [ $# -eq 3 ] || die "usage: study.sh point RUN POINTS NAME|N" ;;
*) die "unknown command '$cmd' (expected run, point or status)" ;;
esac
run=$1; points=$2
[ -d "$run" ] || die "no run folder $run"
[ -f "$points" ] || die "no points file $points"
bad=$(point_lines "$points" | awk 'NF < 4 || ($3 != "x" && $3 !~ /^[0-9]+(,[0-9]+)*$/) || $2 !~ /^[0-9.eE+]+$/ { print NR ": " $0; exit }')
[ -z "$bad" ] || die "$points: point $bad: expected NAME WEIGHT OK COMMAND..."
dup=$(point_lines "$points" | awk 'seen[$1]++ { print $1; exit }')
[ -z "$dup" ] || die "$points: the point name '$dup' is used twice"
case "$cmd" in
run) run_all ;;
status) show_status ;;
point) run_point "$3" ;;
esac
