# regime_scaling_cost.gp — the regime study's data cost E(B) / E(B0) = (B / B0) S(B) / S(B0)
# (top row; 1 is perfect scaling, B / B0 no gain at all) and the local scaling exponent
# -d ln S / d ln B from each B to the next (bottom row; 1 perfect, 0 none), per target
# and optimizer, each with the interval the counts allow alone.  From regime_scaling.csv;
# `build/bin/study figure-vars RUN regime_scaling_cost` gives targets, opts, b0 and big:
# gnuplot -e "csv='RUN/regime_scaling.csv'; out='RUN/figures/regime_scaling_cost.png';
#             $(build/bin/study figure-vars RUN regime_scaling_cost)" plot/regime_scaling_cost.gp
if (!exists("targets")) targets = ''
if (!exists("opts")) opts = ''
color(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b", (i - 1) % 6 + 1)
at(t, o) = strcol('target') eq word(targets, t) && strcol('optimizer') eq word(opts, o)
B(t, o) = at(t, o) ? column('global_batch') : NaN
# an open bound (empty cell) drawn at the panel's edge
or(c, e) = column(c) == column(c) ? column(c) : e

set terminal pngcairo size 1400,800 font 'sans,9'
set output out
set termoption noenhanced
set datafile separator ','
set datafile columnheaders
set datafile missing NaN
set grid
set key top left font 'sans,8'
set logscale x
set xrange [b0 / 1.3:big * 1.3]
nt = words(targets)
set multiplot layout 2, nt title 'data cost E(B) / E(B0) (top) and local exponent -d ln S / d ln B to the next B (bottom), with the intervals the counts allow'
do for [t = 1:nt] {
    set title word(targets, t)
    set logscale y
    set yrange [0.5:big / b0 * 2]
    set ylabel 'E(B) / E(B0)'
    plot for [o = 1:words(opts)] csv using (B(t, o)):'data_cost':(or('data_cost_lo', 1e-9)):(or('data_cost_hi', 1e9)) with yerrorlines lw 1.5 pt 7 ps 0.6 lc rgb color(o) title word(opts, o), \
         [b0:big] 1 with lines dt 2 lc rgb '#000000' notitle
}
do for [t = 1:nt] {
    set title word(targets, t)
    unset logscale y
    set yrange [-0.5:1.5]
    set ylabel 'exponent, from B to the next B'
    plot for [o = 1:words(opts)] csv using (B(t, o)):'exponent':(or('exponent_lo', -9)):(or('exponent_hi', 9)) with yerrorlines lw 1.5 pt 7 ps 0.6 lc rgb color(o) title word(opts, o), \
         [b0:big] 1 with lines dt 2 lc rgb '#000000' notitle, [b0:big] 0 with lines dt 3 lc rgb '#000000' notitle
}
unset multiplot
