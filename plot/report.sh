#!/bin/sh
# report.sh RUN — write RUN's report.md to stdout: the machine and its measured limits,
# then per study its figure, a summary table and the issue's targets checked against
# what this run measured.  Everything quoted comes from RUN's CSV/JSON files.
set -u
run=${1:?usage: report.sh RUN}
run=${run%/}

# md_table CSV COLS FILTER: the named columns of the rows where the awk expression
# FILTER (on columns by name, e.g. v["threads"]==1) holds, as a Markdown table.
md_table() {
    awk -v cols="$2" -F, '
    function parse(line,   i, n, c, f, q) {   # CSV with "quoted, fields"
        n = 0; f = ""; q = 0
        for (i = 1; i <= length(line); i++) {
            c = substr(line, i, 1)
            if (c == "\"") { if (q && substr(line, i + 1, 1) == "\"") { f = f c; i++ } else q = !q }
            else if (c == "," && !q) { fld[++n] = f; f = "" }
            else f = f c
        }
        fld[++n] = f; return n
    }
    NR == 1 { n = parse($0); for (i = 1; i <= n; i++) idx[fld[i]] = i
              m = split(cols, want, ","); h = "|"; s = "|"
              for (j = 1; j <= m; j++) { h = h " " want[j] " |"; s = s " --- |" }
              print h; print s; next }
    { parse($0); for (k in idx) v[k] = fld[idx[k]]
      if (!('"$3"')) next
      r = "|"
      for (j = 1; j <= m; j++) {   # numbers to 4 significant digits, as people read them
          x = v[want[j]]
          if (x ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ && x !~ /^[0-9]+$/) x = sprintf("%.4g", x)
          r = r " " x " |"
      }
      print r }' "$1"
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
    awk -F, '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["threads"] == 1 && $c["cache"] == "L1" { k = $c["variant"] "/" $c["isa"]; cyc[k] = $c["cycles_per_elem"]; ulp[k] = $c["max_ulp"] }
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
