# scaling_efficiency.gp — weak and strong scaling efficiency against the node count, one
# line per exchange scheme (solid: this machine's core as the node; dashed: a node of
# stated speed), from the composition study's CSVs (make scaling; scaling/study/compose_report.c):
# gnuplot -e "weak='RUN/scaling_weak.csv'; strong='RUN/scaling_strong.csv';
#             out='RUN/figures/scaling_efficiency.png'" plot/scaling_efficiency.gp
sq = "'"
schemes = 'fused-library fused-hier per-tensor'
color(i) = word("#1f77b4 #d62728 #2ca02c", i)
# "nodes efficiency" of one (node kind, scheme); anyb 0: only the file's first b (weak)
pts(f, k, s, anyb) = sprintf("< awk -F, -v k=%s -v s=%s -v anyb=%d %sNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } !b { b = $c[\"b\"] } $c[\"node\"] == k && $c[\"scheme\"] == s && (anyb || $c[\"b\"] == b) { print $c[\"nodes\"], $c[\"efficiency\"] }%s %s", k, s, anyb, sq, sq, f)
gflops = system(sprintf("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"node_gflops\"] != \"\" { print $c[\"node_gflops\"]; exit }' %s", weak))
set terminal pngcairo size 1200,520 font 'sans,10'
set output out
set termoption noenhanced
set multiplot layout 1,2
set logscale x
set xlabel 'nodes'
set ylabel 'efficiency (speedup / nodes)'
set yrange [0:1.05]
set grid
set key below
set title 'weak scaling (per-node batch fixed)'
plot for [i = 1:3] pts(weak, 'core', word(schemes, i), 0) using 1:2 with linespoints lw 2 pt 7 lc rgb color(i) title word(schemes, i) . ' (this core)', \
     for [i = 1:3] pts(weak, 'gflops', word(schemes, i), 0) using 1:2 with linespoints lw 1 dt 2 pt 6 lc rgb color(i) title word(schemes, i) . ' (' . gflops . ' GFLOP/s node)'
set title 'strong scaling (global batch fixed)'
plot for [i = 1:3] pts(strong, 'core', word(schemes, i), 1) using 1:2 with linespoints lw 2 pt 7 lc rgb color(i) title word(schemes, i) . ' (this core)', \
     for [i = 1:3] pts(strong, 'gflops', word(schemes, i), 1) using 1:2 with linespoints lw 1 dt 2 pt 6 lc rgb color(i) title word(schemes, i) . ' (' . gflops . ' GFLOP/s node)'
unset multiplot
