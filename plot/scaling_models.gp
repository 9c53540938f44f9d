# scaling_models.gp — the model-size study at a fixed training-time budget: test
# perplexity (left) and sentence-completion accuracy (right) against the hidden size,
# one line for the class-based output layer and one for the full softmax, the
# Kneser-Ney trigram as a dashed level, completion with one standard error.  From a run folder (make scaling;
# build/bin/study collect models draws it):
# gnuplot -e "csv='RUN/scaling_models.csv'; out='RUN/figures/scaling_models.png'" plot/scaling_models.gp
sq = "'"
# pts(o, y): "hidden y" of the rows with output layer o, sorted by hidden
pts(o, y) = sprintf("< awk -F, -v o=%s %sNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"output\"] == o && $c[\"%s\"] != \"\" { print $c[\"hidden\"], $c[\"%s\"] }%s %s | sort -g", o, sq, y, y, sq, csv)
# acc(o): "hidden accuracy standard_error" of the rows with output layer o
acc(o) = sprintf("< awk -F, -v o=%s %sNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } $c[\"output\"] == o && $c[\"completion_accuracy\"] != \"\" { print $c[\"hidden\"], $c[\"completion_accuracy\"], $c[\"completion_se\"] }%s %s | sort -g", o, sq, sq, csv)
first(y) = system(sprintf("awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next } { print $c[\"%s\"]; exit }' %s", y, csv))
kn3_ppl = first("kn3_test_ppl") + 0
kn3_acc = first("kn3_completion_accuracy") * 100

set terminal pngcairo size 1200,500 font 'sans,10'
set output out
set termoption noenhanced
set datafile separator whitespace
set multiplot layout 1,2 title 'LSTM at an equal training-time budget: class layer against full softmax'
set logscale x 2
set offsets graph 0.05, graph 0.05, 0, 0
set xlabel 'hidden units'
set grid
set key top right
set ylabel 'test perplexity'
set logscale y
plot pts('class', 'test_ppl') using 1:2 with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'class layer', \
     pts('full', 'test_ppl') using 1:2 with linespoints lw 2 pt 5 lc rgb '#d62728' title 'full softmax', \
     kn3_ppl with lines dt 2 lc rgb '#555555' title 'Kneser-Ney trigram'
set ylabel 'sentence completion accuracy (%), +- one standard error'
unset logscale y
set key bottom right
plot acc('class') using 1:($2 * 100):($3 * 100) with yerrorlines lw 2 pt 7 lc rgb '#1f77b4' title 'class layer', \
     acc('full') using 1:($2 * 100):($3 * 100) with yerrorlines lw 2 pt 5 lc rgb '#d62728' title 'full softmax', \
     kn3_acc with lines dt 2 lc rgb '#555555' title 'Kneser-Ney trigram', \
     20 with lines dt 3 lc rgb '#999999' title 'chance'
unset multiplot
