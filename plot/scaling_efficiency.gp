# scaling_efficiency.gp — weak and strong scaling efficiency against the node count, one
# line per exchange scheme (solid: this machine's core as the node; dashed: a node of
# stated speed), from the composition study's CSVs (make scaling; scaling/study/compose_report.c;
# `build/bin/study figure-vars RUN scaling_efficiency` gives gflops, the stated node's
# GFLOP/s, and b1, the weak table's first per-node batch, the one drawn):
# gnuplot -e "weak='RUN/scaling_weak.csv'; strong='RUN/scaling_strong.csv';
#             out='RUN/figures/scaling_efficiency.png';
#             $(build/bin/study figure-vars RUN scaling_efficiency)" plot/scaling_efficiency.gp
if (!exists("gflops")) gflops = ''
if (!exists("b1")) b1 = 0
schemes = 'fused-library fused-mpich fused-best fused-rdb fused-hier per-tensor'
nsch = words(schemes)
color(i) = word("#1f77b4 #9467bd #ff7f0e #8c564b #d62728 #2ca02c", i)
# N(k, s, anyb): a row's node count where it is of node kind k and scheme s (and, unless
# anyb, of the per-node batch b1: weak scaling), else NaN (skipped)
N(k, s, anyb) = strcol('node') eq k && strcol('scheme') eq s && (anyb || column('b') == b1) ? column('nodes') : NaN
set terminal pngcairo size 1200,520 font 'sans,10'
set output out
set termoption noenhanced
set datafile separator ','
set datafile columnheaders
set datafile missing NaN
set multiplot layout 1,2
set logscale x
set xlabel 'nodes'
set ylabel 'efficiency (speedup / nodes)'
set yrange [0:1.05]
set grid
set key below
set title 'weak scaling (per-node batch fixed)'
plot for [i = 1:nsch] weak using (N('core', word(schemes, i), 0)):'efficiency' with linespoints lw 2 pt 7 lc rgb color(i) title word(schemes, i) . ' (this core)', \
     for [i = 1:nsch] weak using (N('gflops', word(schemes, i), 0)):'efficiency' with linespoints lw 1 dt 2 pt 6 lc rgb color(i) title word(schemes, i) . ' (' . gflops . ' GFLOP/s node)'
set title 'strong scaling (global batch fixed)'
plot for [i = 1:nsch] strong using (N('core', word(schemes, i), 1)):'efficiency' with linespoints lw 2 pt 7 lc rgb color(i) title word(schemes, i) . ' (this core)', \
     for [i = 1:nsch] strong using (N('gflops', word(schemes, i), 1)):'efficiency' with linespoints lw 1 dt 2 pt 6 lc rgb color(i) title word(schemes, i) . ' (' . gflops . ' GFLOP/s node)'
unset multiplot
