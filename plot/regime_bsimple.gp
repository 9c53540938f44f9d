# regime_bsimple.gp — the gradient noise scale B_simple (McCandlish et al.) over training in
# the regime study, one panel per optimizer: each N's best run (rnn-train's b_simple
# column, logged with two or more worker groups), beside the batch where the measured
# steps' local exponent passes 1/2 at the optimizer's hardest target with one (dashed:
# B_crit read from the counts alone).  From regime_bsimple.csv (`study collect regime`);
# `build/bin/study figure-vars RUN regime_bsimple` gives runs ("N:optimizer"), opts and
# bends ("optimizer:B"):
# gnuplot -e "csv='RUN/regime_bsimple.csv'; out='RUN/figures/regime_bsimple.png';
#             $(build/bin/study figure-vars RUN regime_bsimple)" plot/regime_bsimple.gp
if (!exists("runs")) runs = ''
if (!exists("opts")) opts = ''
if (!exists("bends")) bends = ''
color(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #7f7f7f", (i - 1) % 8 + 1)
run(k) = word(runs, k)
T(k, o) = strcol('N') . ':' . strcol('optimizer') eq run(k) && strcol('optimizer') eq word(opts, o) ? column('tokens') : NaN
bend_of(o) = sum [i = 1:words(bends)] (strstrt(word(bends, i), word(opts, o) . ':') == 1 ? word(bends, i)[strlen(word(opts, o)) + 2:] + 0 : 0)

set terminal pngcairo size 1300,500 font 'sans,9'
set output out
set termoption noenhanced
set datafile separator ','
set datafile columnheaders
set datafile missing NaN
set logscale xy
set grid
set key top left font 'sans,8'
set xlabel 'training tokens'
set ylabel 'B_simple (sequences)'
no = words(opts)
set multiplot layout 1, (no > 0 ? no : 1) title "B_simple over training (each N's best run, N:optimizer); dashed: where the steps' local exponent passes 1/2"
do for [o = 1:no] {
    set title word(opts, o)
    unset arrow
    if (bend_of(o) > 0) { set arrow from graph 0, first bend_of(o) to graph 1, first bend_of(o) nohead dt 2 lw 1.5 lc rgb '#000000' }
    plot for [k = 1:words(runs)] csv using (T(k, o)):'b_simple' with lines lw 1.2 lc rgb color(k) title run(k)
}
unset multiplot
