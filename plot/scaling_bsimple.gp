# scaling_bsimple.gp — the gradient noise scale B_simple (McCandlish et al.) over training,
# as the trainer logs it (rnn-train's b_simple column), for the best point of each N,
# beside the fitted B_crit of the steps-to-target curve (scaling_fit.txt, when the run
# has it).  From a convergence study's run folder (scaling/converge_collect.sh writes
# scaling_bsimple.csv: N, b, global_batch, step, tokens, b_simple):
# gnuplot -e "csv='RUN/scaling_bsimple.csv'; out='RUN/figures/scaling_bsimple.png'" plot/scaling_bsimple.gp
color(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b #e377c2 #7f7f7f #bcbd22 #17becf", (i - 1) % 10 + 1)
sq = "'"
runs = system(sprintf("awk -F, %sNR > 1 && !s[$1 \":\" $2]++ { printf \"%%s:%%s \", $1, $2 }%s %s", sq, sq, csv))
# "tokens b_simple" of run k (N:b)
pts(k) = sprintf("< awk -F, -v k=%s %sNR > 1 && $1 \":\" $2 == k && $6 != \"\" { print $5, $6 }%s %s", word(runs, k), sq, sq, csv)
fit = system(sprintf("f=$(dirname %s)/scaling_fit.txt; [ -f \"$f\" ] && awk 'NR > 1 && $3 != \"no\" { printf \"%%s \", $5 }' \"$f\"", csv))

set terminal pngcairo size 900,600 font 'sans,10'
set output out
set termoption noenhanced
set title 'gradient noise scale B_simple over training (best point of each N, workers:b)'
set logscale y
set xlabel 'training tokens'
set ylabel 'B_simple (sequences)'
set grid
set key outside right
set datafile separator whitespace
do for [i = 1:words(fit)] {
    set arrow from graph 0, first word(fit, i) + 0 to graph 1, first word(fit, i) + 0 nohead dt 2 lw 1.5 lc rgb '#000000'
    set label sprintf('B_crit %.3g (fit)', word(fit, i) + 0) at graph 0.02, first word(fit, i) + 0 offset 0, 0.6 font 'sans,8'
}
plot for [k = 1:words(runs)] pts(k) using 1:2 with lines lw 1.5 lc rgb color(k) title word(runs, k)
