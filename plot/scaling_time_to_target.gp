# scaling_time_to_target.gp — time to the target perplexity against the node count:
# steps-to-target of the convergence study's best point per N x the composed step T(N),
# one line per exchange scheme (solid: this machine's core as the node; dashed: a node of
# stated speed), for the first per-node batch.  From scaling/study/compose_tables.c's CSV
# (`build/bin/study figure-vars RUN scaling_time_to_target` gives gflops, the stated
# node's GFLOP/s, and b1, the first per-node batch):
# gnuplot -e "csv='RUN/scaling_time_to_target.csv'; out='RUN/figures/scaling_time_to_target.png';
#             $(build/bin/study figure-vars RUN scaling_time_to_target)" plot/scaling_time_to_target.gp
if (!exists("gflops")) gflops = ''
if (!exists("b1")) b1 = 0
schemes = 'fused-library fused-mpich fused-best fused-rdb fused-hier per-tensor'
nsch = words(schemes)
color(i) = word("#1f77b4 #9467bd #ff7f0e #8c564b #d62728 #2ca02c", i)
# N(k, s): a row's node count where it is of node kind k, scheme s and per-node batch b1,
# else NaN (skipped); a line's points are joined in node order (smooth unique: one row
# per node count)
N(k, s) = strcol('node') eq k && strcol('scheme') eq s && column('b') == b1 ? column('nodes') : NaN
set terminal pngcairo size 1000,700 font 'sans,10'
set output out
set termoption noenhanced
set datafile separator ','
set datafile columnheaders
set datafile missing NaN
set title 'time to the target perplexity against the node count'
set logscale xy
set xlabel 'nodes'
set ylabel 'time to target (s)'
set grid
set key top right
plot for [i = 1:nsch] csv using (N('core', word(schemes, i))):'time_to_target_s' smooth unique with linespoints lw 2 pt 7 lc rgb color(i) title word(schemes, i) . ' (this core)', \
     for [i = 1:nsch] csv using (N('gflops', word(schemes, i))):'time_to_target_s' smooth unique with linespoints lw 1 dt 2 pt 6 lc rgb color(i) title word(schemes, i) . ' (' . gflops . ' GFLOP/s node)'
