#!/bin/sh
# roofline.sh RUN — RUN/roofline.csv for plot/roofline.gp (one row per kernel point at
# 1 thread: study, kernel, intensity_flops_per_byte, gflops) and, on stdout, the roofs'
# gnuplot assignments from RUN/machine.json: `study roofline` (scaling/study/roofline.c).
#
# Work and traffic per kernel (roofline.c takes them from the kernels' own constants):
#   exp      20 flops/element  = EXP_BOUND_VECOPS (10) vector ops, each one FMA slot
#            (2 flops), so the exp bound sits on the compute roof; 8 bytes/element
#            (read x, write y).
#   softmax  28 flops/element  = SOFTMAX_BOUND_VECOPS (14: exp + max, sum, scale) x 2; 8 bytes/element.
#   gemm     2mnk flops; 4(mk + kn + 2mn) bytes (A and B read once, C read and written):
#            the compulsory traffic, so the intensity is an upper bound.
# Achieved GFLOP/s = flops per element / ns_per_elem (exp, softmax) or the gflops column.
set -u
run=${1:?usage: roofline.sh RUN}
case "$run" in /*) ;; *) run="$PWD/$run" ;; esac
cd "$(dirname "$0")/.."
exec build/bin/study roofline "$run"
