#!/bin/sh
# figures.sh RUN — redraw every figure of a run folder from its CSVs: each plot/NAME.gp
# whose CSV exists in RUN draws RUN/figures/NAME.png: NAME.csv, or else the longest
# prefix of NAME up to a '_' that names one (exp.csv for exp_speed.gp).  RUN defaults to the newest results/runs/*,
# then results/reference/.
set -u
cd "$(dirname "$0")/.."
run=${1:-}
if [ -z "$run" ]; then
    run=$(ls -d results/runs/*/ 2>/dev/null | sort | tail -n 1)
    [ -n "$run" ] || run=results/reference
fi
run=${run%/}
case $run in *\'*|*\"*|*\\*|*"
"*) echo "figures: RUN=$run: a quote, backslash or newline in the path is not taken (gnuplot reads it quoted)" >&2; exit 2 ;; esac
[ -d "$run" ] || { echo "figures: $run is not a folder (give RUN=results/runs/...)" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "figures: gnuplot is missing (make deps)" >&2; exit 2; }
mkdir -p "$run/figures"
drawn=0; status=0
# The roofline's points (RUN/roofline.csv, from every study's CSV) and its roofs
# (gnuplot assignments from machine.json): plot/roofline.sh.
extra=$(sh plot/roofline.sh "$run") || status=1
for gp in plot/*.gp; do
    name=$(basename "$gp" .gp)
    # NAME's CSV: the longest of NAME, NAME less its last _part, ... that RUN has
    n=$name
    while [ ! -f "$run/$n.csv" ] && [ "${n%_*}" != "$n" ]; do n=${n%_*}; done
    csv="$run/$n.csv"
    own=""   # figures drawn from other CSVs
    case $name in
    scaling_breakdown) csv="$run/scaling_weak.csv" ;;
    scaling_efficiency) csv="$run/scaling_weak.csv"
        own="weak='$csv'; strong='$run/scaling_strong.csv';"
        [ -f "$run/scaling_strong.csv" ] || csv="" ;;
    esac
    [ -f "$csv" ] || continue
    # the values computed from the run's CSVs (a first row's, the sizes present, ...)
    vars=$(build/bin/study figure-vars "$run" "$name") || { status=1; continue; }
    if gnuplot -e "csv='$csv'; out='$run/figures/$name.png'; $extra $own $vars" "$gp"; then
        echo "figures: $run/figures/$name.png"; drawn=$((drawn + 1))
    else
        echo "figures: $gp failed on $csv" >&2; status=1
    fi
done
[ $drawn -gt 0 ] || echo "figures: no CSV in $run that a plot/*.gp script draws" >&2
exit $status
