# gemm.gp — sgemm speed as a fraction of the measured FMA peak, per shape (x) and
# backend (one line each), on 1 thread (top) and on the most threads run (bottom).
# Model GEMMs are labelled by name, the others M x N x K and the transposes.
# gnuplot -e "csv='RUN/gemm.csv'; out='RUN/figures/gemm.png'" plot/gemm.gp
set datafile separator ','
set datafile columnheaders
set terminal pngcairo size 1400,1000 font 'sans,10' noenhanced
set output out

# A shape's label: the model GEMM's name, else MxNxK:TR as --shape takes it.
label(dummy) = strlen(strcol('shape')) > 0 ? strcol('shape') : \
    sprintf('%dx%dx%d:%s', column('m'), column('n'), column('k'), strcol('trans'))
# The long CSV has one row per (backend, shape, threads): collect the distinct shapes
# (x positions, in the order the run made them) and backends in a first pass.  naive is
# skipped in that pass (it has only the small shapes and would put them first).
shapes = ' '
backends = ' '
add(list, s) = strstrt(list, ' '.s.' ') > 0 ? list : list.s.' '
stats csv using (strcol('backend') ne 'naive' ? shapes = add(shapes, label(0)) : 0, \
                 backends = add(backends, strcol('backend')), column('threads')) nooutput
tmax = STATS_max
stats csv using (shapes = add(shapes, label(0)), 0) nooutput
nshapes = words(shapes)
xpos(dummy) = (l = label(0), words(shapes[1:strstrt(shapes, ' '.l.' ') + strlen(l)]))

set xtics rotate by 60 right font 'sans,8' scale 0
set for [i=1:nshapes] xtics add (word(shapes, i) i)
set xrange [0.5:nshapes + 0.5]
set yrange [0:1.1]
set ytics 0.1
set grid ytics
set ylabel 'fraction of FMA peak'
set key outside right top
set bmargin 9
sel(b, t) = (strcol('backend') eq b && column('threads') == t) ? column('frac_of_peak') : NaN

set multiplot layout 2,1 title 'sgemm: fraction of the measured FMA peak per shape and backend (DeepBench RNN, 2048^3, inference, LSTM model GEMMs)'
set title '1 thread'
plot for [b in backends] csv using (xpos(0)):(sel(b, 1)) with linespoints pt 7 ps 1 title b, \
     1 with lines lc rgb 'gray' dt 2 notitle
set title sprintf('%d threads', tmax)
plot for [b in backends] csv using (xpos(0)):(sel(b, tmax)) with linespoints pt 7 ps 1 title b, \
     1 with lines lc rgb 'gray' dt 2 notitle
unset multiplot
