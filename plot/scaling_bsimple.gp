# scaling_bsimple.gp — the gradient noise scale B_simple (McCandlish et al.) over training,
# as the trainer logs it (rnn-train's b_simple column), for the best point of each N,
# beside the fitted B_crit of the steps-to-target curve.  From a convergence study's run
# folder (its collect writes scaling_bsimple.csv: N, b, global_batch, step, tokens,
# b_simple; `build/bin/study figure-vars RUN scaling_bsimple` gives runs, "N:b" each,
# and fc, B_crit per fit):
# gnuplot -e "csv='RUN/scaling_bsimple.csv'; out='RUN/figures/scaling_bsimple.png';
#             $(build/bin/study figure-vars RUN scaling_bsimple)" plot/scaling_bsimple.gp
if (!exists("runs")) runs = ''
if (!exists("fc")) fc = ''
color(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #7f7f7f #bcbd22 #17becf", (i - 1) % 10 + 1)
# T(k): a row's tokens where it is of run k, else NaN (skipped)
T(k) = strcol('N') . ':' . strcol('b') eq word(runs, k) ? column('tokens') : NaN

set terminal pngcairo size 900,600 font 'sans,10'
set output out
set termoption noenhanced
set title 'gradient noise scale B_simple over training (best point of each N, workers:b)'
set logscale y
set xlabel 'training tokens'
set ylabel 'B_simple (sequences)'
set grid
set key outside right
set datafile separator ','
set datafile columnheaders
set datafile missing NaN
do for [i = 1:words(fc)] {
    set arrow from graph 0, first word(fc, i) + 0 to graph 1, first word(fc, i) + 0 nohead dt 2 lw 1.5 lc rgb '#000000'
    set label sprintf('B_crit %.3g (fit)', word(fc, i) + 0) at graph 0.02, first word(fc, i) + 0 offset 0, 0.6 font 'sans,8'
}
plot for [k = 1:words(runs)] csv using (T(k)):'b_simple' with lines lw 1.5 lc rgb color(k) title word(runs, k)
