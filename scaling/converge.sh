#!/bin/sh
# converge.sh [RUN] — what `make scaling` runs first: steps-to-target against the global
# batch B = N x b, N synchronous workers of b streams each (rnn-train --workers N, the
# exact emulation), the learning rate tuned over a grid per N, into a run folder (RUN, or
# a new results/runs/<UTC stamp>-<host>/; a stopped study resumes with RUN=DIR).  It
# launches build/bin/study run converge (scaling/study/converge*.c: the settings, the
# grid, the tables and the report section):
#   converge_settings.txt   the settings, fixed when the folder is made
#   converge_points.txt     the points (argument vectors: scaling/study/points_file.h), converge_grid.csv their grid
#   points/NAME/            each point's command line, output, summary.csv, log.csv
#   scaling_convergence.csv/.json, scaling_fit.json/.txt, scaling_bsimple.csv, figures/,
#   scaling_report.md       (a rerun moves old ones to old-K/)
# Settings (environment; scaling/study/converge.c declares them): QUICK=1 (N = 1,4,16,64,
# two learning rates, ~10 min), N_LIST, B_LIST (per-worker batches, default 4; the claim:
# "1 4 16"), LR_FACTORS, TARGET_X (the target: TARGET_X x kn3's valid ppl), OPT_N /
# OPT_LIST (the optimizers compared at the large end), WARMUP_N / WARMUP (the warmup
# steps tried there), EXTEND (rounds that widen a learning-rate grid whose best is at its
# edge), CAP_X / CAP_EPOCHS (the step cap), EVAL_STREAMS, THREADS, SEED, MODEL, GEMM
# (plan: --gemm auto tunes once per batch, in the point gemm-bX, and the points at that
# batch name its picks; auto: each point tunes itself; or one backend); JOBS;
# STUDY_CHECK=1 checks alone; PLAN=1 writes the base grid's points (after the baseline)
# and stops, for a cluster.  `build/bin/study collect converge RUN` redoes the tables.
# Exit: 0 ok, 1 a point failed (the rest still ran), 2 bad input, 130/143 interrupted.
cd "$(dirname "$0")/.." || exit 2
[ -x build/bin/study ] && [ -x build/bin/rnn-train ] && [ -x build/bin/scaling-fit ] ||
    { echo "converge: build/bin/study, rnn-train or scaling-fit missing: run make" >&2; exit 2; }
exec build/bin/study run converge "${1:-${RUN:-}}"
