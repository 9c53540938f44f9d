#!/bin/sh
# report.sh RUN — write RUN's report.md to stdout: the machine and its measured limits,
# then per study its figure, a summary table and the targets checked against
# what this run measured.  Everything quoted comes from RUN's CSV/JSON files.
set -u
run=${1:?usage: report.sh RUN}
case "$run" in /*) ;; *) run="$PWD/$run" ;; esac
cd "$(dirname "$0")/.."
run=${run%/}

. scaling/study/get.sh   # csv_rows, study_get: every CSV and JSON read by build/bin/study

# md_table CSV COLS FILTER: the named columns of the rows where the awk expression
# FILTER (on columns by name, e.g. v["threads"]==1) holds, as a Markdown table.
md_table() {
    csv_rows "$1" '*' '
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
    }' -v cols="$2"
}

machine() { study_get "$run/machine.json" "$1" --optional; }   # KEY: a dotted path

# The report opens with a one-screen summary: the machine and every target line of the
# sections below (lines that end in met / NOT met), under the section they come from.
# The sections are this same script run again with REPORT_BODY=1.
if [ -z "${REPORT_BODY:-}" ]; then
    body=$(REPORT_BODY=1 sh plot/report.sh "$run") || exit 1
    printf '%s\n' "$body" | sed -n '1,/^## /{/^## /!p}'
    echo "## Summary"
    printf '%s\n' "$body" | awk '
        /^## / { sec = substr($0, 4); next }
        /^- / && /[ :(](NOT met|not met|met)([);.]|$)/ {
            if (sec != last) { printf "\n**%s**\n\n", sec; last = sec }
            print; n++; if ($0 ~ /[Nn][Oo][Tt] met/) bad++
        }
        END { printf "\n%d target lines, %d not met in this run.\n\n", n, bad }'
    printf '%s\n' "$body" | sed -n '/^## /,$p'
    exit 0
fi

echo "# rnnscale run $(basename "$run")"
echo
if [ -f "$run/machine.json" ]; then
    echo "Machine: $(machine cpu.model), $(machine cpu.ncpus) CPUs, best ISA $(machine cpu.isa_best)," \
         "TSC $(printf '%.3f' "$(machine timer.tsc_ghz)") GHz; commit $(machine build.commit); $(machine build.compiler)."
    echo
    echo "Counters: $(machine counters.papi); $(machine counters.likwid)."
    echo
fi
if [ -f "$run/peak.csv" ]; then
    echo "## This machine's limits (\`microbench peak\`)"
    echo
    md_table "$run/peak.csv" "$(csv_columns "$run/peak.csv")" 1
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
    csv_rows "$run/exp.csv" threads,cache,variant,isa,cycles_per_elem,max_ulp '
    function emit(   k) {
        if (v["threads"] != 1 || v["cache"] != "L1") return
        k = v["variant"] "/" v["isa"]; cyc[k] = v["cycles_per_elem"]; ulp[k] = v["max_ulp"]
    }
    function show(name, ok, text) { printf "- %s: %s — %s\n", name, text, ok }
    END {
        if ("poly/avx512" in cyc) {
            show("own AVX-512 expf <= 1 ULP and <= 0.40 cycles/element", (ulp["poly/avx512"] <= 1 && cyc["poly/avx512"] <= 0.40) ? "met" : "NOT met",
                 sprintf("%.3g ULP, %.3g cycles/element", ulp["poly/avx512"], cyc["poly/avx512"]))
            if ("sleef/avx512" in cyc) show("own AVX-512 >= 1.5x SLEEF expf16_u10", cyc["sleef/avx512"] / cyc["poly/avx512"] >= 1.5 ? "met" : "NOT met",
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
    }'
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
if [ -f "$run/allreduce.csv" ]; then
    echo "## allreduce (\`allreduce-bench\` under mpirun, np = 2 and 4 on this machine)"
    echo
    echo "![latency and bus bandwidth against size](figures/allreduce.png)"
    echo
    echo "Float sum, isolated timing, 1 MiB and 16 MiB (every size is in allreduce.csv): median time"
    echo "per algorithm next to the MPI library's MPI_Allreduce, bus bandwidth = algbw x 2(p-1)/p, and the"
    echo "alpha-beta-gamma model's range (model_us .. model_hi_us) fitted at start:"
    echo
    md_table "$run/allreduce.csv" "algo,p,bytes,p50_us,p99_us,busbw_gbytes_per_s,model_us,model_hi_us,in_model_range,wrong" \
        'v["dtype"] == "float" && v["mode"] == "isolated" && v["algo"] !~ /^library:/ && (v["bytes"] + 0 == 1048576 || v["bytes"] + 0 == 16777216)'
    echo
    echo "### Targets and winners (this run, side by side)"
    echo
    csv_rows "$run/allreduce.csv" dtype,mode,p,bytes,p50_us,wrong,algo,in_model_range,model_us,model_hi_us '
    function emit(   k, t) {
        if (v["dtype"] != "float" || v["mode"] != "isolated") return
        k = v["p"] SUBSEP v["bytes"]; t = v["p50_us"] + 0
        sizes[k] = 1; wrong += v["wrong"] + 0
        if (v["algo"] == "library") lib[k] = t
        else if (v["algo"] !~ /^library:/ && (!(k in best) || t < best[k])) { best[k] = t; who[k] = v["algo"] }
        if (v["in_model_range"] != "") { inr += v["in_model_range"]; nmod++; if (v["in_model_range"] + 0 == 0 && ++nout <= 8) out = out sprintf("%s %s B at np = %s (%.4g us, range %.4g-%.4g); ", v["algo"], v["bytes"], v["p"], t, v["model_us"], v["model_hi_us"]) }
    }
    END {
        npair = 0   # sizes with both a library and a project row: none is no evidence
        for (k in sizes) {
            split(k, pb, SUBSEP)
            if (pb[2] >= 1048576 && (k in lib) && (k in best)) { r = best[k] / lib[k]; if (!npair++ || r > worst) { worst = r; wk = k } }
        }
        split(wk, pb, SUBSEP)
        if (npair == 0) printf "- best project algorithm vs MPI_Allreduce, >= 1 MiB: not measured (no size has both a library row and a project algorithm'"'"'s)\n"
        else printf "- best project algorithm vs MPI_Allreduce, >= 1 MiB, np = 2 and 4: worst ratio %.2f (p = %s, %s bytes); target <= 1.2: %s\n", worst, pb[1], pb[2], worst <= 1.2 ? "met" : "NOT met"
        printf "- medians within their model range (every algorithm, the library included): %d of %d rows%s\n", inr, nmod, nout == 0 ? "" : "; outside: " out (nout > 8 ? "..." : "")
        printf "- wrong elements over all rows: %d\n", wrong
        n = 0
        for (k in sizes) { split(k, pb, SUBSEP); if (k in who) line[pb[1], pb[2]] = who[k] }
        for (p = 2; p <= 4; p += 2) {
            s = ""; prev = ""
            for (b = 4; b <= 268435456; b *= 2) if ((p, b) in line) {
                if (line[p, b] != prev) { s = s (s == "" ? "" : ", ") line[p, b] " from " b " B"; prev = line[p, b] }
            }
            if (s != "") printf "- winners at np = %d: %s\n", p, s
        }
    }'
    echo
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
# ---- rnn-train (models/): learning curve, throughput, the Kneser-Ney baseline
if [ -f "$run/train.csv" ] || [ -f "$run/train_bench.csv" ] || [ -f "$run/train_kn3.csv" ]; then
    echo "## RNN training (\`rnn-train\`)"
    echo
    if [ -f "$run/figures/train.png" ]; then
        echo "![learning curve](figures/train.png)"
        echo
    fi
    if [ -f "$run/train_summary.csv" ]; then
        echo "A short word-level training run on Moby Dick (the curve above; every evaluation is in"
        echo "train.csv):"
        echo
        md_table "$run/train_summary.csv" "model,hidden,layers,vocab,classes,batch,bptt,threads,optimizer,steps,tokens,seconds,tokens_per_s,valid_ppl,test_ppl" 1
        echo
    fi
    if [ -f "$run/train_bench.csv" ]; then
        echo "Training-step throughput (\`--bench\`: median of the timed steps; GFLOP/s counts the"
        echo "GEMMs of forward and backward, 6 N G (I + H) per layer and 6 N H V for the output;"
        echo "fraction of this machine's measured FMA peak at that thread count; activation arena"
        echo "against a naive per-step allocation; with classes, the output counts C + V/C words"
        echo "per token instead of V):"
        echo
        md_table "$run/train_bench.csv" "model,hidden,batch,bptt,vocab,classes,threads,step_ms_median,step_ms_max,tokens_per_s,gflops,frac_of_peak,arena_mib,naive_mib,gemm" 1
        echo
        echo "\`gemm\`: the backend of each product (\`--gemm auto\`, the default, times every validated"
        echo "backend on the model's own shapes at start-up and keeps the fastest per shape)."
        echo "\`step_ms_max\`: the slowest timed step; one over 5x the median is flagged STALL below"
        echo "(a spin-wait starved by another process, or threads nested in threads: test/load/run.sh)."
        echo
        csv_rows "$run/train_bench.csv" model,hidden,threads,classes,frac_of_peak,step_ms_max,step_ms_median '
        function emit() {
            if (v["model"] == "lstm" && v["hidden"] == 512 && v["threads"] == 1 && v["classes"] == 0)
                printf "- target: LSTM hidden 512, batch 32, BPTT 35, vocabulary 10k, 1 thread >= 0.70 of the FMA peak: %.3f — %s\n", v["frac_of_peak"], (v["frac_of_peak"] >= 0.70) ? "met" : "NOT met"
            if (v["step_ms_max"] == "" || !(v["step_ms_median"] + 0 > 0))
                return
            timed++
            if (v["step_ms_max"] + 0 > 5 * v["step_ms_median"]) {
                stalls++
                printf "- STALL: %s hidden %d%s, %d thread%s: slowest step %.1f ms = %.1fx the median %.1f ms (at most 5x) — NOT met\n", v["model"], v["hidden"], (v["classes"] > 0 ? ", " v["classes"] " classes" : ""), v["threads"], (v["threads"] > 1 ? "s" : ""), v["step_ms_max"], v["step_ms_max"] / v["step_ms_median"], v["step_ms_median"]
            }
        }
        END {
            if (timed && !stalls)
                printf "- target: no stall, every row'"'"'s slowest step at most 5x its median (%d rows): met\n", timed
        }'
        echo
    fi
    if [ -f "$run/train_pipeline.csv" ]; then
        echo "The GPU study's two-stage pipeline on CPU threads (\`--pipeline\`): the forward pass"
        echo "with the output layer of step t on a second thread while the recurrence runs step"
        echo "t+1 (one step at a time, or chunks of steps per output GEMM), against the same"
        echo "operations in sequential order on one thread (bit-identical losses and gradients"
        echo "checked on every window), and the default batched path:"
        echo
        md_table "$run/train_pipeline.csv" "model,hidden,vocab,batch,bptt,mode,mode_threads,chunk_steps,ms_per_window_median,tokens_per_s,speedup_vs_sequential,bit_identical" 1
        echo
    fi
    if [ -f "$run/train_kn3.csv" ]; then
        echo "### Against the Kneser-Ney trigram baseline (same tokens, vocabulary and split)"
        echo
        echo "Sentence completion: MSR-style questions built from held-out test sentences (one word"
        echo "blanked, four impostors of similar frequency, the sentence with the highest probability"
        echo "wins; the same questions for both models; chance is 20%)."
        echo
        # the last row of each: kn3's, and the trainer's summary where the run has one
        kn3=$run/train_kn3.csv; sum=$run/train_summary.csv
        last() { study_get "$1" "$2" --optional; }
        awk -v kv="$(last "$kn3" valid_ppl)" -v kt="$(last "$kn3" test_ppl)" -v kc="$(last "$kn3" completion_accuracy)" \
            -v model="$(last "$sum" model)" -v hidden="$(last "$sum" hidden)" -v classes="$(last "$sum" classes)" \
            -v steps="$(last "$sum" steps)" -v seconds="$(last "$sum" seconds)" -v lv="$(last "$sum" valid_ppl)" \
            -v lt="$(last "$sum" test_ppl)" -v lc="$(last "$sum" completion_accuracy)" '
        BEGIN {
            lm = model " hidden " hidden (classes > 0 ? ", " classes " classes" : "") ", " steps " steps, " sprintf("%.0f", seconds) " s"
            printf "- kn3 (interpolated modified Kneser-Ney trigram): valid ppl %.2f, test ppl %.2f", kv, kt
            if (kc != "") printf "; sentence completion %.1f%% right", 100 * kc
            printf "\n"
            if (lt != "") printf "- %s: valid ppl %.2f, test ppl %.2f%s — %s\n", lm, lv, lt, (lc != "" ? sprintf("; sentence completion %.1f%% right", 100 * lc) : ""), (lt < kt ? "beats kn3" : "does not beat kn3 yet (a short run); a longer run beats it within 15 minutes on 2 cores, e.g. rnn-train --model lstm --hidden 256 --optimizer adam --lr 2e-3 --classes 100 --epochs 2 (about a minute) or, full softmax, --epochs 5 (about 7 minutes)")
        }'
        echo
    fi
fi
# ---- end rnn-train

# ---- rnn-train against PyTorch (models/peer_torch.py; `make peers`): same step, same threads
if [ -f "$run/train_bench.csv" ] || [ -f "$run/train_peer.csv" ]; then
    echo "## Against PyTorch"
    echo
    if [ -f "$run/train_peer.csv" ] && [ -f "$run/train_bench.csv" ]; then
        echo "The same training step in PyTorch (\`models/peer_torch.py\`: nn.Embedding, nn.LSTM /"
        echo "nn.RNN(tanh), nn.Linear over the whole vocabulary, F.cross_entropy, truncated BPTT with"
        echo "the state carried and detached, clip_grad_norm_ at 5, optim.SGD; one bias per layer as"
        echo "here) on the same configurations and thread counts (torch.set_num_threads and"
        echo "OPENBLAS_NUM_THREADS); median step of the timed steps after 2 untimed ones, as"
        echo "\`rnn-train --bench\`. PyTorch's inputs are random ids from a fixed seed, rnnscale's"
        echo "its corpus (the work per step is the same). PyTorch multiplies through Debian's"
        echo "OpenBLAS, run at the fastest core type that computed correctly on this CPU (probed"
        echo "in fresh processes: the \`train_peer_*.txt\` files have the table):"
        echo
        # rnnscale's one-layer full-softmax rows, a line each: the configuration's 7 cells
        # (the key), tokens/s and ms/step, a tab between them
        cfg=model,hidden,embed,vocab,batch,bptt,threads
        ours=$(csv_rows "$run/train_bench.csv" "$cfg,classes,layers,tokens_per_s,step_ms_median" '
            function emit() { if (v["classes"] + 0 == 0 && v["layers"] + 0 == 1)
                print v["model"], v["hidden"], v["embed"], v["vocab"], v["batch"], v["bptt"], v["threads"], v["tokens_per_s"], v["step_ms_median"] }' -v OFS='\t')
        csv_rows "$run/train_peer.csv" "$cfg,tokens_per_s,step_ms_median,openblas_core,openblas_coretype,coretype_reason,coretype_probe,openblas_coretype_user,peer_version,omp_wait_policy" '
        BEGIN {
            nours = split(ours, line, "\n")
            for (i = 1; i <= nours; i++) {
                split(line[i], c, "\t"); k = c[1] SUBSEP c[2] SUBSEP c[3] SUBSEP c[4] SUBSEP c[5] SUBSEP c[6] SUBSEP c[7]
                rt[k] = c[8]; rms[k] = c[9]
            }
        }
        function emit(   k) {
            k = v["model"] SUBSEP v["hidden"] SUBSEP v["embed"] SUBSEP v["vocab"] SUBSEP v["batch"] SUBSEP v["bptt"] SUBSEP v["threads"]
            if (!(k in pt)) order[++n] = k
            pt[k] = v["tokens_per_s"]; pms[k] = v["step_ms_median"]
            core[k] = v["openblas_core"] (v["openblas_coretype"] == "(unset)" ? " (OPENBLAS_CORETYPE unset)" : " (OPENBLAS_CORETYPE=" v["openblas_coretype"] ")")
            if (reason == "") { reason = v["coretype_reason"]; probe = v["coretype_probe"]; user = v["openblas_coretype_user"]; ver = v["peer_version"] }
            if (v["threads"] + 0 > 1 && v["omp_wait_policy"] !~ /^[Pp][Aa][Ss][Ss][Ii][Vv][Ee]$/) spin = v["omp_wait_policy"]
        }
        END {
            print "| model | hidden | vocab | batch | bptt | threads | rnnscale tokens/s | PyTorch tokens/s | ratio | rnnscale ms/step | PyTorch ms/step | PyTorch OpenBLAS core |"
            print "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
            for (i = 1; i <= n; i++) {
                k = order[i]; split(k, c, SUBSEP)
                have = (k in rt) && pt[k] > 0
                printf "| %s | %s | %s | %s | %s | %s | %s | %.4g | %s | %s | %.4g | %s |\n", c[1], c[2], c[4], c[5], c[6], c[7],
                    (k in rt) ? sprintf("%.4g", rt[k]) : "-", pt[k], have ? sprintf("%.2fx", rt[k] / pt[k]) : "-",
                    (k in rms) ? sprintf("%.4g", rms[k]) : "-", pms[k], core[k]
                if (have && c[7] == 1 && c[2] == 512 && c[4] == 10000 && c[5] == 32 && c[6] == 35) ratio1[c[1]] = rt[k] / pt[k]
            }
            print ""
            printf "PyTorch %s; OpenBLAS core type: %s", ver, reason
            printf "%s.\n", (user != "" && user != "(unset)") ? " (the environment had OPENBLAS_CORETYPE=" user ")" : ""
            if (probe != "") printf "Probe (sgemm GFLOP/s, 1 thread, per OPENBLAS_CORETYPE): %s.\n", probe
            if (spin != "") {
                print ""
                printf "At more than 1 thread, PyTorch'"'"'s OpenMP workers spin after each parallel region (OMP_WAIT_POLICY:\n"
                printf "%s in this run) while Debian'"'"'s OpenBLAS runs its own threads: on few cores they compete,\n", spin
                print "which slows PyTorch down there; peer_torch.py sets PASSIVE unless the environment sets it."
            }
            print ""
            print "### Targets (this run, side by side)"
            print ""
            split("lstm elman", ms, " ")
            for (j = 1; j <= 2; j++) {
                name = (ms[j] == "lstm") ? "LSTM" : "Elman"
                if (ms[j] in ratio1)
                    printf "- %s hidden 512, vocab 10000, batch 32, bptt 35 at 1 thread: rnnscale >= 2.5x PyTorch'"'"'s tokens/s: %.2fx — %s\n", name, ratio1[ms[j]], (ratio1[ms[j]] >= 2.5) ? "met" : "NOT met"
                else
                    printf "- %s at 1 thread >= 2.5x PyTorch: not measured in this run (QUICK=1 times all threads only)\n", name
            }
        }' -v ours="$ours"
        echo
    elif [ -f "$run/train_peer.csv" ]; then
        echo "PyTorch was measured (train_peer.csv) but rnnscale's \`rnn-train --bench\` was not"
        echo "(no train_bench.csv): nothing to compare."
        echo
    else
        echo "PyTorch was not measured in this run: \`make peers\` installs it (Debian's python3-torch),"
        echo "then \`make bench\` adds the comparison (train_peer.csv)."
        echo
    fi
fi
# ---- end against PyTorch

# ---- allreduce at scale (scaling/sweep.sh wrote it: make bench's preset or make simulate)
if [ -f "$run/simulate_report.md" ]; then
    echo
    cat "$run/simulate_report.md"
fi
# ---- the scaling study (scaling/converge.sh and its companions wrote it: make scaling)
if [ -f "$run/scaling_report.md" ]; then
    echo
    cat "$run/scaling_report.md"
fi
# ---- each claim of the Sunway TaihuLight and GPU RNN studies beside this run's figure
echo
sh plot/reproduction.sh "$run"
