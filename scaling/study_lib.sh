# study_lib.sh — shell functions the scaling studies share (sourced from the repository
# root: `. scaling/study_lib.sh`; each study defines its own die()):
#   study_run_folder ARG   sets run: ARG, or a new results/runs/<UTC stamp>-<host>/ (never
#                          an existing one); created if missing
#   csv_last KEY FILE      the value of column KEY in the last row of the CSV FILE (empty
#                          if none)
#   json_meta KEY FILE     the string KEY of the JSON FILE's metadata, as common/record.c
#                          writes it (one key per line; empty if none)
#   keep_aside RUN PATH    moves an existing PATH into RUN/old-K/ (the first K free), so
#                          results are never overwritten
#   run_points NAME        scaling/study.sh over the points file $points of $run, skipping
#                          what is done: a failure sets status=1, Ctrl-C exits 130 saying
#                          how NAME resumes

study_run_folder() {
    run=$1
    if [ -z "$run" ]; then
        run="results/runs/$(date -u +%Y%m%dT%H%M%SZ)-$(hostname -s 2>/dev/null || hostname)"
        mkdir -p results/runs
        mkdir "$run" || die "$run already exists; not overwriting it"
    fi
    [ -d "$run" ] || mkdir -p "$run" || die "cannot create $run"
}

csv_last() {
    [ -f "$2" ] && awk -F, -v k="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i; next }
        c { v = $c } END { print v }' "$2"
}

json_meta() {
    [ -f "$2" ] && sed -n "s/^ *\"$1\": \"\(.*\)\",\{0,1\}\$/\1/p" "$2" | head -n 1
}

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
