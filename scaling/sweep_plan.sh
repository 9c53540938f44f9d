# sweep_plan.sh — the parts of scaling/sweep.sh and how their simulations become one
# list of points for scaling/study.sh; sourced by sweep.sh (POSIX sh) with run, work
# (RUN/simulate_work), jobs and status set:
#
#   sweep_parts              the parts of the preset (QUICK, FULL or the default; or
#                            the file SIM_PARTS), one "NAME scaling/simulate-options"
#                            line each
#   plan_part NAME ARGS      scaling/simulate --plan into WORK/NAME (unless NAME's CSV or
#                            JSON exists: results are never overwritten)
#   write_points PARTS       every planned simulation as a study.sh point, the longest
#                            first; the cheap ones of a part grouped, so that no point is
#                            more than a small share of the sweep and few are tiny
#   collect_part NAME ARGS   scaling/simulate --collect: NAME.csv/.json/.txt/.log
#   record_costs PARTS WALL  simulate_cost.txt and simulate_points.txt

# The default sweep leaves out what repeats another point (scaling/README.md, "Cost");
# FULL=1 still runs all of it.  With one rank per node, smpi:mpich and
# smpi:mvapich2_two_level are SMPI's rdb and smpi:smp_rsag is a ring (the project's
# ring's times at every point), as are smpi:lr and segring where --skip-ring-repeats
# says (152 points of the reference run, all equal).  From 512 nodes SMPI's selectors
# (smpi:ompi, smpi:mpich, smpi:mvapich2) pick rdb, rab_rdb or a binomial reduce +
# bcast, and smpi:rdb and smpi:rab_rdb time exactly as recdbl and rabenseifner (every
# point at 512-1024 nodes, random placement too): they run at 800 nodes alone, for the
# 800-node tables.  1 and 16 MiB at 512 and 1024 nodes are in no figure or table.
# Moved to FULL=1 (in no verdict or table; the figures' curves end earlier): 4 and 64
# MiB at 1024 nodes, the costliest points (the verdicts are at 800 nodes); and at 800
# nodes the ring-like points but smpi:lr at 64 MiB, the best SMPI built-in there (its
# verdict compares hier with it): ring at 4 and 64 MiB, smpi:lr at 4 MiB.
sweep_parts() {
    if [ -n "${SIM_PARTS:-}" ]; then cat "$SIM_PARTS"
    elif [ -n "${QUICK:-}" ]; then cat <<'EOF'
simulate_small --platform taihulight --nodes 4,16,64,256 --sizes 4,64k,1M,4M --algo project,smpi:rdb,smpi:rab_rdb,smpi:lr,smpi:ompi,bound
simulate_placement_random --platform taihulight --nodes 256 --sizes 64k,4M --placement random --algo recdbl,rabenseifner,hier,torus2d,smpi:rab_rdb,bound
simulate_platforms_fattree --platform fattree --nodes 64 --sizes 64k,4M --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,bound
simulate_platforms_torus --platform torus --platform-args "--torus 4x4x4" --nodes 64 --sizes 64k,4M --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,bound
caffe --experiment caffe --nodes 1,4,16,64,256
EOF
    elif [ -n "${FULL:-}" ]; then cat <<'EOF'
simulate_small --platform taihulight --nodes 2,4,8,16,32,64,128,256 --sizes 4:64M:4 --algo all
simulate_large --platform taihulight --nodes 512,800,1024 --sizes 4,1k,16k,256k,1M,4M,16M,64M --algo all
simulate_placement_roundrobin --platform taihulight --nodes 800 --sizes 4,64k,1M,4M,64M --placement roundrobin --algo recdbl,rabenseifner,hier,torus2d,smpi:rab_rdb,smpi:mvapich2,bound
simulate_placement_random --platform taihulight --nodes 800 --sizes 4,64k,1M,4M,64M --placement random --algo recdbl,rabenseifner,hier,torus2d,smpi:rab_rdb,smpi:mvapich2,bound
simulate_platforms_fattree --platform fattree --nodes 64,512 --sizes 4,64k,4M,64M --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,smpi:rab_rdb,bound
simulate_platforms_torus --platform torus --nodes 64,512 --sizes 4,64k,4M,64M --algo recdbl,rabenseifner,hier,torus2d,smpi:ompi,smpi:rab_rdb,bound
caffe --experiment caffe --nodes 1,2,4,8,16,32,64,128,256,512,800
EOF
    else cat <<'EOF'
simulate_small --platform taihulight --nodes 2,4,8,16,32,64,128,256 --sizes 4:64M:4 --algo project,smpi:rdb,smpi:rab1,smpi:rab_rdb,smpi:lr,smpi:ompi,smpi:mvapich2,bound --skip-ring-repeats
simulate_large --platform taihulight --nodes 512,800,1024 --sizes 4,64k --sizes-at 512:4,64k,4M,64M --sizes-at 800:4,64k,1M,4M,16M,64M --algo recdbl,rabenseifner,binomial,hier,torus2d,bound
simulate_large_smpi --platform taihulight --nodes 800 --sizes 4,64k,1M,4M,16M,64M --algo smpi:rdb,smpi:rab_rdb
simulate_ring --platform taihulight --nodes 800 --sizes 64M --algo smpi:lr
caffe --experiment caffe --nodes 1,2,4,8,16,32,64,128,256,512,800
simulate_placement_random --platform taihulight --nodes 800 --sizes 4M,64M --placement random --algo rabenseifner,hier,bound
simulate_platforms_fattree --platform fattree --nodes 64,512 --sizes 64k,4M,64M --algo rabenseifner,hier,torus2d,smpi:ompi,bound
simulate_platforms_torus --platform torus --nodes 64,512 --sizes 64k,4M,64M --algo rabenseifner,hier,torus2d,smpi:ompi,bound
EOF
    fi
}

# done_part NAME: true (with a message) when NAME's results are already there.
done_part() {
    for f in "$run/$1.csv" "$run/$1.json"; do
        [ ! -e "$f" ] || { echo "simulate: $f exists; skipping $1 (results are never overwritten)"; return 0; }
    done
    return 1
}

plan_part() {
    name=$1
    done_part "$name" && return 0
    [ -f "$work/$name/settings" ] && return 0   # planned by an earlier, interrupted sweep
    echo "== $name: scaling/simulate $2"
    eval "set -- $2" && sh scaling/simulate "$@" --jobs "$jobs" --keep "$work/$name" --plan 2> "$work/$name.plan.log" ||
        { echo "simulate: $name: $(tail -n 1 "$work/$name.plan.log")"; status=1; rm -rf "$work/$name"; }
}

write_points() {
    wabs=$(cd "$work" && pwd)
    while read -r name args; do
        [ -f "$work/$name/settings" ] && awk -v n="$name" '{ print n, $1, $2 }' "$work/$name/jobs/list"
    done < "$1" | sort -k3,3gr |
    awk -v jobs="$jobs" -v w="$wabs" -v sim="$ROOT/scaling/simulate" '
        { part[NR] = $1; id[NR] = $2; wt[NR] = $3; total += $3 }
        function emit(n, ids, k, sum) {
            printf "%s.%s%s %.1f 0 sh %s --keep %s/%s --run-job %s\n", n, substr(ids, 1, 5),
                (k > 1 ? "+" (k - 1) : ""), sum, sim, w, n, ids }
        END { small = total / (20 * jobs)   # no point above ~5% of a core'"'"'s share
              for (i = 1; i <= NR; i++) {
                  if (wt[i] >= small) { emit(part[i], id[i], 1, wt[i]); continue }
                  n = part[i]; g[n] = g[n] (g[n] == "" ? "" : ",") id[i]; gk[n]++; gs[n] += wt[i]
                  if (gs[n] >= small) { emit(n, g[n], gk[n], gs[n]); g[n] = ""; gk[n] = 0; gs[n] = 0 } }
              for (n in g) if (g[n] != "") emit(n, g[n], gk[n], gs[n]) }' |
    sort -k2,2gr
}

collect_part() {
    name=$1
    [ -f "$work/$name/settings" ] || return 0
    eval "set -- $2" && sh scaling/simulate "$@" --keep "$work/$name" --collect \
        --csv "$run/$name.csv" --json "$run/$name.json" > "$run/$name.txt" 2> "$run/$name.log"
    rc=$?
    cat "$run/$name.txt"; grep -v '^\[' "$run/$name.log" | grep -v '^$' | tail -n 5
    { [ $rc -eq 130 ] || [ $rc -eq 143 ]; } && { echo "simulate: interrupted; $run keeps what was written"; exit $rc; }
    [ $rc -eq 0 ] || { echo "simulate: $name exited $rc"; [ $status -eq 0 ] && status=$rc; }
}

# simulate_points.txt: each simulation's part, nodes, algorithm, folded, sizes, wall and
# CPU seconds, peak memory; simulate_cost.txt: each part's sum of those wall seconds,
# and the total.
record_costs() {
    while read -r name args; do
        [ -f "$work/$name/settings" ] || continue
        for e in "$work/$name"/jobs/j*.env; do
            id=$(basename "$e" .env)
            [ -f "$work/$name/jobs/$id.seconds" ] || continue
            j="$work/$name/jobs/$id"
            (. "$e"; [ "$KIND" = smpi ] && NAME="smpi:$NAME"; printf '%s %s %s %s %s %s %s %s %s\n' "$name" "$id" "$P" \
                "$NAME" "$FOLD" "$(tr '\n' ',' < "$j.sizes" | sed 's/,$//')" "$(cat "$j.seconds")" \
                "$(cat "$j.cpu" 2>/dev/null || echo -)" "$(sort -n "$j.rss" 2>/dev/null | tail -n 1 | grep . || echo -)")
        done
    done < "$1" > "$run/simulate_points.tmp"
    if [ -s "$run/simulate_points.tmp" ]; then
        { echo "part id nodes algorithm folded sizes seconds cpu_seconds max_rss_kb"
          sort -k7,7nr "$run/simulate_points.tmp"; } > "$run/simulate_points.txt"
        awk '{ s[$1] += $7; if (!($1 in seen)) { seen[$1] = 1; o[++n] = $1 } }
            END { for (i = 1; i <= n; i++) print o[i], s[o[i]] }' "$run/simulate_points.tmp" >> "$run/simulate_cost.txt"
    fi
    rm -f "$run/simulate_points.tmp"
    echo "total $2" >> "$run/simulate_cost.txt"
}
