#!/bin/sh
# figures.sh RUN — redraw every figure of a run folder from its CSVs: each plot/NAME.gp
# whose NAME's CSV (the part before the first '_', e.g. exp for exp_speed.gp) exists
# in RUN draws RUN/figures/NAME.png.  RUN defaults to the newest results/runs/*,
# then results/reference/.
set -u
cd "$(dirname "$0")/.."
run=${1:-}
if [ -z "$run" ]; then
    run=$(ls -d results/runs/*/ 2>/dev/null | sort | tail -n 1)
    [ -n "$run" ] || run=results/reference
fi
run=${run%/}
[ -d "$run" ] || { echo "figures: $run is not a folder (give RUN=results/runs/...)" >&2; exit 2; }
command -v gnuplot >/dev/null || { echo "figures: gnuplot is missing (make deps)" >&2; exit 2; }
mkdir -p "$run/figures"
drawn=0; status=0
for gp in plot/*.gp; do
    name=$(basename "$gp" .gp)
    csv="$run/${name%%_*}.csv"
    [ -f "$csv" ] || continue
    if gnuplot -e "csv='$csv'; out='$run/figures/$name.png'" "$gp"; then
        echo "figures: $run/figures/$name.png"; drawn=$((drawn + 1))
    else
        echo "figures: $gp failed on $csv" >&2; status=1
    fi
done
[ $drawn -gt 0 ] || echo "figures: no CSV in $run that a plot/*.gp script draws" >&2
exit $status
