# scaling_models.gp — the model-size study at an equal budget (tokens or time): test
# perplexity (left) and sentence-completion accuracy (right) against the hidden size,
# one line for the class-based output layer and one for the full softmax, the
# Kneser-Ney trigram as a dashed level, completion with one standard error.  From a run folder (make scaling;
# build/bin/study collect models draws it; `build/bin/study figure-vars RUN scaling_models`
# gives the first row's kn3_test_ppl and kn3_completion_accuracy, and acc_class and
# acc_full, "hidden accuracy standard_error" of each output layer's rows, sorted by hidden):
# gnuplot -e "csv='RUN/scaling_models.csv'; out='RUN/figures/scaling_models.png';
#             $(build/bin/study figure-vars RUN scaling_models)" plot/scaling_models.gp
if (!exists("kn3_test_ppl")) kn3_test_ppl = NaN
if (!exists("kn3_completion_accuracy")) kn3_completion_accuracy = NaN
if (!exists("acc_class")) acc_class = ''
if (!exists("acc_full")) acc_full = ''
kn3_ppl = kn3_test_ppl
kn3_acc = kn3_completion_accuracy * 100
# H(o): a row's hidden size where its output layer is o, else NaN (skipped); a line's
# points are joined in hidden order (smooth unique: one row per hidden size)
H(o) = strcol('output') eq o ? column('hidden') : NaN
# the accuracy series as data blocks, three words a row
set print $class
do for [i = 1:words(acc_class):3] { print word(acc_class, i) . ' ' . word(acc_class, i + 1) . ' ' . word(acc_class, i + 2) }
set print $full
do for [i = 1:words(acc_full):3] { print word(acc_full, i) . ' ' . word(acc_full, i + 1) . ' ' . word(acc_full, i + 2) }
unset print

set terminal pngcairo size 1200,500 font 'sans,10'
set output out
set termoption noenhanced
set datafile separator ','
set datafile columnheaders
set datafile missing NaN
set multiplot layout 1,2 title 'class layer against full softmax at an equal budget (test ppl: the mean over cells and seeds per hidden size)'
set logscale x 2
set offsets graph 0.05, graph 0.05, 0, 0
set xlabel 'hidden units'
set grid
set key top right
set ylabel 'test perplexity'
set logscale y
plot csv using (H('class')):'test_ppl' smooth unique with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'class layer', \
     csv using (H('full')):'test_ppl' smooth unique with linespoints lw 2 pt 5 lc rgb '#d62728' title 'full softmax', \
     kn3_ppl with lines dt 2 lc rgb '#555555' title 'Kneser-Ney trigram'
set ylabel 'sentence completion accuracy (%), +- one standard error'
unset logscale y
set key bottom right
set datafile separator whitespace
set datafile nocolumnheaders
plot $class using 1:($2 * 100):($3 * 100) with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' title 'class layer', \
     $full using 1:($2 * 100):($3 * 100) with yerrorlines lw 2 pt 5 lc rgb '#d62728' title 'full softmax', \
     kn3_acc with lines dt 2 lc rgb '#555555' title 'Kneser-Ney trigram', \
     20 with lines dt 3 lc rgb '#999999' title 'chance'
unset multiplot
