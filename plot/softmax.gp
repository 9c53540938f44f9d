# softmax.gp — speedup of each softmax variant (and the fused cross-entropy) over the
# naive libm softmax, per shape (rows x cols, in the order measured; the last shape is
# the rows larger than the LLC), one panel for 1 thread and one for the most threads.
# Log scale; the dashed line is the Sunway TaihuLight study's 12.63x (exp + softmax on Sunway).
# gnuplot -e "csv='RUN/softmax.csv'; out='RUN/figures/softmax.png'" plot/softmax.gp
set datafile separator ','
set datafile columnheaders
set terminal pngcairo size 1400,620 font 'sans,10'
set output out

# The series that may appear, in the registry's order, with a colour each.
array V[9] = ['naive', 'safe', 'online', 'fast', 'fast', 'fast', 'xent', 'xent', 'xent']
array I[9] = ['portable', 'portable', 'portable', 'avx512', 'avx2', 'portable', 'avx512', 'avx2', 'portable']
array C[9] = [0x7f7f7f, 0x8c564b, 0xe377c2, 0xd62728, 0x1f77b4, 0x2ca02c, 0xff9896, 0xaec7e8, 0x98df8a]
array P[9] = [7, 5, 9, 7, 7, 7, 11, 11, 11]

# Only the series present in this CSV (an empty one would print a warning).
present = ''
do for [j = 1:9] {
    stats csv using ((strcol('variant') eq V[j] && strcol('isa') eq I[j]) ? 1 : 0) nooutput
    if (STATS_sum > 0) { present = present . sprintf(' %d', j) }
}
# Rows per shape (= variants measured): the rows of the first shape.
stats csv using (column('threads')) nooutput
tmax = STATS_max
stats csv every ::0::0 using (column('rows')) nooutput
r0 = STATS_min
stats csv every ::0::0 using (column('cols')) nooutput
c0 = STATS_min
stats csv using ((column('rows') == r0 && column('cols') == c0 && column('threads') == 1) ? 1 : 0) nooutput
nsel = STATS_sum

set logscale y
set grid ytics
set ylabel 'speedup over naive (log scale)'
set xtics rotate by -40 font 'sans,8' nomirror
set key outside right top font 'sans,9'
set offsets 0.5, 0.5, 0, 0
set xrange [*:*]

# x: the shape's index within its thread count's rows (under `every`, $0 counts the
# selected records from 0).
set multiplot layout 1, (tmax > 1 ? 2 : 1) title 'softmax: speedup over the naive libm softmax, per shape (rows x cols)'
do for [T in sprintf('1 %d', tmax)] {
    T = T + 0
    if (T == 1 || tmax > 1) {
        # this thread count's rows: records first..last; a shape every nsel records
        stats csv using ((column('threads') == T) ? $0 : NaN) nooutput
        first = int(STATS_min); last = int(STATS_max)
        set title sprintf('%d thread%s', T, T > 1 ? 's' : '')
        if (T > 1) { unset key }   # one key, in the first panel
        set arrow 1 from graph 0, first 12.63 to graph 1, first 12.63 nohead dt 2 lc rgb '#555555'
        plot csv every int(nsel)::first::last using ($0):(1):xtic(strcol('rows') . 'x' . strcol('cols')) \
                 with dots lc rgb '#ffffff' notitle, \
             for [s in present] csv every ::first::last \
                 using (floor($0 / nsel)) \
                     :((strcol('variant') eq V[s + 0] && strcol('isa') eq I[s + 0]) ? column('speedup_vs_naive') : NaN) \
                 with points pt P[s + 0] ps 1.4 lc rgb C[s + 0] \
                 title V[s + 0] . ' ' . I[s + 0]
    }
    if (tmax == 1) { break }
}
unset multiplot
