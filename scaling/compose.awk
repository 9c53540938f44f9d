# compose.awk — the arithmetic of scaling/compose_tables.sh: reads its fact lines
#   compute B COMPUTE_MS OPTIMIZER_MS GFLOP_PER_STEP GFLOPS PARAMS BPTT   (one per repeat)
#   optimizer NAME MS       eval MS       tensor BYTES
#   x ALGO N BYTES P50_US   (scaling/simulate: smpi:rdb and hier)
#   check N ALGO COMPUTE STEP_MS COMPUTE_MS EXCHANGE_MS OPTIMIZER_MS   (train-sim)
#   conv N b OPTIMIZER STEPS EVAL_EVERY   (the study's best point per (N, b))
# and writes out.weak, out.strong, out.time_to_target, out.compose_check (CSV).
# Variables: out, nlist, blist, strongB, G (NODE_GFLOPS), gamma (GB/s), every, async.
# T(N) = compute(b) + optimizer + exchange(N) + evaluation / eval_every (0 when async).
$1 == "compute" { k = ++nr[$2]; rc[$2, k] = $3; ro[$2, k] = $4; rg[$2, k] = $6; F[$2] = $5; params = $7; T = $8; next }
$1 == "optimizer" { O[$2] = $3; next }
$1 == "eval" { E = $2; next }
$1 == "tensor" { nt++; tb[nt] = $2; next }
$1 == "x" { X[$2, $3, $4] = $5; next }
$1 == "check" { nc++; for (i = 2; i <= 8; i++) K[nc, i] = $i; next }
$1 == "conv" { nv++; for (i = 2; i <= 6; i++) V[nv, i] = $i; next }

# lo and hi of a[b, 1..n]
function range(a, b, n,   i) {
    lo = hi = a[b, 1] + 0
    for (i = 2; i <= n; i++) { if (a[b, i] < lo) lo = a[b, i] + 0; if (a[b, i] > hi) hi = a[b, i] + 0 }
}
# compute, the optimizer and GFLOP/s per b: the fastest of the interleaved repeats (the
# machine's load only adds time), with the slowest compute beside it
function repeats(   b) {
    for (b in nr) {
        range(rg, b, nr[b]); GF[b] = hi
        range(ro, b, nr[b]); O0[b] = lo
        range(rc, b, nr[b]); C[b] = Clo[b] = lo; Chi[b] = hi
    }
}
# Adam and LAMB keep two state vectors, SGD none, the others one (models/optim.c).
function nstate(o) { return (o == "adam" || o == "lamb") ? 2 : (o == "sgd") ? 0 : 1 }
function compute_ms(k, b, g) { if (!(b in C)) return ""; return k == "core" ? C[b] : F[b] / g * 1e3 }
# train-sim charges 4 + 2 x states float passes over the parameters at the gamma rate
function optimizer_ms(k, o) {
    if (k != "core") return 4.0 * params * (4 + 2 * nstate(o)) / (gamma * 1e9) * 1e3
    return (o in O) ? O[o] : ""
}
function eval_ms(k, ev) {
    if (async || E == "") return 0
    return (k == "core" ? E : E * GF[b0] / G) / ev
}
# ms, or "" when a simulated time is missing
function xt(algo, N, bytes) { return ((algo, N, bytes) in X) ? X[algo, N, bytes] / 1e3 : "" }
function exchange_ms(s, N,   i, t, sum) {
    if (N == 1) return 0
    if (s == "fused-library") return xt("smpi:rdb", N, params * 4)
    if (s == "fused-hier") return xt("hier", N, params * 4)
    for (i = 1; i <= nt; i++) { t = xt("smpi:rdb", N, tb[i]); if (t == "") return ""; sum += t }
    return T * sum
}
# parts[] and the step (ms), or "" when a part is missing
function step(k, b, o, s, N, ev) {
    pc = compute_ms(k, b, G); po = optimizer_ms(k, o); px = exchange_ms(s, N); pe = eval_ms(k, ev)
    if (pc == "" || po == "" || px == "") { missing++; return "" }
    return pc + po + px + pe
}
function row(f, k, b, N, s, st) {
    printf "%s,%s,%s,%d,%d,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%s", k, k == "core" ? "" : G, b, N, N * b, s,
        pc, po, px, pe, st, k == "core" ? Clo[b] : "", k == "core" ? Chi[b] : "" > f
}
function weak(k, b, s,   i, N, st, tok, tok1) {
    for (i = 1; i <= nn; i++) {
        N = Ns[i]; st = step(k, b, "momentum", s, N, every); if (st == "") continue
        tok = N * b * T / st * 1e3; if (N == 1) tok1 = tok
        row(out ".weak", k, b, N, s, st)
        printf ",%.6g,%s,%s\n", tok, tok1 ? sprintf("%.6g", tok / tok1) : "",
            tok1 ? sprintf("%.6g", tok / tok1 / N) : "" > (out ".weak")
    }
}
function strong(k, s,   i, N, st, st1) {
    for (i = 1; i <= nn; i++) {
        N = Ns[i]; if (strongB % N) continue
        st = step(k, strongB / N, "momentum", s, N, every); if (st == "") continue
        if (N == 1) st1 = st
        row(out ".strong", k, strongB / N, N, s, st)
        printf ",%.6g,%s,%s\n", strongB * T / st * 1e3, st1 ? sprintf("%.6g", st1 / st) : "",
            st1 ? sprintf("%.6g", st1 / st / N) : "" > (out ".strong")
    }
}
# one line per (node, scheme, study point); the fastest N per (node, b, scheme) flagged.
# Evaluation as in the other tables: the study's own interval (~1/20 of the steps, to
# resolve the crossing) is not what a run to a known target needs.
function time_to_target(k, s,   j, st, t, key) {
    for (j = 1; j <= nv; j++) {
        st = step(k, V[j, 3], V[j, 4], s, V[j, 2], every); if (st == "") continue
        t = V[j, 5] * st / 1e3; key = k SUBSEP V[j, 3] SUBSEP s
        if (V[j, 2] == 1) t1[key] = t
        if (!(key in best) || t < best[key]) best[key] = t
        nq++; qk[nq] = key; qt[nq] = t; qN[nq] = V[j, 2]
        qline[nq] = sprintf("%s,%s,%s,%d,%d,%s,%s,%d,%d,%.6g,%.6g", k, k == "core" ? "" : G, V[j, 3], V[j, 2],
            V[j, 2] * V[j, 3], s, V[j, 4], V[j, 5], every, st, t)
    }
}
function check(j,   N, s, g, st, d) {
    N = K[j, 2]; s = K[j, 3] == "hier" ? "fused-hier" : "fused-library"
    g = K[j, 4]; sub(/^flops:/, "", g)
    pc = compute_ms("gflops", b0, g); po = optimizer_ms("gflops", "momentum"); px = exchange_ms(s, N)
    if (px == "") { missing++; return }
    st = pc + po + px; d = st / K[j, 5] - 1
    printf "%d,%s,%s,%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%d\n", N, s, g, b0, st, K[j, 5], d,
        pc, K[j, 6], px, K[j, 7], po, K[j, 8], (d < 0.1 && d > -0.1) > (out ".compose_check")
}
END {
    repeats()
    nn = split(nlist, Ns, " "); nb = split(blist, Bs, " "); b0 = Bs[1]; ns = split("fused-library fused-hier per-tensor", S, " ")
    if (!T || !(b0 in C)) { print "compose: no compute point at b = " b0 > "/dev/stderr"; exit 2 }
    if (!("momentum" in O)) O["momentum"] = O0[b0]
    hdr = "node,node_gflops,b,nodes,global_batch,scheme,compute_ms,optimizer_ms,exchange_ms,eval_ms,step_ms,compute_ms_min,compute_ms_max"
    print hdr ",tokens_per_s,speedup,efficiency" > (out ".weak")
    print hdr ",tokens_per_s,speedup,efficiency" > (out ".strong")
    print "node,node_gflops,b,nodes,global_batch,scheme,optimizer,steps_to_target,eval_every,step_ms,time_to_target_s,speedup,fastest" > (out ".time_to_target")
    print "nodes,scheme,node_gflops,b,composed_step_ms,simulated_step_ms,rel_diff,composed_compute_ms,simulated_compute_ms,composed_exchange_ms,simulated_exchange_ms,composed_optimizer_ms,simulated_optimizer_ms,within_10pct" > (out ".compose_check")
    split("core gflops", kinds, " ")
    for (ki = 1; ki <= 2; ki++) for (si = 1; si <= ns; si++) {
        for (bi = 1; bi <= nb; bi++) weak(kinds[ki], Bs[bi], S[si])
        strong(kinds[ki], S[si]); time_to_target(kinds[ki], S[si])
    }
    for (j = 1; j <= nq; j++)
        printf "%s,%s,%d\n", qline[j], (qk[j] in t1) ? sprintf("%.6g", t1[qk[j]] / qt[j]) : "", qt[j] == best[qk[j]] > (out ".time_to_target")
    for (j = 1; j <= nc; j++) check(j)
    if (missing) print "compose: " missing " rows left out: a point they need is missing (failed or not run)" > "/dev/stderr"
}
