# scaling_convergence.gp — steps to the target perplexity against the global batch B
# (log-log): the best point per (N, b) of the base optimizer (base, default momentum) and
# of each other one tried, one colour per per-worker batch b, the perfect-
# scaling line through its N = 1 point (steps x b / B), the fit S_min + E_min / B and
# B_crit with the regimes around it.  From a convergence study's run folder (make
# scaling; `scaling/converge_report.sh gp RUN` gives the fit's values):
# gnuplot -e "csv='RUN/scaling_convergence.csv'; out='RUN/figures/scaling_convergence.png';
#             fb='4'; fs='97'; fe='1700'; fc='17.5'; p1='525'" plot/scaling_convergence.gp
if (!exists("fb")) fb = ''
if (!exists("fs")) fs = ''
if (!exists("fe")) fe = ''
if (!exists("fc")) fc = ''
if (!exists("p1")) p1 = ''
bs = fb
if (bs eq '') bs = system(sprintf("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"best_of_optimizer\"] == 1 && !s[$c[\"b\"]]++ { printf \"%%s \", $c[\"b\"] }' %s", csv))
color(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b", (i - 1) % 6 + 1)
sq = "'"
if (!exists("base")) base = 'momentum'
# pts(b, o): "B steps" of per-worker batch b's best points of optimizer o, sorted by B
pts(b, o) = sprintf("< awk -F, -v b=%s -v o=%s %sNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"best_of_optimizer\"] == 1 && $c[\"b\"] == b && $c[\"optimizer\"] == o { print $c[\"global_batch\"], $c[\"steps_to_target\"] }%s %s | sort -g", b, o, sq, sq, csv)
others = system(sprintf("awk -F, -v o=%s 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"optimizer\"] != o && $c[\"steps_to_target\"] != \"\" && !s[$c[\"optimizer\"]]++ { printf \"%%s \", $c[\"optimizer\"] }' %s", base, csv))
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
xr = system(sprintf("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"best\"] == 1 { B = $c[\"global_batch\"] + 0; if (!lo || B < lo) lo = B; if (B > hi) hi = B } END { print lo / 1.5, (hi > lo ? hi : 2 * lo) * 1.5 }' %s", csv))
set xrange [word(xr, 1) + 0 : word(xr, 2) + 0]
set datafile separator whitespace
# the regimes of each fit: perfect scaling below B_crit / 10, maximal data parallelism
# above 10 B_crit (scaling/conv_fit.h)
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
other_marks = words(others) == 0 ? '' : "for [i = 1:words(bs)] for [j = 1:words(others)] pts(word(bs, i), word(others, j)) using 1:2 with points pt (j + 3) ps 1.4 lc rgb color(i) title sprintf('b = %s: %s', word(bs, i), word(others, j)),"
plot for [i = 1:words(bs)] pts(word(bs, i), base) using 1:2 with points pt 7 ps 1.2 lc rgb color(i) \
        title sprintf('b = %s: best %s point per N', word(bs, i), base), \
     @other_marks \
     for [i = 1:words(fs)] S(i, x) with lines lw 2 lc rgb color(i) \
        title sprintf('b = %s fit: %.3g + %.4g / B (B_crit %.3g)', word(fb, i), word(fs, i) + 0, word(fe, i) + 0, word(fc, i) + 0), \
     for [i = 1:words(fs)] perfect(i, x) with lines lw 1 dt 2 lc rgb color(i) \
        title sprintf('b = %s perfect scaling from N = 1', word(fb, i))
