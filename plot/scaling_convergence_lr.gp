# scaling_convergence_lr.gp — the best learning rate against the global batch B (log-log),
# one line per (optimizer, per-worker batch b): the learning rate of the point with the
# fewest steps to the target for each N, beside the linear and square-root scaling rules
# through the first point of the base optimizer.  From a convergence study's run folder:
# gnuplot -e "csv='RUN/scaling_convergence.csv'; out='RUN/figures/scaling_convergence_lr.png'" plot/scaling_convergence_lr.gp
if (!exists("base")) base = 'momentum'
color(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b", (i - 1) % 6 + 1)
sq = "'"
csvcol = sprintf("awk -F, %sNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } ", sq)
series = system(csvcol . sprintf("$c[\"best_of_optimizer\"] == 1 && !s[$c[\"optimizer\"] \":\" $c[\"b\"]]++ { printf \"%%s:%%s \", $c[\"optimizer\"], $c[\"b\"] }%s %s", sq, csv))
# "B lr" of series k's best points, sorted by B
pts(k) = "< " . csvcol . sprintf("$c[\"best_of_optimizer\"] == 1 && $c[\"optimizer\"] \":\" $c[\"b\"] == \"%s\" { print $c[\"global_batch\"], $c[\"lr\"] }%s %s | sort -g", word(series, k), sq, csv)
first = system(csvcol . sprintf("$c[\"best_of_optimizer\"] == 1 && $c[\"optimizer\"] == \"%s\" { if (!n++ || $c[\"global_batch\"] + 0 < B) { B = $c[\"global_batch\"] + 0; lr = $c[\"lr\"] } } END { if (n) print B, lr }%s %s", base, sq, csv))
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
set datafile separator whitespace
plot for [k = 1:words(series)] pts(k) using 1:2 with linespoints pt 7 lc rgb color(k) title word(series, k), \
     lr0 * x / B0 with lines dt 2 lc rgb '#777777' title sprintf('linear from B = %g (%s)', B0, base), \
     lr0 * sqrt(x / B0) with lines dt 3 lc rgb '#777777' title sprintf('square root from B = %g', B0)
