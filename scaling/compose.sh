#!/bin/sh
# compose.sh [RUN] — weak and strong scaling and time to target on a convergence study's
# run folder, `make scaling`'s part after scaling/converge.sh (or alone on a folder, to
# resume or redo it).  It launches build/bin/study run compose (scaling/study/compose.c
# declares the settings, points and tables; scaling/README.md says what they measure).
# Settings from the environment, fixed when the folder gets compose_settings.txt:
# QUICK=1, STRONG_B, NODE_GFLOPS (a speed, or auto), EVAL_EVERY, EVAL_ASYNC, BENCH_STEPS,
# REPEATS, CHECK_N, CHECK_ALGOS; JOBS (default 1); STUDY_CHECK=1 checks alone.
# `build/bin/study collect compose RUN` redoes the tables, figures and section.
# Exit: 0 ok, 1 a point failed (the tables are made from the rest), 2 bad input,
# 130/143 interrupted.
cd "$(dirname "$0")/.." || exit 2
run=${1:-${RUN:-}}
[ -n "$run" ] || { echo "compose: no run folder: give one made by scaling/converge.sh (compose.sh RUN)" >&2; exit 2; }
[ -x build/bin/study ] || { echo "compose: build/bin/study missing: run make" >&2; exit 2; }
exec build/bin/study run compose "$run"
