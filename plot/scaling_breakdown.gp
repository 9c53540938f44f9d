# scaling_breakdown.gp — the composed training step broken down against the node count
# (weak scaling, the first per-node batch): compute, optimizer, evaluation (exposed, per
# step) and each exchange scheme's exposed exchange; left this machine's core as the
# node, right a node of stated speed.  From scaling/study/compose_tables.c (make scaling;
# `build/bin/study figure-vars RUN scaling_breakdown` gives gflops, the stated node's
# GFLOP/s, and b1, the first per-node batch):
# gnuplot -e "csv='RUN/scaling_weak.csv'; out='RUN/figures/scaling_breakdown.png';
#             $(build/bin/study figure-vars RUN scaling_breakdown)" plot/scaling_breakdown.gp
if (!exists("gflops")) gflops = ''
if (!exists("b1")) b1 = 0
schemes = 'fused-library fused-mpich fused-best fused-rdb fused-hier per-tensor'
nsch = words(schemes)
color(i) = word("#1f77b4 #9467bd #ff7f0e #8c564b #d62728 #2ca02c", i)
# N(k, s, y): a row's node count where it is of node kind k, scheme s and per-node batch
# b1 and its column y is above 0, else NaN (skipped)
N(k, s, y) = strcol('node') eq k && strcol('scheme') eq s && column('b') == b1 && column(y) > 0 ? column('nodes') : NaN
set terminal pngcairo size 1200,520 font 'sans,10'
set output out
set termoption noenhanced
set datafile separator ','
set datafile columnheaders
set datafile missing NaN
set multiplot layout 1,2
set logscale xy
set xlabel 'nodes'
set ylabel 'ms per step'
set grid
set key below
do for [k in 'core gflops'] {
    set title (k eq 'core' ? 'this machine''s core as the node' : 'a node of ' . gflops . ' GFLOP/s') . ': the step''s parts (weak scaling)'
    plot csv using (N(k, 'fused-library', 'compute_ms')):'compute_ms' with linespoints lw 2 pt 5 lc rgb 'black' title 'compute', \
         csv using (N(k, 'fused-library', 'optimizer_ms')):'optimizer_ms' with linespoints lw 1 pt 4 lc rgb 'gray40' title 'optimizer', \
         csv using (N(k, 'fused-library', 'eval_ms')):'eval_ms' with linespoints lw 1 pt 8 lc rgb '#9467bd' title 'evaluation (exposed)', \
         for [i = 1:nsch] csv using (N(k, word(schemes, i), 'exchange_ms')):'exchange_ms' with linespoints lw 2 pt 7 lc rgb color(i) title 'exchange: ' . word(schemes, i), \
         for [i = 1:nsch] csv using (N(k, word(schemes, i), 'step_ms')):'step_ms' with lines lw 1 dt 2 lc rgb color(i) title 'step: ' . word(schemes, i)
}
unset multiplot
