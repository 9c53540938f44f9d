# scaling_convergence.gp — steps to the target perplexity against the global batch B
# (log-log): the best point per (N, b) of the base optimizer (base, default momentum) and
# of each other one tried, one colour per per-worker batch b, the perfect-
# scaling line through its N = 1 point (steps x b / B), the fit S_min + E_min / B and
# B_crit with the regimes around it.  From a convergence study's run folder (make
# scaling; `build/bin/study figure-vars RUN scaling_convergence` gives the values
# computed from the run: the fit's fb, fs, fe, fc, p1, and bl, base, others, xr):
# gnuplot -e "csv='RUN/scaling_convergence.csv'; out='RUN/figures/scaling_convergence.png';
#             $(build/bin/study figure-vars RUN scaling_convergence)" plot/scaling_convergence.gp
if (!exists("fb")) fb = ''
if (!exists("fs")) fs = ''
if (!exists("fe")) fe = ''
if (!exists("fc")) fc = ''
if (!exists("p1")) p1 = ''
if (!exists("bl")) bl = ''
if (!exists("others")) others = ''
if (!exists("xr")) xr = '1 1000'
bs = fb
if (bs eq '') bs = bl
color(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b", (i - 1) % 6 + 1)
if (!exists("base")) base = 'momentum'
# gb(b, o): a row's global batch where it is per-worker batch b's best point of optimizer
# o, else NaN (a missing point: the row is skipped)
gb(b, o) = strcol('best_of_optimizer') eq '1' && strcol('b') eq b && strcol('optimizer') eq o ? column('global_batch') : NaN
fitted(i) = i <= words(fs)
S(i, B) = word(fs, i) + word(fe, i) / B
perfect(i, B) = (word(p1, i) + 0) * (word(fb, i) + 0) / B

set terminal pngcairo size 1000,700 font 'sans,10'
set output out
set termoption noenhanced
set title 'steps to the target perplexity against the global batch (N workers x b streams)'
set logscale xy
set xlabel 'global batch B (sequences)'
set ylabel 'steps to target'
set grid
set key bottom left
set samples 200
set xrange [word(xr, 1) + 0 : word(xr, 2) + 0]
set datafile separator ','
set datafile columnheaders
set datafile missing NaN
# the regimes of each fit: perfect scaling below B_crit / 10, maximal data parallelism
# above 10 B_crit (scaling/study/fit/conv_fit.h)
do for [i = 1:words(fc)] {
    c = word(fc, i) + 0
    set arrow from c, graph 0 to c, graph 1 nohead dt 2 lw 1.5 lc rgb color(i)
    set label sprintf('B_crit (b = %s)', word(fb, i)) at c, graph 0.04 offset 0.5, 0 font 'sans,8' tc rgb color(i)
    set arrow from c / 10, graph 0 to c / 10, graph 1 nohead dt 3 lc rgb color(i)
    set label 'perfect scaling <' at c / 10, graph 0.96 right offset -0.5, 0 font 'sans,8' tc rgb color(i)
    set arrow from c * 10, graph 0 to c * 10, graph 1 nohead dt 3 lc rgb color(i)
    set label '> maximal data parallelism' at c * 10, graph 0.96 offset 0.5, 0 font 'sans,8' tc rgb color(i)
}
# the other optimizers' marks, only when there are some (an empty nested loop warns)
other_marks = words(others) == 0 ? '' : "for [i = 1:words(bs)] for [j = 1:words(others)] csv using (gb(word(bs, i), word(others, j))):'steps_to_target' with points pt (j + 3) ps 1.4 lc rgb color(i) title sprintf('b = %s: %s', word(bs, i), word(others, j)),"
plot for [i = 1:words(bs)] csv using (gb(word(bs, i), base)):'steps_to_target' with points pt 7 ps 1.2 lc rgb color(i) \
        title sprintf('b = %s: best %s point per N', word(bs, i), base), \
     @other_marks \
     for [i = 1:words(fs)] S(i, x) with lines lw 2 lc rgb color(i) \
        title sprintf('b = %s fit: %.3g + %.4g / B (B_crit %.3g)', word(fb, i), word(fs, i) + 0, word(fe, i) + 0, word(fc, i) + 0), \
     for [i = 1:words(fs)] perfect(i, x) with lines lw 1 dt 2 lc rgb color(i) \
        title sprintf('b = %s perfect scaling from N = 1', word(fb, i))
