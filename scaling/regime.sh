#!/bin/sh
# regime.sh [RUN] — what `make scaling` runs second: steps to several targets against the
# global batch in the Sunway TaihuLight study's regime (b = 80 sequences a worker, N = 1
# to 100, the 9.8 M-token corpus big), every optimizer tuned at every batch, into a run
# folder (RUN, or a new results/runs/<UTC stamp>-<host>/; a stopped study resumes with
# RUN=DIR).  It launches build/bin/study run regime (scaling/study/regime*.c):
#   regime_settings.txt     the settings, fixed when the folder is made
#   regime_points.txt       the points (argument vectors: scaling/study/points_file.h), regime_grid.csv their grid
#   regime_targets.csv      the targets, the hard one set from the N = 1 runs
#   points/NAME/            each point's command line, output, log.csv, summary.csv
#   regime_points.csv, regime_steps.csv, regime_fit.json, regime_report.md (a rerun
#                           moves old ones to old-K/)
# Settings (environment; scaling/study/regime.c declares them): QUICK=1 (Moby Dick, a
# small model, N = 1,4,16 at b = 8, minutes), CORPUS, VOCAB, MODEL, B, N_LIST, OPT_LIST,
# LR_FACTORS, EXTEND, SEEDS, SEED_N, TARGETS_X, BEST_WITHIN, REF_EPOCHS, CAP_EPOCHS,
# WARMUP, GROUP_MAX, EVAL_STREAMS, EVAL_TOKENS, CLAIM_N, THREADS; JOBS (default 2);
# STUDY_CHECK=1 checks alone.  `build/bin/study collect regime RUN` redoes the tables.
# Exit: 0 ok, 1 a point failed (the rest still ran), 2 bad input, 130/143 interrupted.
cd "$(dirname "$0")/.." || exit 2
[ -x build/bin/study ] && [ -x build/bin/rnn-train ] ||
    { echo "regime: build/bin/study or rnn-train missing: run make" >&2; exit 2; }
exec build/bin/study run regime "${1:-${RUN:-}}"
