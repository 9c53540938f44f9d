# train.gp — rnn-train's learning curve: validation perplexity (log scale) at each
# evaluation of the run's log (columns step,tokens,seconds,train_loss,valid_ppl,lr),
# against training steps (left) and training seconds (right, evaluations excluded),
# with exp(train loss) beside it; the dashed line is the Kneser-Ney trigram baseline's
# valid perplexity on the same split when the run folder has train_kn3.csv.
# gnuplot -e "csv='RUN/train.csv'; out='RUN/figures/train.png'" plot/train.gp
set datafile separator ','
set datafile columnheaders
set terminal pngcairo size 1400,560 font 'sans,10'
set output out

# The baseline, from the same folder (train_kn3.csv, written by `rnn-train --model kn3`).
dir = csv[1:strlen(csv) - strlen('train.csv')]
kn3csv = dir . 'train_kn3.csv'
kn3 = NaN
if (system('test -f ' . kn3csv . ' && echo 1 || echo 0') + 0 == 1) {
    stats kn3csv using (column('valid_ppl')) nooutput
    kn3 = STATS_max
}

set logscale y
set grid
set key top right
set ylabel 'perplexity (log scale)'
set multiplot layout 1,2 title 'rnn-train: learning curve (word-level, valid split)'
set xlabel 'training step'
plot csv using 'step':'valid_ppl' with linespoints pt 7 ps 0.8 lw 2 lc rgb 0x1f77b4 title 'valid ppl', \
     csv using 'step':(exp(column('train_loss'))) with linespoints pt 6 ps 0.8 lw 1 lc rgb 0xff7f0e title 'exp(train loss) since the last evaluation', \
     (kn3 == kn3 ? kn3 : 1/0) with lines dt 2 lw 1.5 lc 'gray40' title sprintf('Kneser-Ney trigram (valid) %.1f', kn3)
set xlabel 'training seconds (evaluations excluded)'
plot csv using 'seconds':'valid_ppl' with linespoints pt 7 ps 0.8 lw 2 lc rgb 0x1f77b4 title 'valid ppl', \
     (kn3 == kn3 ? kn3 : 1/0) with lines dt 2 lw 1.5 lc 'gray40' title 'Kneser-Ney trigram (valid)'
unset multiplot
