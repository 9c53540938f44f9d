#!/bin/sh
# roofline.sh RUN — collect the kernels of a run into RUN/roofline.csv for plot/roofline.gp:
# one row per kernel point (1 thread): study, kernel, intensity_flops_per_byte, gflops.
#
# Work and traffic per kernel, stated once here:
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
run=${run%/}
out="$run/roofline.csv"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT INT TERM

. scaling/study/get.sh
# rows CSV AWK-PROGRAM: the program's emit() with v["column"] set for every data row
# (csv_rows: the CSV read by build/bin/study).
rows() {
    [ -f "$1" ] || return 0
    csv_rows "$1" '*' "$2"
}

{
    echo "study,kernel,intensity_flops_per_byte,gflops"
    # exp: every variant of the best-scoring kinds at 1 thread, in L1 and beyond the LLC.
    rows "$run/exp.csv" 'function emit() {
        if (v["threads"] != 1 || (v["cache"] != "L1" && v["cache"] != "DRAM")) return
        if (v["variant"] != "poly" && v["variant"] != "libm" && v["variant"] != "sleef") return
        printf "exp,%s %s %s,%.6g,%.6g\n", v["variant"], v["isa"], v["cache"], 20 / 8, 20 / v["ns_per_elem"] }'
    # softmax: the naive and fast variants at 1 thread, each shape.
    rows "$run/softmax.csv" 'function emit() {
        if (v["threads"] != 1 || (v["variant"] != "naive" && v["variant"] != "fast")) return
        printf "softmax,%s %s %sx%s,%.6g,%.6g\n", v["variant"], v["isa"], v["rows"], v["cols"], 28 / 8, 28 / v["ns_per_elem"] }'
    # gemm: every backend except the naive oracle, 1 thread.
    rows "$run/gemm.csv" 'function emit() {
        if (v["threads"] != 1 || v["backend"] == "naive" || v["gflops"] == "") return
        m = v["m"]; n = v["n"]; k = v["k"]
        printf "gemm,%s %sx%sx%s,%.6g,%s\n", v["backend"], m, n, k, 2 * m * n * k / (4 * (m * k + k * n + 2 * m * n)), v["gflops"] }'
} > "$tmp" && mv "$tmp" "$out"
trap - EXIT INT TERM
