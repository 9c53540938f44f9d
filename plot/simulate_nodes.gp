# simulate_nodes.gp — allreduce under SimGrid SMPI: simulated time (p50_us) against the
# node count, one panel per message size, one curve per algorithm (project algorithms
# solid, SMPI built-ins dashed), and the lower bound (thick black).  From the CSV of
# study simulate (make simulate: RUN/simulate.csv).
# gnuplot -e "csv='RUN/simulate.csv'; out='RUN/figures/simulate_nodes.png';
#             $(build/bin/study figure-vars RUN simulate_nodes)" plot/simulate_nodes.gp
# figure-vars gives sizes, the panels (bytes, one panel each): of 4 B, 64 KiB, 4 MiB and
# 64 MiB, those the run has, 1 MiB in place of one it lacks; or -e "sizes='4 65536'"
if (!exists("sizes")) sizes = '4 65536 4194304 67108864'
set datafile separator ','
set datafile columnheaders
set datafile missing NaN

algos = "ring segring recdbl rabenseifner binomial hier torus2d smpi:rdb smpi:rab1 smpi:rab_rdb smpi:lr smpi:smp_rsag smpi:ompi smpi:mpich smpi:mvapich2 smpi:mvapich2_two_level bound"
color(i) = word("#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b #e377c2 #17becf #bcbd22 #7f7f7f #aec7e8 #ffbb78 #98df8a #ff9896 #c5b0d5 #c49c94 #000000", i)
dash(i) = (word(algos, i)[1:5] eq 'smpi:') ? 2 : 1
width(i) = word(algos, i) eq 'bound' ? 3.5 : 1.5
# rows per algorithm, so that algorithms the run did not simulate stay out of the key
array nrow[words(algos)]
do for [i = 1:words(algos)] {
    a = word(algos, i)
    n = 0
    stats csv using (n = n + (strcol('algo') eq a && strcol('p50_us') ne '' ? 1 : 0), 0) nooutput
    nrow[i] = n
}
# the indices of the algorithms present (plotting an absent one only draws a warning)
idx = ''
do for [i = 1:words(algos)] { if (nrow[i] > 0) { idx = idx . sprintf(' %d', i) } }
ai(j) = word(idx, j) + 0
stats csv using (strcol('platform') eq '' ? 0 : 1) nooutput
plat = ''
stats csv using (plat = strcol('platform'), plat2 = strcol('placement'), 0) nooutput

# X(a, k, v, x): a row's column x where it is of algorithm a and its column k is v, else
# NaN (skipped); a curve's points are joined in x order (smooth unique: one row per
# algorithm, node count and size)
X(a, k, v, x) = strcol('algo') eq a && column(k) == v ? column(x) : NaN
human(b) = b >= 1048576 ? sprintf('%g MiB', b / 1048576.0) : b >= 1024 ? sprintf('%g KiB', b / 1024.0) : sprintf('%g B', b)

n = words(sizes)
cols = n > 1 ? 2 : 1
rows = (n + 1) / 2
set terminal pngcairo size 1400,(rows * 560) font 'sans,10'
set output out
set termoption noenhanced  # algorithm names have underscores
set multiplot layout rows,cols title sprintf('allreduce simulated under SimGrid SMPI (%s, %s placement): time against node count', plat, plat2)
set logscale x 2
set logscale y
set xlabel 'nodes (one rank per node)'
set ylabel 'simulated time (us, log scale)'
set grid
set key top left font 'sans,7' spacing 0.85 maxrows 9
do for [k = 1:n] {
    s = word(sizes, k) + 0
    set title sprintf('%s', human(s))
    plot for [j = 1:words(idx)] csv using (X(word(algos, ai(j)), 'bytes', s, 'p')):'p50_us' smooth unique \
        with linespoints lw width(ai(j)) pt 7 ps 0.45 dt dash(ai(j)) lc rgb color(ai(j)) title word(algos, ai(j))
}
unset multiplot
