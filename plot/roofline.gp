# roofline.gp — this machine's roofline (1 thread) with every kernel of the run placed by
# arithmetic intensity and measured rate.  Roofs from machine.json: the FMA peak of each
# ISA (horizontal) and the STREAM triad bandwidth (slope); points from roofline.csv
# (written by plot/roofline.sh, which states each kernel's flops and bytes).
# gnuplot -e "csv='RUN/roofline.csv'; out='RUN/figures/roofline.png'; \
#             peak_best=..; peak_scalar=..; bw=..; isa='avx2'" plot/roofline.gp
set datafile separator ','
set datafile columnheaders
set terminal pngcairo size 1000,680 font 'sans,10'
set output out
set title sprintf('Roofline, 1 thread: %s FMA peak %.0f GFLOP/s, STREAM triad %.1f GB/s', isa, peak_best, bw)
set xlabel 'arithmetic intensity (flop/byte, log scale)'
set ylabel 'GFLOP/s (log scale)'
set logscale xy
set xrange [0.05:2000]
set yrange [0.1:peak_best * 3]
set format x '10^{%L}'
set format y '10^{%L}'
set grid
set key top left
set samples 400
roof(x, p) = (x * bw < p) ? x * bw : p
study_color(s) = s eq 'exp' ? 0xd62728 : s eq 'softmax' ? 0x1f77b4 : 0x2ca02c
plot roof(x, peak_best) with lines lw 2 lc 'black' title sprintf('%s FMA roof', isa), \
     roof(x, peak_scalar) with lines lw 1 dt 2 lc 'gray40' title 'scalar (portable) roof', \
     csv using (column('intensity_flops_per_byte')):(column('gflops')):(study_color(strcol('study'))) \
         with points pt 7 ps 1.2 lc rgb variable title 'kernels (red exp, blue softmax, green gemm)', \
     csv using (column('intensity_flops_per_byte')):(column('gflops')):(strcol('study') eq 'gemm' ? '' : strcol('kernel')) \
         with labels left offset char 0.8,0.4 font 'sans,7' notitle
