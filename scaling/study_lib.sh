# study_lib.sh — shell functions the scaling studies share (sourced from the repository
# root: `. scaling/study_lib.sh`; each study defines its own die()):
#   study_run_name ARG     sets run: ARG, or a new results/runs/<UTC stamp>-<host>/ name;
#                          creates nothing (the settings are checked first)
#   study_run_folder       creates $run if missing (a new name: never an existing one)
#   settings_new FILE NAME the settings file a study is to save: FILE if the folder has it
#                          (then a setting given that differs from the saved one is
#                          refused), else a temporary copy of NAME's defaults for
#                          settings_save; sets src
#   settings_save FILE     after every check: the temporary settings saved as FILE
#   train_check WHAT ARGS  rnn-train --check-args ARGS; a refusal dies with
#                          "WHAT: rnn-train says: <its line>"
#   csv_last KEY FILE      the value of column KEY in the last row of the CSV FILE (empty
#                          if none)
#   json_meta KEY FILE     the value of KEY in the JSON FILE's metadata ("meta", as
#                          common/record.c writes it; empty if none)
#   col, csv_rows, ...     scaling/study/get.sh's readers, sourced here (the two above
#                          are `study get --optional`)
#   keep_aside RUN PATH    moves an existing PATH into RUN/old-K/ (the first K free), so
#                          results are never overwritten
#   study_none_done WHO POINTS PREFIX [LOGS]   exits 1 with one line when no point of
#                          the file POINTS whose name starts with PREFIX is done (nothing
#                          to tabulate); the line names LOGS (default: the points' stderr)
#   point_failed WHO NAME  exits 1 with one line: the point NAME failed, its last stderr
#                          line, where its logs are
#   run_points NAME        scaling/study.sh over the points file $points of $run, skipping
#                          what is done: a failure sets status=1, Ctrl-C exits 130 saying
#                          how NAME resumes

study_run_name() {
    run=$1; run_new=
    [ -n "$run" ] && return 0
    run="results/runs/$(date -u +%Y%m%dT%H%M%SZ)-$(hostname -s 2>/dev/null || hostname)"
    run_new=1
}

study_run_folder() {
    if [ -n "$run_new" ]; then
        mkdir -p results/runs
        mkdir "$run" || die "$run already exists; not overwriting it"
    fi
    [ -d "$run" ] || mkdir -p "$run" || die "cannot create $run"
}

# settings_new FILE: src = FILE when the folder has it, else a new temporary file (the
# caller writes the defaults into it); removed at exit unless settings_save moved it.
settings_new() {
    if [ -f "$1" ]; then
        src=$1
        settings_unchanged "$1"
        return 0
    fi
    src=$(mktemp "${TMPDIR:-/tmp}/rnnscale-settings.XXXXXX") || die "cannot create a temporary file in ${TMPDIR:-/tmp}"
    trap 'rm -f "$src"' EXIT
    trap 'rm -f "$src"; exit 130' INT TERM
}

# A resumed study runs the settings it started with: one given now that differs is an
# error, not silently ignored.
settings_unchanged() {
    for name in $(sed -n 's/^\([A-Z_][A-Z0-9_]*\)=.*/\1/p' "$1"); do
        eval "given=\${$name+1} now=\${$name-}"
        [ -n "$given" ] || continue
        saved=$(. "$1" && eval "printf '%s' \"\$$name\"")
        [ "$now" = "$saved" ] || die "$name=$now: $run was started with $name=\"$saved\" and keeps it (unset $name to resume it, or give a new folder)"
    done
}

settings_save() {
    [ "$src" = "$1" ] && return 0
    cp "$src" "$1.tmp" && mv "$1.tmp" "$1" || { rm -f "$1.tmp"; die "cannot write $1"; }
    rm -f "$src"
    src=$1
    trap - EXIT INT TERM
}

# positive_ints NAME...: each named setting a list of positive integers (else die)
positive_ints() {
    for name in "$@"; do
        eval "vals=\$$name"
        [ -n "$vals" ] || die "$name is empty: expected a positive integer"
        for v in $vals; do
            case "$v" in *[!0-9]*|0) die "$name=$vals: '$v' is not a positive integer" ;; esac
        done
    done
}

train_check() {
    what=$1; shift
    why=$(build/bin/rnn-train --check-args "$@" 2>&1 > /dev/null) && return 0
    die "$what: rnn-train says: $(echo "$why" | head -n 1 | sed 's/^rnn-train: //')"
}

. scaling/study/get.sh

csv_last() { study_get "$2" "$1" --optional; }

json_meta() { study_get "$2" "meta.$1" --optional; }

keep_aside() {
    [ -e "$2" ] || return 0
    k=1; while [ -e "$1/old-$k/$(basename "$2")" ]; do k=$((k + 1)); done
    mkdir -p "$1/old-$k" && mv "$2" "$1/old-$k/"
}

run_points() {
    sh scaling/study.sh run "$run" "$points"
    rc=$?
    { [ $rc -eq 130 ] || [ $rc -eq 143 ]; } && { echo "$1: interrupted; rerun with RUN=$run to resume"; exit $rc; }
    [ $rc -eq 0 ] || status=1
}

study_none_done() {
    done_n=$(awk -v p="$3" 'NF && $1 !~ /^#/ && $3 != "x" && index($1, p) == 1 { print $1, $3 }' "$2" |
        while read -r name ok; do
            [ -f "$run/points/$name/rc" ] && awk -v ok="$ok" 'BEGIN { n = split(ok, c, ",") }
                { for (i = 1; i <= n; i++) if ($1 == c[i]) d = 1 } END { exit !d }' "$run/points/$name/rc" &&
                echo "$name"
        done | wc -l)
    [ "$done_n" -eq 0 ] || return 0
    echo "$1: every point failed (their logs: ${4:-$run/points/$3*/stderr.txt}); no table, report or figure written" >&2
    exit 1
}

point_failed() {
    why=$(tail -n 1 "$run/points/$2/stderr.txt" 2>/dev/null)
    echo "$1: the point $2 failed${why:+: $why} (logs: $run/points/$2/); nothing more to run" >&2
    exit 1
}
