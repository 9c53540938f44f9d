# allreduce.gp — allreduce latency (p50_us) and bus bandwidth (busbw_gbytes_per_s)
# against message size, one curve per algorithm; one row of two panels per rank count
# found in the CSV (the smallest and the largest p, e.g. np = 2 and 4).  Rows of one
# timing mode and element type are drawn (default: isolated, float).
# gnuplot -e "csv='RUN/allreduce.csv'; out='RUN/figures/allreduce.png'" plot/allreduce.gp
# optional: -e "mode='backtoback'; dtype='double'"
set datafile separator ','
set datafile columnheaders
if (!exists("mode")) mode = 'isolated'
if (!exists("dtype")) dtype = 'float'

# The algorithms in registry order (collectives/allreduce.c), then the forced Open MPI
# ones; names absent from the CSV draw nothing.
algos = "ring segring recdbl rabenseifner binomial hier torus2d library library:1 library:2 library:3 library:4 library:5 library:6"
color(i) = word("#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #000000 #7f7f7f #bcbd22 #17becf #aec7e8 #ffbb78 #98df8a", i)
dash(i) = i <= 8 ? 1 : 2
# rows per algorithm, so that algorithms the run did not measure stay out of the key
array nrow[words(algos)]
do for [i = 1:words(algos)] {
    a = word(algos, i)
    n = 0
    stats csv using (n = n + (strcol('algo') eq a ? 1 : 0), 0) nooutput
    nrow[i] = n
}
name(i) = nrow[i] > 0 ? word(algos, i) : ''

stats csv using (column('p')) nooutput
pmin = int(STATS_min)
pmax = int(STATS_max)
nrows = pmin == pmax ? 1 : 2

set terminal pngcairo size 1400,(nrows * 520) font 'sans,10'
set output out
set multiplot layout nrows,2 title sprintf('allreduce (%s, %s): median latency and bus bandwidth per algorithm', mode, dtype)
set logscale x 2
set format x '%.0b%B'
set xlabel 'message size (bytes)'
set grid
set key top left font 'sans,8' spacing 0.9

sel(p, a, y) = (column('p') == p && strcol('algo') eq a && strcol('mode') eq mode && strcol('dtype') eq dtype && column('bytes') > 0) ? y : NaN

do for [r = 1:nrows] {
    p = r == 1 ? pmin : pmax
    set title sprintf('p = %d: latency (p50 over iterations, slowest rank)', p)
    set ylabel 'time (us, log scale)'
    set logscale y
    plot for [i = 1:words(algos)] csv using (sel(p, word(algos, i), column('bytes'))):(sel(p, word(algos, i), column('p50_us'))) \
        with linespoints lw 1.5 pt 7 ps 0.5 dt dash(i) lc rgb color(i) title name(i)
    set title sprintf('p = %d: bus bandwidth = algbw * 2(p-1)/p', p)
    set ylabel 'busbw (GB/s)'
    unset logscale y
    plot for [i = 1:words(algos)] csv using (sel(p, word(algos, i), column('bytes'))):(sel(p, word(algos, i), column('busbw_gbytes_per_s'))) \
        with linespoints lw 1.5 pt 7 ps 0.5 dt dash(i) lc rgb color(i) title name(i)
}
unset multiplot
