# scaling_time_to_target.gp — time to the target perplexity against the node count:
# steps-to-target of the convergence study's best point per N x the composed step T(N),
# one line per exchange scheme (solid: this machine's core as the node; dashed: a node of
# stated speed), for the first per-node batch.  From scaling/study/compose_tables.c's CSV:
# gnuplot -e "csv='RUN/scaling_time_to_target.csv'; out='RUN/figures/scaling_time_to_target.png'" plot/scaling_time_to_target.gp
sq = "'"
schemes = 'fused-library fused-hier per-tensor'
color(i) = word("#1f77b4 #d62728 #2ca02c", i)
pts(k, s) = sprintf("< awk -F, -v k=%s -v s=%s %sNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } !b { b = $c[\"b\"] } $c[\"node\"] == k && $c[\"scheme\"] == s && $c[\"b\"] == b { print $c[\"nodes\"], $c[\"time_to_target_s\"] }%s %s | sort -g", k, s, sq, sq, csv)
gflops = system(sprintf("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"node_gflops\"] != \"\" { print $c[\"node_gflops\"]; exit }' %s", csv))
set terminal pngcairo size 1000,700 font 'sans,10'
set output out
set termoption noenhanced
set title 'time to the target perplexity against the node count'
set logscale xy
set xlabel 'nodes'
set ylabel 'time to target (s)'
set grid
set key top right
plot for [i = 1:3] pts('core', word(schemes, i)) using 1:2 with linespoints lw 2 pt 7 lc rgb color(i) title word(schemes, i) . ' (this core)', \
     for [i = 1:3] pts('gflops', word(schemes, i)) using 1:2 with linespoints lw 1 dt 2 pt 6 lc rgb color(i) title word(schemes, i) . ' (' . gflops . ' GFLOP/s node)'
