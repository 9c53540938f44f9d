# scaling_breakdown.gp — the composed training step broken down against the node count
# (weak scaling, the first per-node batch): compute, optimizer, evaluation (exposed, per
# step) and each exchange scheme's exposed exchange; left this machine's core as the
# node, right a node of stated speed.  From scaling/study/compose_tables.c (make scaling):
# gnuplot -e "csv='RUN/scaling_weak.csv'; out='RUN/figures/scaling_breakdown.png'" plot/scaling_breakdown.gp
sq = "'"
schemes = 'fused-library fused-hier per-tensor'
color(i) = word("#1f77b4 #d62728 #2ca02c", i)
# "nodes value" of column y for one (node kind, scheme) at the file's first b
pts(k, s, y) = sprintf("< awk -F, -v k=%s -v s=%s -v y=%s %sNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } !b { b = $c[\"b\"] } $c[\"node\"] == k && $c[\"scheme\"] == s && $c[\"b\"] == b && $c[y] > 0 { print $c[\"nodes\"], $c[y] }%s %s", k, s, y, sq, sq, csv)
gflops = system(sprintf("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"node_gflops\"] != \"\" { print $c[\"node_gflops\"]; exit }' %s", csv))
set terminal pngcairo size 1200,520 font 'sans,10'
set output out
set termoption noenhanced
set multiplot layout 1,2
set logscale xy
set xlabel 'nodes'
set ylabel 'ms per step'
set grid
set key below
do for [k in 'core gflops'] {
    set title (k eq 'core' ? 'this machine''s core as the node' : 'a node of ' . gflops . ' GFLOP/s') . ': the step''s parts (weak scaling)'
    plot pts(k, 'fused-library', 'compute_ms') using 1:2 with linespoints lw 2 pt 5 lc rgb 'black' title 'compute', \
         pts(k, 'fused-library', 'optimizer_ms') using 1:2 with linespoints lw 1 pt 4 lc rgb 'gray40' title 'optimizer', \
         pts(k, 'fused-library', 'eval_ms') using 1:2 with linespoints lw 1 pt 8 lc rgb '#9467bd' title 'evaluation (exposed)', \
         for [i = 1:3] pts(k, word(schemes, i), 'exchange_ms') using 1:2 with linespoints lw 2 pt 7 lc rgb color(i) title 'exchange: ' . word(schemes, i), \
         for [i = 1:3] pts(k, word(schemes, i), 'step_ms') using 1:2 with lines lw 1 dt 2 lc rgb color(i) title 'step: ' . word(schemes, i)
}
unset multiplot
