# simulate_job.sh — running scaling/simulate's planned simulations; sourced by
# scaling/simulate (POSIX sh) after its options, with these variables set: work (the
# work folder: jobs/ID.env, jobs/ID.sizes, plat/pP.*), eager, hier_groups, hier_max,
# reduce, platform, BENCH, FOLDLIB, SMPIRUN, and scaling/smpi_env.sh sourced.
#
#   run_job ID        one job: its smpirun, the size-by-size retry if it dies, then
#                     jobs/ID.rc (written last), jobs/ID.seconds, jobs/ID.cpu and
#                     jobs/ID.rss (peak memory, KB, with GNU time)
#   run_all_jobs N    every job of jobs/list, N at once, the heaviest first, with a
#                     progress line and ETA on stderr; sets elapsed (seconds)
#   save_settings     the variables above into WORK/settings, for `--run-job` (one job
#                     of a planned folder, as scaling/sweep.sh schedules them)

# run_one ID SIZESFILE OUTCSV: one smpirun; its exit status.
run_one() {
    ro_id=$1; ro_sizes=$2; ro_out=$3
    . "$work/jobs/$ro_id.env"
    plat="$work/plat/p$P"
    # smpi:NAME is `library` under smpi/allreduce:NAME; the benchmark's own allreduces
    # stay recursive doubling (scaling/smpi_hooks.c), whatever NAME is
    alg=rdb; [ "$KIND" = smpi ] && alg=$NAME
    cfg="--cfg=smpi/simulate-computation:no $(smpi_cfg "$eager")"
    cfg="$cfg --cfg=smpi/coll-selector:$SEL --cfg=smpi/allreduce:$alg"
    # one call per point: a simulated call takes the same time every time, so a checked
    # call before each timed one doubled the cost (the timed output is checked); a small
    # first size keeps it, as some algorithms' first small call differs slightly
    bargs="--timed-only"
    # hier's unequal platform groups cut into equal ones (the library's --group-max)
    [ "$hier_groups" = equal ] && bargs="$bargs --group-max $hier_max"
    set -- $(smpi_heap_env)
    [ -n "$reduce" ] && set -- "$@" RS_SMPI_REDUCE_GBYTES_PER_S=$reduce
    [ "$platform" = torus ] && set -- "$@" RS_SMPI_GROUPS=$plat.groups
    if [ "$FOLD" = 1 ]; then
        cfg="$cfg $(smpi_fold_cfg)"
        set -- "$@" $(smpi_fold_env "$FOLDLIB")
        bargs="$bargs --no-check"
    fi
    # the peak memory (KB) where GNU time is there: the sweep's memory is their sum
    rss=""; [ -x /usr/bin/time ] && rss="/usr/bin/time -a -o $work/jobs/$ro_id.rss -f %M"
    $rss env "$@" "$SMPIRUN" -np "$P" -platform "$plat.xml" -hostfile "$plat.hosts" $cfg "$BENCH" \
        --algo "$ALGOS" --sizes "$ro_sizes" --iters 1 --warmup 0 --mode isolated $bargs --csv "$ro_out" \
        >> "$work/jobs/$ro_id.log" 2>> "$work/jobs/$ro_id.err"
}

# children_cpu ID: cpu = the user + system seconds of this shell's finished children so
# far (`times`' second line, written to a file: in $(...) it would be a subshell's).
children_cpu() {
    times > "$work/jobs/$1.times"
    cpu=$(awk 'NR == 2 { s = 0; for (i = 1; i <= 2; i++) { split($i, q, "m"); s += q[1] * 60 + q[2] }
        printf "%.1f\n", s }' "$work/jobs/$1.times")
    rm -f "$work/jobs/$1.times"
}

# run_job ID: all its sizes in one run; if that run dies (not just "wrong"), each size
# alone, so one crashing point does not lose the others; notes say what failed.
run_job() {
    id=$1
    rj_t0=$(date +%s); children_cpu "$id"; rj_cpu0=$cpu
    rm -f "$work/jobs/$id.csv" "$work/jobs/$id.failed" "$work/jobs/$id".s*.csv "$work/jobs/$id.rss"
    run_one "$id" "$work/jobs/$id.sizes" "$work/jobs/$id.csv"; rc=$?
    if { [ $rc -ne 0 ] && [ $rc -ne 1 ]; } || [ ! -s "$work/jobs/$id.csv" ]; then
        rm -f "$work/jobs/$id.csv"
        k=0
        for s in $(cat "$work/jobs/$id.sizes"); do
            k=$((k + 1)); echo "$s" > "$work/jobs/$id.s$k.sizes"
            run_one "$id" "$work/jobs/$id.s$k.sizes" "$work/jobs/$id.s$k.csv"; r=$?
            if { [ $r -ne 0 ] && [ $r -ne 1 ]; } || [ ! -s "$work/jobs/$id.s$k.csv" ]; then
                why=$(grep -v '^ *->\|^Backtrace\|^$' "$work/jobs/$id.err" | tail -n 1 | tr ',"' ';'"'" | cut -c1-160)
                echo "$s exit $r: $why" >> "$work/jobs/$id.failed"
                rm -f "$work/jobs/$id.s$k.csv"
            fi
        done
        rc=0; [ -s "$work/jobs/$id.failed" ] && rc=3
    fi
    echo $(( $(date +%s) - rj_t0 )) > "$work/jobs/$id.seconds"
    children_cpu "$id"; awk -v a="$rj_cpu0" -v b="$cpu" 'BEGIN { printf "%.1f\n", b - a }' > "$work/jobs/$id.cpu"
    echo $rc > "$work/jobs/$id.rc"
}

progress() { # DONE_W DONE_N LABEL
    now=$(date +%s); el=$((now - start))
    awk -v dw="$1" -v tw="$total_w" -v dn="$2" -v tn="$njobs" -v el="$el" -v lab="$3" -v tty="$tty" 'BEGIN {
        pct = tw > 0 ? 100 * dw / tw : 100
        eta = dw > 0 ? el * (tw - dw) / dw : -1
        e = eta < 0 ? "--:--" : sprintf("%d:%02d", eta / 60, eta % 60)
        line = sprintf("[%d/%d] %-44.44s %3d%%  elapsed %d:%02d  ETA %s", dn, tn, lab, pct, el / 60, el % 60, e)
        if (tty) printf "\r\033[K%s", line > "/dev/stderr"; else print line > "/dev/stderr" }'
}

# reap: the running jobs that have finished leave $work/running, with a progress line.
reap() {
    for r in $(cat "$work/running"); do
        rid=${r#*:}
        if [ -f "$work/jobs/$rid.rc" ]; then
            grep -v "^$r\$" "$work/running" > "$work/running.new"; mv "$work/running.new" "$work/running"
            . "$work/jobs/$rid.env"; done_w=$((done_w + W)); done_n=$((done_n + 1))
            progress $done_w $done_n "p=$P $NAME ($NS sizes$([ "$FOLD" = 1 ] && echo ', folded'))"
        fi
    done
}

run_all_jobs() {
    total_w=$(awk '{ s += $2 } END { print s + 0 }' "$work/jobs/list" 2>/dev/null || echo 0)
    tty=0; [ -t 2 ] && tty=1
    start=$(date +%s)
    echo "simulate: $njobs simulations ($platform, $placement, nodes: $(echo $nodes | tr ' ' ',')), work folder $work" >&2
    done_w=0; done_n=0; : > "$work/running"
    # the heaviest first, so the last ones to finish are short
    for entry in $(sort -k2,2nr "$work/jobs/list" 2>/dev/null | awk '{ print $1 ":" $2 }'); do
        id=${entry%%:*}
        while [ "$(wc -l < "$work/running")" -ge "$1" ]; do sleep 1; reap; done
        run_job "$id" &
        echo "$!:$id" >> "$work/running"
        . "$work/jobs/$id.env"
        [ $tty = 1 ] && progress $done_w $done_n "running p=$P $NAME"
    done
    while [ -s "$work/running" ]; do sleep 1; reap; done
    wait
    [ $tty = 1 ] && printf '\r\033[K' >&2
    elapsed=$(( $(date +%s) - start ))
    echo "simulate: $njobs simulations in $((elapsed / 60)) min $((elapsed % 60)) s" >&2
}

save_settings() {
    for v in eager hier_groups hier_max reduce platform BENCH FOLDLIB SMPIRUN; do
        eval "val=\$$v"
        printf "%s='%s'\n" "$v" "$(printf '%s' "$val" | sed "s/'/'\\\\''/g")"
    done > "$work/settings"
}
