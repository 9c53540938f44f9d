# exp.gp — speed against accuracy of the expf variants: TSC cycles per element
# (1 thread, L1-resident working set) against max ULP error, both log scale, one
# point per variant and ISA, and the FMA-port bound (dashed).  Lower left is better.
# gnuplot -e "csv='RUN/exp.csv'; out='RUN/figures/exp.png'" plot/exp.gp
set datafile separator ','
set datafile columnheaders
set terminal pngcairo size 960,640 font 'sans,10'
set output out
set title 'expf: speed against accuracy (1 thread, L1-resident)'
set xlabel 'max error (ULP, log scale)'
set ylabel 'TSC cycles per element (log scale)'
set logscale xy
set grid
set key bottom right
set format x '10^{%L}'
set format y '10^{%L}'
set offsets graph 0.05, graph 0.25, graph 0.1, graph 0.1
sel(y) = (strcol('cache') eq 'L1' && column('threads') == 1) ? y : NaN
isa_color(s) = s eq 'avx512' ? 0xd62728 : s eq 'avx2' ? 0x1f77b4 : 0x2ca02c
plot csv using (sel(column('max_ulp') < 0.01 ? 0.01 : column('max_ulp'))):(sel(column('cycles_per_elem'))):(isa_color(strcol('isa'))) \
         with points pt 7 ps 1.6 lc rgb variable notitle, \
     csv using (sel(column('max_ulp') < 0.01 ? 0.01 : column('max_ulp'))):(sel(column('cycles_per_elem'))):(strcol('variant').' '.strcol('isa')) \
         with labels offset char 1,0.6 left font 'sans,9' notitle, \
     csv using (sel(column('max_ulp') < 0.01 ? 0.01 : column('max_ulp'))):(sel(column('bound_cycles_per_elem'))) \
         smooth unique with lines dt 2 lw 1.5 lc 'gray40' title 'FMA-port bound (best ISA, measured peak)'
