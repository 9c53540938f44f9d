# scaling_convergence_lr.gp — the best learning rate against the global batch B (log-log),
# one line per (optimizer, per-worker batch b): the learning rate of the point with the
# fewest steps to the target for each N, beside the linear and square-root scaling rules
# through the first point of the base optimizer.  From a convergence study's run folder
# (`build/bin/study figure-vars RUN scaling_convergence_lr` gives series, "optimizer:b"
# each, first, "B lr" of the base optimizer's smallest B, and base):
# gnuplot -e "csv='RUN/scaling_convergence.csv'; out='RUN/figures/scaling_convergence_lr.png';
#             $(build/bin/study figure-vars RUN scaling_convergence_lr)" plot/scaling_convergence_lr.gp
if (!exists("base")) base = 'momentum'
if (!exists("series")) series = ''
if (!exists("first")) first = ''
color(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b", (i - 1) % 6 + 1)
# gb(k): a row's global batch where it is a best point of series k, else NaN (skipped)
gb(k) = strcol('best_of_optimizer') eq '1' && strcol('optimizer') . ':' . strcol('b') eq word(series, k) ? column('global_batch') : NaN
B0 = words(first) == 2 ? word(first, 1) + 0 : 1
lr0 = words(first) == 2 ? word(first, 2) + 0 : 1

set terminal pngcairo size 900,600 font 'sans,10'
set output out
set termoption noenhanced
set title 'best learning rate against the global batch (N workers x b streams)'
set logscale xy
set xlabel 'global batch B (sequences)'
set ylabel 'learning rate of the fewest steps to target'
set grid
set key top left
set datafile separator ','
set datafile columnheaders
set datafile missing NaN
plot for [k = 1:words(series)] csv using (gb(k)):'lr' smooth unique with linespoints pt 7 lc rgb color(k) title word(series, k), \
     lr0 * x / B0 with lines dt 2 lc rgb '#777777' title sprintf('linear from B = %g (%s)', B0, base), \
     lr0 * sqrt(x / B0) with lines dt 3 lc rgb '#777777' title sprintf('square root from B = %g', B0)
