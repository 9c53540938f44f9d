# simulate_sizes.gp — allreduce under SimGrid SMPI at one node count (default 800):
# simulated time against message size (left) and bus bandwidth = algbw * 2(p-1)/p
# (right), one curve per algorithm (project solid, SMPI built-ins dashed), the lower
# bound thick black (its busbw is the best any algorithm can reach).  From the CSV of
# study simulate (make simulate: RUN/simulate.csv).
# gnuplot -e "csv='RUN/simulate.csv'; out='RUN/figures/simulate_sizes.png'" plot/simulate_sizes.gp
# optional: -e "p=512"
set datafile separator ','
set datafile columnheaders
set datafile missing NaN

algos = "ring segring recdbl rabenseifner binomial hier torus2d smpi:rdb smpi:rab1 smpi:rab_rdb smpi:lr smpi:smp_rsag smpi:ompi smpi:mpich smpi:mvapich2 smpi:mvapich2_two_level bound"
color(i) = word("#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #17becf #bcbd22 #7f7f7f #aec7e8 #ffbb78 #98df8a #ff9896 #c5b0d5 #c49c94 #000000", i)
dash(i) = (word(algos, i)[1:5] eq 'smpi:') ? 2 : 1
width(i) = word(algos, i) eq 'bound' ? 3.5 : 1.5

# the node count: 800 if simulated, else the largest below it, else the largest
if (!exists("p")) {
    best = 0
    stats csv using (q = column('p'), best = (q <= 800 && q > best) ? q : best, 0) nooutput
    p = best
    if (p == 0) { stats csv using (column('p')) nooutput; p = int(STATS_max) }
}
array nrow[words(algos)]
do for [i = 1:words(algos)] {
    a = word(algos, i)
    n = 0
    stats csv using (n = n + (strcol('algo') eq a && column('p') == p && strcol('p50_us') ne '' ? 1 : 0), 0) nooutput
    nrow[i] = n
}
# the indices of the algorithms present (plotting an absent one only draws a warning)
idx = ''
do for [i = 1:words(algos)] { if (nrow[i] > 0) { idx = idx . sprintf(' %d', i) } }
ai(j) = word(idx, j) + 0
stats csv using (plat = strcol('platform'), plat2 = strcol('placement'), 0) nooutput
# X(a, k, v, x): a row's column x where it is of algorithm a and its column k is v, else
# NaN (skipped); a curve's points are joined in x order (smooth unique: one row per
# algorithm, node count and size)
X(a, k, v, x) = strcol('algo') eq a && column(k) == v ? column(x) : NaN

set terminal pngcairo size 1400,560 font 'sans,10'
set output out
set termoption noenhanced  # algorithm names have underscores
set multiplot layout 1,2 title sprintf('allreduce simulated under SimGrid SMPI at %d nodes (%s, %s placement)', p, plat, plat2)
set logscale x 2
set format x '%.0b%B'
set xlabel 'message size (bytes)'
set grid
set key top left font 'sans,7' spacing 0.85 maxrows 9
set title 'simulated time (p50)'
set ylabel 'time (us, log scale)'
set logscale y
plot for [j = 1:words(idx)] csv using (X(word(algos, ai(j)), 'p', p, 'bytes')):'p50_us' smooth unique \
    with linespoints lw width(ai(j)) pt 7 ps 0.45 dt dash(ai(j)) lc rgb color(ai(j)) title word(algos, ai(j))
set title 'bus bandwidth = algbw * 2(p-1)/p (the bound: node injection, minus latency)'
set ylabel 'busbw (GB/s)'
unset logscale y
set key top left
plot for [j = 1:words(idx)] csv using (X(word(algos, ai(j)), 'p', p, 'bytes')):'busbw_gbytes_per_s' smooth unique \
    with linespoints lw width(ai(j)) pt 7 ps 0.45 dt dash(ai(j)) lc rgb color(ai(j)) title word(algos, ai(j))
unset multiplot
