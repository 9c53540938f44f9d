#!/bin/sh
# sweep.sh [RUN] — what `make simulate` runs: the allreduce sweep under SimGrid SMPI, into
# a run folder (RUN, or a new results/runs/<UTC stamp>-<host>/):
#   simulate.csv                  TaihuLight model, consecutive placement: the join of
#     simulate_small.csv/.json      p = 2..256, 4 B..64 MiB (x4), every algorithm;
#     simulate_large.csv/.json      p = 512, 800, 1024 at 4 B, 64 KiB (512: and 4, 64
#                                   MiB; 800: and 1, 4, 16, 64 MiB): the project's
#                                   algorithms with O(p log p) messages per call;
#     simulate_large_smpi.csv/.json the SMPI built-ins among them, at 800 nodes;
#     simulate_ring.csv/.json       a ring-like one (2p^2 messages) at 800 nodes:
#                                   smpi:lr at 64 MiB
#   simulate_placement.csv/.json  800 nodes, random placement
#   simulate_platforms.csv/.json  the fat tree and the 3D torus at 64 and 512 nodes
#   caffe.csv/.json               the Sunway TaihuLight study's experiment (Caffe-style vs fused hier), 1..800
#   simulate_*.txt, .log          console output;  figures/simulate_*.png;
#   simulate_report.md            the report section (build/bin/study simulate-report)
#   simulate_cost.txt             each part's simulations one after another (seconds),
#                                 and the whole sweep's wall time
#   simulate_points.txt           every simulation: part, nodes, algorithm, sizes, seconds
# It launches `build/bin/study run simulate` (scaling/study/simulate_sweep.c: the parts,
# their planning, the points, the collect).  Every part is planned first, then all their
# simulations run as one list, SIM_JOBS at once (default: the cores), the longest first
# (the pool of build/bin/study: rerunning with the same RUN resumes), then each
# part's CSV and JSON are written; if no simulation gave a row, none is: exit 1 with one
# line naming the logs (kept in RUN/simulate_work).  SimGrid 3.32 costs ~50-75 us of
# wall time per simulated message here, so one ring allreduce at 800 nodes is 1.5-5 min:
# the default sweep runs the ring-like algorithms at 512 nodes and more only as smpi:lr
# at 800 nodes and 64 MiB, and leaves out what repeats another point (scaling/README.md,
# "Cost"; scaling/study/simulate_parts.c).  FULL=1 runs every algorithm at every size at
# every node count instead (hours).  QUICK=1: a few points of each, up to 256 nodes
# (what `make bench` runs; minutes).  SIM_PARTS=FILE: its lines "NAME
# scaling/simulate-options" instead of a preset.  A resumed RUN keeps the settings it
# was started with.
cd "$(dirname "$0")/.." || exit 2
[ -x build/bin/study ] || { echo "simulate: build/bin/study is missing: build it with 'make'" >&2; exit 2; }
exec build/bin/study run simulate "${1:-${RUN:-}}"
