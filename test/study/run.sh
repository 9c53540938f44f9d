#!/bin/sh
# test/study/run.sh [BIN_DIR] — build/bin/study, the one reader of result files: `get`
# on CSV (quoted cells, --where, --row, --all, --optional) and JSON (keys, array
# indices), its exit statuses and one-line errors; `points` on a hand-made run folder
# (statuses, the union of one-row results, a clashing name, the table never
# overwritten); `took` on a hand-made joblog (stretches, wall, job and CPU hours).  A
# second or so.
set -u
bin=${1:-build/bin}
cd "$(dirname "$0")/../.."
. test/lib.sh
test_begin study
st=$bin/study

# same WHAT EXPECTED ACTUAL
same() { [ "$3" = "$2" ] && ok "$1" || bad "$1: expected '$2', got '$3'"; }
# status WHAT EXPECTED CMD...: the exit status and, for 2, one line on stderr
status() {
    what=$1; want=$2; shift 2
    "$@" > "$tmp/out" 2> "$tmp/err"; got=$?
    if [ $got -ne "$want" ]; then bad "$what: exit $got, expected $want"
    elif [ "$want" = 2 ] && [ "$(wc -l < "$tmp/err")" -ne 1 ]; then bad "$what: stderr is not one line"
    else ok "$what: exit $got${want:+ $(head -c 120 "$tmp/err")}"; fi
}

cat > "$tmp/t.csv" <<'CSV'
point,N,lr,note
a,1,0.05,plain
b,64,2,"with, a comma"
c,64,4,"say ""hi"""
CSV
echo "== get: CSV"
same "the last row by default" "4" "$($st get "$tmp/t.csv" lr)"
same "--row first" "0.05" "$($st get "$tmp/t.csv" lr --row first)"
same "--row 2, a quoted comma" "with, a comma" "$($st get "$tmp/t.csv" note --row 2)"
same "a quoted quote" 'say "hi"' "$($st get "$tmp/t.csv" note)"
same "--where, two columns tab-separated" "$(printf 'b\t2')" "$($st get "$tmp/t.csv" point,lr --where N=64 --row first)"
same "--all" "$(printf '64\n64')" "$($st get "$tmp/t.csv" N --where N=64 --all)"
same "numbers as written (0.05, not 0.05000000000000000277)" "0.05" "$($st get "$tmp/t.csv" lr --where point=a)"
status "no row kept" 1 "$st" get "$tmp/t.csv" lr --where N=7
status "an unknown column" 2 "$st" get "$tmp/t.csv" nope
status "a missing file" 2 "$st" get "$tmp/none.csv" lr
status "--where without =" 2 "$st" get "$tmp/t.csv" lr --where N
status "--row 0" 2 "$st" get "$tmp/t.csv" lr --row 0
status "--where twice" 2 "$st" get "$tmp/t.csv" lr --where N=64 --where point=b
same "--optional: a missing file is an empty line" "" "$($st get "$tmp/none.csv" lr --optional)"
status "--optional: exit 0" 0 "$st" get "$tmp/t.csv" nope --optional
printf 'a,b\n1,2,3\n' > "$tmp/bad.csv"
printf 'a,b\n1\n' > "$tmp/short.csv"
status "a row shorter than the header" 2 "$st" get "$tmp/short.csv" a
status "a row longer than the header" 2 "$st" get "$tmp/bad.csv" a

echo "== get: JSON"
printf '{"study": "x", "meta": {"command": "rnn-train --lr 2", "n": 58, "x": 0.1, "ok": true, "none": null}, "rows": [{"ppl": 128.10851565236246}, {"ppl": 2}]}\n' > "$tmp/t.json"
same "a dotted key" "rnn-train --lr 2" "$($st get "$tmp/t.json" meta.command)"
same "an integer" "58" "$($st get "$tmp/t.json" meta.n)"
same "a fraction" "0.1" "$($st get "$tmp/t.json" meta.x)"
same "true" "true" "$($st get "$tmp/t.json" meta.ok)"
same "null is empty" "" "$($st get "$tmp/t.json" meta.none)"
status "an array is not a value" 2 "$st" get "$tmp/t.json" rows
same "an array's element by its index, in full precision" "128.10851565236246" "$($st get "$tmp/t.json" rows.0.ppl)"
same "the last element" "2" "$($st get "$tmp/t.json" rows.1.ppl)"
status "an index past the end" 2 "$st" get "$tmp/t.json" rows.2.ppl
status "a name is no index" 2 "$st" get "$tmp/t.json" rows.first.ppl
same "--optional: an index past the end is an empty line" "" "$($st get "$tmp/t.json" rows.2.ppl --optional)"
status "a missing key" 2 "$st" get "$tmp/t.json" meta.nope
printf '{"a": ' > "$tmp/broken.json"
status "broken JSON" 2 "$st" get "$tmp/broken.json" a

echo "== compare: two runs' logs row by row"
printf 'step,tokens,train_loss,b_simple\n1,10,6.000001,\n2,20,5.9,3\n' > "$tmp/la.csv"
printf 'step,tokens,train_loss,b_simple\n1,10,6.000002,\n2,20,5.9,3\n' > "$tmp/lb.csv"
printf 'step,tokens,train_loss,b_simple\n1,10,6.000001,\n3,20,5.9,3\n' > "$tmp/lc.csv"
status "within one unit of the printed digit" 0 "$st" compare "$tmp/la.csv" "$tmp/lb.csv" --equal tokens --abs train_loss=1.5e-6 --rows 2
status "beyond the tolerance" 1 "$st" compare "$tmp/la.csv" "$tmp/lb.csv" --abs train_loss=5e-7
status "a row count other than --rows" 1 "$st" compare "$tmp/la.csv" "$tmp/lb.csv" --rows 3
status "a step A lacks" 1 "$st" compare "$tmp/la.csv" "$tmp/lc.csv" --equal tokens
status "--after and --filled" 0 "$st" compare "$tmp/la.csv" "$tmp/lb.csv" --after 1 --equal b_simple --filled b_simple
status "--filled on an empty cell" 1 "$st" compare "$tmp/la.csv" "$tmp/lb.csv" --filled b_simple
status "an unknown column" 2 "$st" compare "$tmp/la.csv" "$tmp/lb.csv" --equal nope

echo "== points"
r=$tmp/run; p=$r/points
mkdir -p "$p/p1" "$p/p2" "$p/p3" "$p/p4"
echo "rnn-train --lr 1" > "$p/p1/cmd"; echo 0 > "$p/p1/rc"; echo 12 > "$p/p1/seconds"; echo 9.5 > "$p/p1/cpu_seconds"
printf 'steps,valid_ppl,status\n40,210.5,x\n' > "$p/p1/summary.csv"
printf 'step,b_simple\n2,8\n4,9\n' > "$p/p1/log.csv"
echo "rnn-train --lr 8" > "$p/p2/cmd"; echo 1 > "$p/p2/rc"; echo 3 > "$p/p2/seconds"
printf 'warming up\nrnn-train: diverged at step 9\n\n' > "$p/p2/stderr.txt"
echo "rnn-train --bench 20" > "$p/p3/cmd"; echo 0 > "$p/p3/rc"
printf 'tokens_per_s,step_ms_median\n2042.37,8.5\n' > "$p/p3/bench.csv"
echo "infeasible: 800 workers need 48% of the corpus per step" > "$p/p4/infeasible"
mkdir -p "$p/p5"; echo "rnn-train --target-ppl 1" > "$p/p5/cmd"; echo 1 > "$p/p5/rc"
printf 'p5 1 0,1 rnn-train --target-ppl 1\n' > "$r/x_points.txt"   # exit 1 is an outcome here
status "points on a run folder" 0 "$st" points "$r"
t=$r/points.csv
same "statuses in name order (p5's exit 1 is one of its OK codes)" "$(printf 'done\nfailed\ndone\ninfeasible\ndone')" "$($st get "$t" status --all)"
same "a result's cell" "210.5" "$($st get "$t" valid_ppl --where point=p1)"
same "the union: bench.csv's column too" "2042.37" "$($st get "$t" tokens_per_s --where point=p3)"
same "a clashing name gets result_" "x" "$($st get "$t" result_status --where point=p1)"
same "a failure's last stderr line" "rnn-train: diverged at step 9" "$($st get "$t" note --where point=p2)"
same "why infeasible" "infeasible: 800 workers need 48% of the corpus per step" "$($st get "$t" note --where point=p4)"
same "result file and rows" "$(printf 'summary.csv\t1')" "$($st get "$t" result_file,result_rows --where point=p1)"
same "no wall time where none was written" "" "$($st get "$t" wall_seconds --where point=p3)"
same "the CPU time as written" "9.5" "$($st get "$t" cpu_seconds --where point=p1)"
status "an existing table is not overwritten" 2 "$st" points "$r"
status "no points folder" 2 "$st" points "$tmp"
status "an unknown subcommand" 2 "$st" pick

echo "== took"
# two studies; regime's p1 stopped and continued (two jobs, its cpu_seconds over both);
# a 1000 s stop between 1900 and 2900; a 100 s plan gap (1500 -> 1600) counts
C=$r/converge_points.txt; G=$r/regime_points.txt
# in the order jobs end, as GNU parallel logs them: p5 (900-1500) after p3 (1000-1400)
printf '1\t:\t1000\t400\t0\t0\t0\t0\tstudy point %s %s p3\n' "$r" "$C" > "$r/joblog.txt"
printf '3\t:\t1600\t300\t0\t0\t-1\t15\tstudy point %s %s p1\n' "$r" "$G" >> "$r/joblog.txt"
printf '2\t:\t900\t600\t0\t0\t0\t0\tstudy point %s %s p5\n' "$r" "$C" >> "$r/joblog.txt"
printf '4\t:\t2900\t200\t0\t0\t0\t0\tstudy point %s %s p1\n' "$r" "$G" >> "$r/joblog.txt"
echo 3600 > "$p/p3/cpu_seconds"; echo 1800 > "$p/p5/cpu_seconds"; echo 720 > "$p/p1/cpu_seconds"
status "took on a run folder" 0 "$st" took "$r"
k=$r/took.csv
same "converge: jobs, stretches" "$(printf '2\t1')" "$($st get "$k" jobs,stretches --where study=converge)"
same "converge: wall = the union of its jobs, whatever their order in the log (600 s)" "0.166667" "$($st get "$k" wall_hours --where study=converge | cut -c1-8)"
same "regime: a stop of 1000 s splits it, the stretches' walls add (500 s)" "$(printf '2\t0.138889')" "$($st get "$k" stretches,wall_hours --where study=regime | cut -c1-10)"
same "all: the 100 s gap counts, the stop does not (1000 + 200 s)" "$(printf '2\t0.333333')" "$($st get "$k" stretches,wall_hours --where study=all | cut -c1-10)"
same "job hours add every run (1500 s)" "0.416667" "$($st get "$k" job_hours --where study=all | cut -c1-8)"
same "CPU hours: each point once, all its runs (6120 s)" "1.7" "$($st get "$k" cpu_hours --where study=all)"
status "no joblog" 2 "$st" took "$tmp"
mkdir -p "$tmp/long"; { printf '1\t:\t1000\t4\t0\t0\t0\t0\tstudy point R '; head -c 9000 /dev/zero | tr '\0' x; printf ' p\n'; } > "$tmp/long/joblog.txt"
status "a joblog line over 8 KiB" 2 "$st" took "$tmp/long"

echo "== advise"
# a 6-second short run of a tiny model (two workers: B_simple logged), then its folder read
# again with another cluster: B_simple, the step, a row per N and where doubling stops
adv="$tmp/adv dir"
tiny="--model lstm --hidden 16 --classes 20 --corpus mobydick --vocab 500 --batch 8 --bptt 10 --threads 1 --eval-every 20 --optimizer adam --lr 0.003"
status "advise: a short run" 0 "$st" advise --minutes 0.1 --nodes 64 --out "$adv" -- $tiny
grep -q "^measured  B_simple [0-9.e+]* sequences" "$tmp/out" && [ "$(grep -c '^ *[0-9]* *[0-9]* *[0-9.e+-]* *[0-9.e+-]* *[0-9.e+-]* *[0-9.e+-]* *[0-9.]*' "$tmp/out")" -ge 7 ] &&
    grep -q "^advice " "$tmp/out" && ok "advise: B_simple, the rows N = 1 - 64, the advice" || { bad "advise's output"; cat "$tmp/out"; }
status "advise --from: the run read again, a 10 ms link" 0 "$st" advise --from "$adv" --nodes 800 --latency-us 10000
grep -q "^       1 " "$tmp/out" && grep -q "^     800 " "$tmp/out" && ok "advise --from: rows to 800 nodes" || bad "advise --from: $(head -c 300 "$tmp/out")"
status "advise: --out holding a run" 2 "$st" advise --out "$adv" -- $tiny
status "advise --from a folder with no run" 2 "$st" advise --from "$tmp"
status "advise --minutes 0" 2 "$st" advise --minutes 0
status "advise: rnn-train refuses its arguments" 2 "$st" advise --out "$tmp/adv2" -- --model gru

[ $fail -eq 0 ] && echo "check-study: all passed" || echo "check-study: FAILED"
exit $fail
