# scaling_convergence.gp — steps to the target perplexity against the global batch B
# (log-log): the best point per (N, b), one colour per per-worker batch b, the perfect-
# scaling line through its N = 1 point (steps x b / B), the fit S_min + E_min / B and
# B_crit.  From a convergence study's run folder (make scaling; scaling/converge_report.sh
# gp gives the fit's values):
# gnuplot -e "csv='RUN/scaling_convergence.csv'; out='RUN/figures/scaling_convergence.png';
#             fb='4'; fs='97'; fe='1700'; fc='17.5'; p1='525'" plot/scaling_convergence.gp
set datafile separator ','
if (!exists("fb")) fb = ''
if (!exists("fs")) fs = ''
if (!exists("fe")) fe = ''
if (!exists("fc")) fc = ''
if (!exists("p1")) p1 = ''
bs = fb
if (bs eq '') bs = system(sprintf("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"best\"] == 1 && !s[$c[\"b\"]]++ { printf \"%%s \", $c[\"b\"] }' %s", csv))
color(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b", (i - 1) % 6 + 1)
sq = "'"
# best(b): "B steps" of the best points of per-worker batch b, sorted by B
best(b) = sprintf("< awk -F, -v b=%s %sNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"best\"] == 1 && $c[\"b\"] == b { print $c[\"global_batch\"], $c[\"steps_to_target\"] }%s %s | sort -g", b, sq, sq, csv)
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
set key top right
set samples 200
stats csv using (column('global_batch')) every ::1 nooutput
set xrange [STATS_min / 1.5 : STATS_max * 1.5]
plot for [i = 1:words(bs)] best(word(bs, i)) using 1:2 with points pt 7 ps 1.2 lc rgb color(i) \
        title sprintf('b = %s: best point per N', word(bs, i)), \
     for [i = 1:words(fs)] S(i, x) with lines lw 2 lc rgb color(i) \
        title sprintf('b = %s fit: %.3g + %.4g / B (B_crit %.3g)', word(fb, i), word(fs, i) + 0, word(fe, i) + 0, word(fc, i) + 0), \
     for [i = 1:words(fs)] perfect(i, x) with lines lw 1 dt 2 lc rgb color(i) \
        title sprintf('b = %s perfect scaling from N = 1', word(fb, i))
