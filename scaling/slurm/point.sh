#!/bin/sh
# point.sh RUN POINTS — one task of a Slurm job array: the points file's N-th point, N
# the task's index, run by `study point` in RUN/points/NAME/ (a done point is skipped; a
# point stopped at its time limit continues from its checkpoint when submitted again).
# Submit it from the project's root, every setting an argument, none shell text:
#   n=$(grep -c -v '^#' RUN/converge_points.txt)
#   sbatch --array=1-$n scaling/slurm/point.sh RUN RUN/converge_points.txt
# Slurm runs a copy of this file, so the project is found from where it was submitted.
set -u
[ $# -eq 2 ] || { echo "point.sh: usage: sbatch --array=1-N point.sh RUN POINTS" >&2; exit 2; }
[ -n "${SLURM_ARRAY_TASK_ID:-}" ] || { echo "point.sh: not a Slurm array task (sbatch --array=1-N)" >&2; exit 2; }
root=${SLURM_SUBMIT_DIR:-.}
[ -x "$root/build/bin/study" ] ||
    { echo "point.sh: $root/build/bin/study is missing: submit from the project's root, after make" >&2; exit 2; }
exec "$root/build/bin/study" point "$1" "$2" "$SLURM_ARRAY_TASK_ID"
