# regime_scaling.gp — the regime study's steps to target S against the global batch B,
# one panel per target: each optimizer's mean count over its seeds, with the range the
# counts allow (steps_lo - steps_hi: from the evaluation before the earliest seed's
# crossing to the latest seed's count), a count not reached within its cap as a
# triangle at the cap (S > cap), the perfect-scaling line from B0 (S(B0) B0 / B,
# dashed) and the claim's point on it at B_big (circled).  From regime_scaling.csv
# (`study collect regime`); `build/bin/study figure-vars RUN regime_scaling` gives
# targets, opts, s0 (S(B0) per target and optimizer, targets outer), b0 and big:
# gnuplot -e "csv='RUN/regime_scaling.csv'; out='RUN/figures/regime_scaling.png';
#             $(build/bin/study figure-vars RUN regime_scaling)" plot/regime_scaling.gp
if (!exists("targets")) targets = ''
if (!exists("opts")) opts = ''
if (!exists("s0")) s0 = ''
color(i) = word("#1f77b4 #d62728 #2ca02c #9467bd #ff7f0e #8c564b", (i - 1) % 6 + 1)
at(t, o) = strcol('target') eq word(targets, t) && strcol('optimizer') eq word(opts, o)
B(t, o) = at(t, o) && column('seeds') > 0 ? column('global_batch') : NaN
C(t, o) = at(t, o) && column('seeds') == 0 ? column('global_batch') : NaN
S0(t, o) = word(s0, (t - 1) * words(opts) + o) + 0

set terminal pngcairo size 1200,900 font 'sans,9'
set output out
set termoption noenhanced
set datafile separator ','
set datafile columnheaders
set datafile missing NaN
set logscale xy
set grid
set key top right font 'sans,8'
set xlabel 'global batch B (sequences)'
set ylabel 'steps to target'
nt = words(targets)
set multiplot layout (nt > 2 ? 2 : 1), (nt > 1 ? 2 : 1) title sprintf('steps to target against B; dashed: perfect scaling from B = %g; circle: the %gx claim', b0, big / b0)
do for [t = 1:nt] {
    set title word(targets, t)
    plot for [o = 1:words(opts)] csv using (B(t, o)):'steps':'steps_lo':'steps_hi' with yerrorlines lw 1.5 pt 7 ps 0.6 lc rgb color(o) title word(opts, o), \
         for [o = 1:words(opts)] csv using (C(t, o)):'steps_lo' with points pt 9 ps 1.2 lc rgb color(o) notitle, \
         for [o = 1:words(opts)] [b0:big] S0(t, o) * b0 / x with lines dt 2 lc rgb color(o) notitle, \
         for [o = 1:words(opts)] '+' using (big):(S0(t, o) * b0 / big) every ::0::0 with points pt 6 ps 2 lc rgb color(o) notitle
}
unset multiplot
