#!/bin/sh
# models.sh [RUN] — the model-size study, `make scaling`'s part after the convergence
# study (or alone, on any run folder): class-based modest models against larger
# full-softmax ones at an equal training-time budget.  It launches build/bin/study run
# models (scaling/study/models.c declares the settings, points and tables).  Settings
# from the environment: QUICK=1, HIDDEN_LIST, BUDGET_S, CORPUS, CLASSES, BATCH, BPTT,
# OPT_FLAGS, COMPLETION, THREADS, SEED; JOBS (default 2); STUDY_CHECK=1 checks alone.
# `build/bin/study collect models RUN` redoes the table, figure and section.
cd "$(dirname "$0")/.." || exit 2
[ -x build/bin/study ] && [ -x build/bin/rnn-train ] || { echo "models: build/bin/study or rnn-train missing: run make" >&2; exit 2; }
exec build/bin/study run models "${1:-${RUN:-}}"
