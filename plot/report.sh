#!/bin/sh
# report.sh RUN — write RUN's report.md to stdout: the machine and its measured limits,
# then per study its figure, a summary table and the issue's targets checked against
# what this run measured.  Everything quoted comes from RUN's CSV/JSON files.
set -u
run=${1:?usage: report.sh RUN}
case "$run" in /*) ;; *) run="$PWD/$run" ;; esac
cd "$(dirname "$0")/.."
run=${run%/}

# md_table CSV COLS FILTER: the named columns of the rows where the awk expression
# FILTER (on columns by name, e.g. v["threads"]==1) holds, as a Markdown table.
md_table() {
    awk -v cols="$2" "$(cat plot/csv.awk)"'
    function emit(   j, x, r) {
        if (!hdone) {
            m = split(cols, want, ","); h = "|"; sep = "|"
            for (j = 1; j <= m; j++) { h = h " " want[j] " |"; sep = sep " --- |" }
            print h; print sep; hdone = 1
        }
        if (!('"$3"')) return
        r = "|"
        for (j = 1; j <= m; j++) {   # numbers to 4 significant digits, as people read them
            x = v[want[j]]
            if (x ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ && x !~ /^[0-9]+$/) x = sprintf("%.4g", x)
            r = r " " x " |"
        }
        print r
    }' "$1"
}

json_str() { sed -n "s/^ *\"$1\": \"\\(.*\\)\",\\{0,1\\}\$/\\1/p" "$run/machine.json" | head -n 1; }
json_num() { sed -n "s/^ *\"$1\": \\([-0-9.eE+]*\\),\\{0,1\\}\$/\\1/p" "$run/machine.json" | head -n 1; }

echo "# rnnscale run $(basename "$run")"
echo
if [ -f "$run/machine.json" ]; then
    echo "Machine: $(json_str model), $(json_num ncpus) CPUs, best ISA $(json_str isa_best)," \
         "TSC $(printf '%.3f' "$(json_num tsc_ghz)") GHz; commit $(json_str commit); $(json_str compiler)."
    echo
    echo "Counters: $(json_str papi); $(json_str likwid)."
    echo
fi
if [ -f "$run/peak.csv" ]; then
    echo "## This machine's limits (\`microbench peak\`)"
    echo
    md_table "$run/peak.csv" "$(head -n 1 "$run/peak.csv")" 1
    echo
    echo "BLAS dispatch (the kernel each library picks, and the fix applied for this run):"
    echo
    [ -f "$run/peak.txt" ] && grep -E '^(library|openblas|blis) ' "$run/peak.txt" | sed 's/^/    /'
    echo
fi
if [ -f "$run/exp.csv" ]; then
    echo "## exp (\`microbench exp\`)"
    echo
    echo "![speed against accuracy](figures/exp.png)"
    echo
    echo "One thread, L1-resident working set (cycles are TSC cycles; speedup over the scalar"
    echo "glibc \`expf\` loop; fraction of the FMA-port bound):"
    echo
    md_table "$run/exp.csv" "variant,isa,impl,n,ns_per_elem,cycles_per_elem,max_ulp,rms_ulp,specials,speedup_vs_libm,frac_of_bound" \
        'v["threads"] == 1 && v["cache"] == "L1"'
    echo
    echo "All rows (every working set and thread count) are in exp.csv."
    echo
    echo "### Targets (this run, side by side)"
    echo
    awk "$(cat plot/csv.awk)"'
    function emit(   k) {
        if (v["threads"] != 1 || v["cache"] != "L1") return
        k = v["variant"] "/" v["isa"]; cyc[k] = v["cycles_per_elem"]; ulp[k] = v["max_ulp"]
    }
    function show(name, ok, text) { printf "- %s: %s — %s\n", name, text, ok }
    END {
        if ("poly/avx512" in cyc) {
            show("own AVX-512 expf <= 1 ULP and <= 0.40 cycles/element", (ulp["poly/avx512"] <= 1 && cyc["poly/avx512"] <= 0.40) ? "met" : "NOT met",
                 sprintf("%.3g ULP, %.3g cycles/element", ulp["poly/avx512"], cyc["poly/avx512"]))
            if ("sleef/avx512" in cyc) show("own AVX-512 vs SLEEF expf16_u10", cyc["poly/avx512"] < cyc["sleef/avx512"] ? "faster" : "NOT faster",
                 sprintf("%.2fx", cyc["sleef/avx512"] / cyc["poly/avx512"]))
            if ("libm/portable" in cyc) show("own AVX-512 >= 15x glibc expf", cyc["libm/portable"] / cyc["poly/avx512"] >= 15 ? "met" : "NOT met",
                 sprintf("%.1fx", cyc["libm/portable"] / cyc["poly/avx512"]))
        } else print "- own AVX-512 expf: not run (this CPU lacks AVX-512)"
        if ("poly/avx2" in cyc) {
            show("own AVX2 expf <= 1 ULP", ulp["poly/avx2"] <= 1 ? "met" : "NOT met", sprintf("%.3g ULP", ulp["poly/avx2"]))
            if ("sleef/avx2" in cyc) show("own AVX2 faster than SLEEF expf8_u10", cyc["poly/avx2"] < cyc["sleef/avx2"] ? "met" : "NOT met",
                 sprintf("%.3g vs %.3g cycles/element (%.2fx)", cyc["poly/avx2"], cyc["sleef/avx2"], cyc["sleef/avx2"] / cyc["poly/avx2"]))
            if ("libm/portable" in cyc) show("own AVX2 speedup over glibc expf", "measured", sprintf("%.1fx", cyc["libm/portable"] / cyc["poly/avx2"]))
        }
    }' "$run/exp.csv"
    echo
fi
if [ -f "$run/softmax.csv" ]; then
    echo "## softmax (\`microbench softmax\`)"
    echo
    echo "![speedup over naive per variant and shape](figures/softmax.png)"
    echo
    echo "One thread (speedup over the naive libm softmax; fraction of the applicable bound:"
    echo "exp throughput in cache, STREAM copy bandwidth beyond the LLC):"
    echo
    md_table "$run/softmax.csv" "variant,isa,rows,cols,cache,ns_per_elem,gbytes_per_s,max_rel_err,speedup_vs_naive,frac_of_bound,bound" \
        'v["threads"] == 1 && v["variant"] != "naive"'
    echo
    if [ -f "$run/softmax.txt" ]; then
        echo "### Targets (this run, side by side)"
        echo
        sed -n '/^targets/,$p' "$run/softmax.txt" | sed '1d; s/^ */- /'
        echo
    fi
fi
if [ -f "$run/gemm.csv" ]; then
    echo "## GEMM (\`microbench gemm\`)"
    echo
    echo "![fraction of peak per shape and backend](figures/gemm.png)"
    echo
    echo "One thread, square 2048 and the DeepBench N = 64 training shapes (fraction of this"
    echo "run's measured FMA peak; residual in units of eps K max|A| max|B|):"
    echo
    md_table "$run/gemm.csv" "backend,m,n,k,trans,gflops,frac_of_peak,residual,dispatch,gain_vs_default" \
        'v["threads"] == 1 && v["backend"] != "naive" && (v["set"] == "square" || (v["set"] == "deepbench" && v["n"] == 64))'
    echo
    echo "All shapes (inference N = 1, 2, 4, every DeepBench N, the RNN models' GEMMs by name) and"
    echo "both thread counts are in gemm.csv."
    echo
    if [ -f "$run/gemm.txt" ]; then
        echo "### Targets and dispatch (this run, side by side)"
        echo
        grep -E '^(target|dispatch):' "$run/gemm.txt" | sed 's/^/- /'
        echo
    fi
fi
if [ -f "$run/figures/roofline.png" ]; then
    echo "## Roofline"
    echo
    echo "![roofline](figures/roofline.png)"
    echo
    echo "Every kernel of this run at 1 thread, placed by arithmetic intensity (flops and bytes per"
    echo "kernel are stated in plot/roofline.sh) and measured GFLOP/s, under this machine's measured"
    echo "FMA peak and STREAM triad bandwidth. Cache-resident points may sit above the DRAM slope:"
    echo "the roof drawn is the DRAM one. Points: roofline.csv."
    echo
fi
