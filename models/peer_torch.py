#!/usr/bin/python3
"""peer_torch.py — rnn-train --bench's training step in PyTorch, timed the same way.

    /usr/bin/python3 models/peer_torch.py --model lstm --threads 1 --steps 10 --csv peer.csv

The step is the one models/train_bench.c's --bench times (models/model.c, lstm.c, elman.c,
output.c): embedding lookup -> one LSTM (gates i f g o, forget bias 1) or Elman (tanh)
layer over a truncated-BPTT window of T steps -> a full-softmax Linear over the
vocabulary -> mean cross-entropy -> backward -> global gradient-norm clipping (rnn-train's
default --clip 5) -> plain SGD (lr 1, rnn-train's default).  The hidden state is carried
from window to window and detached (no gradient flows into it).  Built from nn.Embedding,
nn.LSTM / nn.RNN(tanh), nn.Linear, F.cross_entropy, clip_grad_norm_ and optim.SGD.
One bias per layer as in rnnscale: PyTorch's second recurrent bias (bias_hh) is zero and
frozen.  Inputs are random token ids from a fixed seed (rnn-train --bench reads its corpus,
Moby Dick; the work per step does not depend on which ids come).

With --classes C, the output layer is rnn-train --classes C's (RNNLM's class-factorized
softmax, models/output_class.c) mapped onto nn.AdaptiveLogSoftmaxWithLoss, PyTorch's
nearest layer; everything else of the step (LSTM, clip, SGD, carried state) is the same.
  - Ids: drawn from a Zipf unigram distribution, p(rank r) ~ 1/(r + 1), id 0 the most
    frequent (uniform ids would make every class equally large and hide the layer's real
    shape).  rnn-train's classes come from its corpus's counts; here from these
    probabilities, cut by the same rule (class_map_build: words by frequency, a new class
    once the mass so far passes k/C): frequent words get small classes, rare ones large.
    At V 10000, C 100: 44 classes of one word, the largest 932 words, and 100 words
    (= V/C, as the equal-mass rule gives) in a token's class on average.
  - Mapping: cutoffs = the classes' first ids; the head is class 0's words plus one logit
    per other class (RNNLM's class softmax, class 0's words folded in: -log p(w) is the
    same sum of a class term and a word term), head_bias for the class and head-word
    biases.  div_value=1.0 keeps each tail cluster's projection H wide.
  - What differs: AdaptiveLogSoftmaxWithLoss puts an H x H projection (no bias) in front of
    each tail cluster's words, which RNNLM's layer does not have; it starts as the identity
    here, so the model at init is RNNLM's, and it trains (its work is in the step).  The
    tail's words have no bias (V - S_0 numbers; negligible work).
  - Work per step, forward and backward (gflop_per_step; expected over the distribution):
    at H 512, V 10k, B 32, T 35, C 100, 16.36 GFLOP here (output layer 2.27: head 100
    logits for every token, a 512 x 512 projection and ~100 word logits for the 90% of
    tokens in tail clusters) against rnn-train's 14.78 (gflop_per_step_rnnscale, model.c's
    count: output layer 0.69, H (C + V/C) a token); the LSTM's 14.09 is common to both.
  - Loss at init: near a uniform predictor's under the factorization (loss_uniform: ln of
    the head's size, plus ln of the cluster's size for a tail word; 6.91 expected at the
    shape above, against ln V = 9.21 for the full softmax).  --check tests that, and that SGD
    on one window repeated lowers the loss, and exits 1 if either fails.
RNNLM's toolkit runs this layer token by token as matrix-vector products; what that
design allows on this machine is in models/README.md ("The class softmax's cost").

Timing as rnn-train --bench: --warmup untimed steps (2), then --steps steps timed one
by one; tokens/s = batch * bptt / median step time.

OpenBLAS core type: Debian's PyTorch multiplies through Debian's OpenBLAS, whose runtime
dispatch may pick kernels below the CPU.  Before importing torch, this script probes the
candidate OPENBLAS_CORETYPE values for this CPU (SkylakeX and Cooperlake where the CPU has
AVX-512 F/BW/VL, Zen and Haswell where it has AVX2 + FMA, the environment's own value,
and the variable unset), each in a fresh process (the variable is read when the library
loads): torch matmuls of a few shapes against a float64 reference that does not use BLAS
(a core type whose instructions the CPU lacks dies with SIGILL or computes garbage: "not
correct"), then a 1120x2048x512 sgemm (the output layer's) on one thread.  The fastest
correct one is used for this run only (ties within 5% go to the environment's value, then
to the library's own choice).  --coretype keep leaves the environment as it is.

Threads: torch.set_num_threads(T) and OPENBLAS_NUM_THREADS=T.  Debian's OpenBLAS runs its
own pthreads next to PyTorch's OpenMP threads, which spin after each parallel region
(libgomp's default): on 2 cores the spinning thread slows OpenBLAS's second thread down
(LSTM at 2 threads slower than at 1 here).  So the script sets OMP_WAIT_POLICY=PASSIVE, the
peer's best setting, unless the environment sets it; the value is recorded in the CSV.
No effect at 1 thread.

Exit: 0 done, 1 the loss diverged, no core type computed correctly or --check failed,
2 bad usage or input (one line on stderr), 130 interrupted.  --csv never overwrites a
file and never leaves a partial one.
"""
import argparse
import csv
import io
import json
import math
import os
import statistics
import subprocess
import sys
import time

PROG = "peer_torch"
EPS32 = 2.0 ** -23
TIE = 0.05  # within 5% of the fastest counts as tied: the probe's run-to-run noise on a
            # shared 2-core VM (Zen vs unset->Zen, the same kernels: up to 6%)
PROBE_TIMEOUT_S = 20     # per candidate process (it imports torch: ~2 s)
PROBE_TIME_BUDGET_S = 0.6  # the timed sgemm repeats for this long (best of >= 5)
PROBE_RESIDUAL_MAX = 1.0  # in units of eps K max|A| max|B|; garbage is >> 1
PROBE_TIME_SHAPE = (1120, 2048, 512)   # M N K: logits (B T, V) = h (B T, H) W^T, V cut to 2048

# (M, N, K, layout): C (M, N) = A (M, K) B (K, N) with A or B stored transposed as the
# training step's products are (Linear forward x W^T; weight gradients dY^T X; gemv).
PROBE_CHECK_SHAPES = [
    (1120, 97, 512, "nn"),
    (67, 129, 300, "nt"),
    (64, 96, 1120, "tn"),
    (32, 2048, 512, "nt"),
    (1, 700, 512, "nt"),
]

CSV_COLS = ["model", "layers", "hidden", "embed", "vocab", "batch", "bptt", "threads",
            "classes", "gemm", "steps", "step_ms_median", "step_ms_min", "step_ms_max",
            "tokens_per_s", "gflops", "gflop_per_step", "gflop_per_step_rnnscale", "output",
            "loss_first", "loss_last", "loss_uniform", "peer",
            "peer_version", "openblas_coretype", "openblas_core", "openblas_threads",
            "openblas_coretype_user", "coretype_reason", "coretype_probe", "omp_wait_policy",
            "inputs", "clip", "lr"]


def die(code, msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(code)


# ---- the CPU and the core-type candidates -----------------------------------------------

def cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


# ISA each candidate's kernels need (the probe also catches a wrong table here).
CORE_ISA = {"SkylakeX": {"avx512f", "avx512bw", "avx512vl"},
            "Cooperlake": {"avx512f", "avx512bw", "avx512vl"},
            "Zen": {"avx2", "fma"}, "Haswell": {"avx2", "fma"}}


def candidates(user):
    """[(label, value or None)]: None = the variable unset (the library's own choice)."""
    flags = cpu_flags()
    out = [(c, c) for c in ("SkylakeX", "Cooperlake", "Zen", "Haswell") if CORE_ISA[c] <= flags]
    if user is not None and user.lower() not in [c.lower() for c, _ in out]:
        out.append((f"{user} (environment)", user))
    out.append(("(unset)", None))
    return out


# ---- one probe, in a fresh process --------------------------------------------------------

def openblas_info():
    """(core name, thread count) of the OpenBLAS loaded in this process (torch's)."""
    import ctypes
    try:
        lib = ctypes.CDLL("libopenblas.so.0")
        lib.openblas_get_corename.restype = ctypes.c_char_p
        return lib.openblas_get_corename().decode(), int(lib.openblas_get_num_threads())
    except (OSError, AttributeError):
        return "unknown (no libopenblas.so.0)", 0


def probe_child():
    """Runs under OPENBLAS_CORETYPE as set by the parent; prints one JSON line."""
    import torch
    torch.set_num_threads(1)
    torch.manual_seed(7)
    worst = 0.0
    for m, n, k, lay in PROBE_CHECK_SHAPES:
        a = torch.rand(m, k) * 2 - 1
        b = torch.rand(k, n) * 2 - 1
        if lay == "nn":
            c = a @ b
        elif lay == "nt":       # B stored (N, K), as nn.Linear's weight
            c = a @ b.t().contiguous().t()
        else:                   # A stored (K, M), as a weight gradient's dY^T
            c = a.t().contiguous().t() @ b
        # float64 reference without BLAS: broadcast products summed, a block of rows at a time
        a64, b64 = a.double(), b.double()
        ref = torch.empty(m, n, dtype=torch.float64)
        rows = max(1, (1 << 22) // (k * n))
        for i in range(0, m, rows):
            ref[i:i + rows] = (a64[i:i + rows, :, None] * b64[None, :, :]).sum(1)
        scale = EPS32 * k * float(a.abs().max()) * float(b.abs().max())
        err = float((c.double() - ref).abs().max()) / scale
        if not math.isfinite(err):
            err = float("inf")
        worst = max(worst, err)
    M, N, K = PROBE_TIME_SHAPE
    x = torch.rand(M, K) - 0.5
    w = torch.rand(N, K) - 0.5
    y = x @ w.t()
    best, reps, start = float("inf"), 0, time.perf_counter()
    while reps < 5 or (reps < 40 and time.perf_counter() - start < PROBE_TIME_BUDGET_S):
        t0 = time.perf_counter()
        y = x @ w.t()
        best = min(best, time.perf_counter() - t0)
        reps += 1
    core, _ = openblas_info()
    print(json.dumps({"core": core, "residual": worst, "gflops": 2.0 * M * N * K / best * 1e-9,
                      "sum": float(y.sum())}))


def probe_one(value):
    env = dict(os.environ)
    env.pop("OPENBLAS_CORETYPE", None)
    if value is not None:
        env["OPENBLAS_CORETYPE"] = value
    env["OPENBLAS_NUM_THREADS"] = "1"
    env["OMP_NUM_THREADS"] = "1"
    try:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--probe-child"], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=PROBE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return {"ok": False, "why": f"hung (> {PROBE_TIMEOUT_S} s)"}
    if p.returncode < 0:
        import signal
        try:
            name = signal.Signals(-p.returncode).name
        except ValueError:
            name = f"signal {-p.returncode}"
        why = f"killed by {name}" + (" (the CPU lacks its instructions)" if name == "SIGILL" else "")
        return {"ok": False, "why": why}
    if p.returncode != 0:
        last = (p.stderr.strip().splitlines() or ["no message"])[-1]
        return {"ok": False, "why": f"exit {p.returncode}: {last[:120]}"}
    try:
        r = json.loads(p.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"ok": False, "why": "no result"}
    r["ok"] = r["residual"] <= PROBE_RESIDUAL_MAX
    r["why"] = "correct" if r["ok"] else f"WRONG (residual {r['residual']:.3g})"
    return r


def pick(rows, user):
    """rows: [(label, value, result)] -> (value or None, label, reason).

    Candidates are grouped by the core OpenBLAS reports it loaded: a value the library
    replaced by its own fallback (Cooperlake without BF16 -> SkylakeX or Haswell), or the
    variable unset, runs the same kernels as the named value, and their speeds differ by
    noise only.  The fastest group wins; groups within 5% of it count as tied, and then the
    environment's value, else the library's own choice, is kept.  Within the group the
    variable is set to the environment's value, else to the core's own name, else left
    unset."""
    good = [(lab, val, r) for lab, val, r in rows if r["ok"]]
    if not good:
        return None, None, "no candidate computed correctly"
    groups = {}
    for e in good:
        groups.setdefault(e[2]["core"], []).append(e)
    speed = {c: max(e[2]["gflops"] for e in g) for c, g in groups.items()}
    top = max(speed.values())
    fastest = max(speed, key=speed.get)
    tied = [c for c in groups if speed[c] >= top * (1 - TIE)]
    user_core = next((e[2]["core"] for e in good if user is not None and e[1] == user), None)
    unset_core = next((e[2]["core"] for e in good if e[1] is None), None)
    core, why = fastest, "the fastest correct kernels"
    for pref, what in ((user_core, "the environment's value is kept"),
                       (unset_core, "the library's own choice is kept")):
        if pref in tied:
            if pref != fastest:
                core, why = pref, f"within {TIE:.0%} of the fastest ({fastest}, {top:.1f} GFLOP/s): {what}"
            break
    g = groups[core]
    chosen = (next((e for e in g if user is not None and e[1] == user), None)
              or next((e for e in g if e[1] is not None and e[1].lower() == core.lower()), None)
              or next((e for e in g if e[1] is None), None) or g[0])
    others = ", ".join(f"{c} {speed[c]:.1f}" for c in sorted(speed, key=speed.get, reverse=True)
                       if c != core)
    same = [e[0] for e in g if e is not chosen]
    reason = (f"{why}: core {core} at {speed[core]:.1f} GFLOP/s (sgemm {PROBE_TIME_SHAPE[0]}x"
              f"{PROBE_TIME_SHAPE[1]}x{PROBE_TIME_SHAPE[2]}, 1 thread, best of the candidates "
              f"loading it{': ' + ', '.join([chosen[0]] + same) if same else ''})"
              f"{'; others ' + others if others else ''}; residual {chosen[2]['residual']:.2g}; "
              f"{len(good)} of {len(rows)} candidates correct")
    return chosen[1], chosen[0], reason


def run_probe(user, cache):
    key = {"user": user, "cpu": cpu_model(), "python": sys.executable}
    if cache and os.path.exists(cache):
        try:
            with open(cache) as f:
                saved = json.load(f)
            if saved.get("key") == key:
                return [tuple(r) for r in saved["rows"]], True
        except (OSError, ValueError, KeyError):
            pass
    rows = []
    for lab, val in candidates(user):
        rows.append((lab, val, probe_one(val)))
    if cache:
        tmp = f"{cache}.tmp.{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump({"key": key, "rows": rows}, f)
        os.replace(tmp, cache)
    return rows, False


def print_probe(rows, cached, cache):
    M, N, K = PROBE_TIME_SHAPE
    src = f" (cached in {cache})" if cached else ""
    print(f"openblas core-type probe{src}: a fresh process per value; matmul residual in units of "
          f"eps K max|A| max|B| (correct <= {PROBE_RESIDUAL_MAX:g}); sgemm {M}x{N}x{K}, 1 thread")
    print(f"  {'OPENBLAS_CORETYPE':<26} {'core':<12} {'residual':>9} {'GFLOP/s':>8}  verdict")
    for lab, val, r in rows:
        core = r.get("core", "-")
        res = f"{r['residual']:.3g}" if "residual" in r else "-"
        gf = f"{r['gflops']:.1f}" if "gflops" in r else "-"
        print(f"  {lab:<26} {core:<12} {res:>9} {gf:>8}  {r['why']}")


def probe_summary(rows):
    """One line for the CSV: 'Zen 48.1 GFLOP/s; Haswell 47.9 GFLOP/s; unset->Zen 48.0 GFLOP/s'."""
    parts = []
    for lab, val, r in rows:
        name = "unset" if val is None else lab
        if r["ok"]:
            if val is None or r["core"].lower() != val.lower():
                name += "->" + r["core"]
            parts.append(f"{name} {r['gflops']:.1f} GFLOP/s")
        else:
            parts.append(f"{name} {r['why']}")
    return "; ".join(parts)


# ---- --classes: RNNLM's class split, mapped onto AdaptiveLogSoftmaxWithLoss -------------

ZIPF_S = 1.0   # p(rank r) ~ 1/(r+1)^s: s = 1 is Zipf's law for word frequencies; Moby
               # Dick's words are near it (the most frequent 708x the 1000th, 1000x for
               # s = 1).  What the split needs is that shape: a few words hold much mass


def zipf_probs(V):
    """Unigram probabilities of ids 0..V-1, id 0 the most frequent.  The ids are already in
    frequency order because AdaptiveLogSoftmaxWithLoss's clusters are id ranges (rnnscale
    sorts its output rows into class order instead: the same layout)."""
    w = [1.0 / (r + 1) ** ZIPF_S for r in range(V)]
    t = sum(w)
    return [x / t for x in w]


def class_split(probs, C):
    """models/output_class.c's class_map_build on the expected counts PROBS (ids sorted by
    frequency): off[k] is class k's first id, off[C] = V.  A class ends once the mass so
    far passes (k+1)/C, and always when only as many ids are left as classes to fill; so
    the frequent words get classes of their own and the rare ones share large ones."""
    V = len(probs)
    total = sum(probs)
    off, cum, k = [0], 0.0, 0
    for i in range(V):
        if k < C - 1 and i > off[k] and (cum / total > (k + 1) / C or V - i <= C - 1 - k):
            off.append(i)
            k += 1
        cum += probs[i]
    off.append(V)
    return off


def uniform_losses(V, off):
    """Per target id, the loss of a model that predicts uniformly at every softmax it has:
    ln V for the full softmax; with classes, ln(head) for the head's own words and
    ln(head) + ln |cluster| for a tail cluster's (what small initial weights give)."""
    if off is None:
        return [math.log(V)] * V
    C = len(off) - 1
    head = off[1] + C - 1
    out = [math.log(head)] * V
    for k in range(1, C):
        for w in range(off[k], off[k + 1]):
            out[w] += math.log(off[k + 1] - off[k])
    return out


# ---- the benchmark --------------------------------------------------------------------------

def rnn_flops(cell, hidden, embed, n):
    g = (4 if cell == "lstm" else 1) * hidden
    return 6.0 * n * g * (embed + hidden)


def model_step_flops(cell, hidden, embed, vocab, batch, bptt, classes=0):
    """models/model.c's model_step_flops: the GEMMs of forward and backward (6 flops per
    multiply-add: the product, dX and dW); with classes, the class layer and a class of
    the average size V / C per token (what rnn-train's gflops column counts)."""
    n = bptt * batch
    out = hidden * (classes + vocab / classes) if classes else hidden * vocab
    return rnn_flops(cell, hidden, embed, n) + 6.0 * n * out


def adaptive_step_flops(cell, hidden, embed, batch, bptt, probs, off):
    """AdaptiveLogSoftmaxWithLoss's GEMMs, forward and backward, expected over the unigram
    distribution: every token the head (H x (S_0 + C - 1)); a token of tail cluster k its
    projection (H x H, div_value 1) and its cluster's words (H x S_k)."""
    n, H, C = bptt * batch, hidden, len(off) - 1
    per = H * (off[1] + C - 1)
    for k in range(1, C):
        per += sum(probs[off[k]:off[k + 1]]) * (H * H + H * (off[k + 1] - off[k]))
    return rnn_flops(cell, hidden, embed, n) + 6.0 * n * per


def expected_class_size(probs, off):
    """sum_k p_k S_k: the words a token's class holds, on average over the tokens."""
    return sum(sum(probs[off[k]:off[k + 1]]) * (off[k + 1] - off[k]) for k in range(len(off) - 1))


def fmt(x):
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def write_csv_atomic(path, row):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLS)
    w.writerow([fmt(row[c]) for c in CSV_COLS])
    d = os.path.dirname(path) or "."
    tmp = os.path.join(d, f".{os.path.basename(path)}.tmp.{os.getpid()}")
    try:
        with open(tmp, "w") as f:
            f.write(buf.getvalue())
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        try:
            os.link(tmp, path)      # never replaces a file that appeared meanwhile
        except FileExistsError:
            die(2, f"{path} appeared while writing; not replaced")
    except OSError as e:
        die(2, f"cannot write {path}: {e.strerror}")
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def check_writable(path):
    if os.path.lexists(path):
        die(2, f"{path} already exists; results are never overwritten (choose a new name or remove it)")
    d = os.path.dirname(path) or "."
    if not os.path.isdir(d):
        die(2, f"cannot write {path}: folder {d} does not exist (create it first)")
    if not os.access(d, os.W_OK):
        die(2, f"cannot write {path}: folder {d} is not writable")


class Setup:
    """The model, its optimizer and the input stream of a run: the same for --check and
    the timed run."""

    def __init__(self, a, total):
        import torch
        import torch.nn as nn
        import torch.nn.functional as F

        torch.set_num_threads(a.threads)
        torch.manual_seed(a.seed)
        H, D, V, B, T = a.hidden, a.embed, a.vocab, a.batch, a.bptt
        self.torch, self.a = torch, a
        self.probs = zipf_probs(V) if a.classes else None
        self.off = class_split(self.probs, a.classes) if a.classes else None
        off = self.off

        class LM(nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = nn.Embedding(V, D)
                if a.model == "lstm":
                    self.rnn = nn.LSTM(D, H)
                else:
                    self.rnn = nn.RNN(D, H, nonlinearity="tanh")
                if off is None:
                    self.out = nn.Linear(H, V)
                else:
                    # head: class 0's words + one logit per other class (RNNLM's class
                    # softmax, with class 0's words folded in); div_value 1 keeps every
                    # tail projection H wide; head_bias: RNNLM's class and word biases
                    # (the tail's word biases AdaptiveLogSoftmaxWithLoss does not have)
                    self.out = nn.AdaptiveLogSoftmaxWithLoss(H, V, off[1:-1], div_value=1.0,
                                                             head_bias=True)
                # rnnscale's initial values (model_init_params): embedding and output
                # weights uniform +-0.1, recurrent weights +-1/sqrt(H), biases 0, LSTM
                # forget gate 1.
                with torch.no_grad():
                    self.emb.weight.uniform_(-0.1, 0.1)
                    if off is None:
                        self.out.weight.uniform_(-0.1, 0.1)
                        self.out.bias.zero_()
                    else:
                        self.out.head.weight.uniform_(-0.1, 0.1)
                        self.out.head.bias.zero_()
                        for proj, words in self.out.tail:
                            # the projection RNNLM's layer lacks starts as the identity,
                            # so the model at init is RNNLM's (it trains like any weight)
                            proj.weight.copy_(torch.eye(H))
                            words.weight.uniform_(-0.1, 0.1)
                    r = 1.0 / math.sqrt(H)
                    self.rnn.weight_ih_l0.uniform_(-r, r)
                    self.rnn.weight_hh_l0.uniform_(-r, r)
                    self.rnn.bias_ih_l0.zero_()
                    if a.model == "lstm":
                        self.rnn.bias_ih_l0[H:2 * H] = 1.0
                    self.rnn.bias_hh_l0.zero_()
                self.rnn.bias_hh_l0.requires_grad_(False)   # one bias per layer, as rnnscale

            def forward(self, x, state, y):
                h, state = self.rnn(self.emb(x), state)
                h = h.reshape(-1, H)
                if off is None:
                    return F.cross_entropy(self.out(h), y), state
                return self.out(h, y).loss, state

        self.m = LM()
        self.params = [p for p in self.m.parameters() if p.requires_grad]
        self.opt = torch.optim.SGD(self.params, lr=a.lr)
        g = torch.Generator().manual_seed(a.seed)
        n = B * (total * T + 1)
        if self.probs is None:    # B parallel streams
            self.stream = torch.randint(0, V, (B, total * T + 1), generator=g)
        else:
            self.stream = torch.multinomial(torch.tensor(self.probs, dtype=torch.float64), n,
                                            replacement=True, generator=g).view(B, -1)
        self.uni = torch.tensor(uniform_losses(V, off), dtype=torch.float64)
        zeros = torch.zeros(1, B, H)
        self.zero_state = (zeros, zeros.clone()) if a.model == "lstm" else zeros

    def window(self, i):
        T = self.a.bptt
        x = self.stream[:, i * T:(i + 1) * T].t().contiguous()           # (T, B), time-major
        y = self.stream[:, i * T + 1:(i + 1) * T + 1].t().reshape(-1)
        return x, y

    def uniform_loss(self, y):
        return float(self.uni[y].mean())

    def step(self, x, y, state):
        """One training step; the loss before the update and the state carried on."""
        if isinstance(state, tuple):
            state = tuple(s.detach() for s in state)
        else:
            state = state.detach()
        loss, state = self.m(x, state, y)
        self.opt.zero_grad(set_to_none=True)
        loss.backward()
        if self.a.clip > 0:
            self.torch.nn.utils.clip_grad_norm_(self.params, self.a.clip)
        self.opt.step()
        return loss.item(), state


def split_summary(a, s):
    off, C = s.off, a.classes
    sizes = [off[k + 1] - off[k] for k in range(C)]
    return (f"{C} classes over {a.vocab} Zipf ids (s {ZIPF_S:g}), RNNLM's equal-mass split: "
            f"head {off[1] + C - 1} logits ({off[1]} words + {C - 1} clusters), classes of "
            f"{min(sizes)} to {max(sizes)} words ({sum(1 for z in sizes if z == 1)} of 1), "
            f"{expected_class_size(s.probs, off):.0f} words per token's class on average")


CHECK_STEPS = 8        # SGD steps on one repeated window
CHECK_INIT_TOL = 0.3   # |first loss - a uniform predictor's|: small weights at init
CHECK_FALL = 1e-3      # each step's loss below the one before, the last at least this
                       # fraction below the first: SGD on one batch from one state must
                       # descend; random ids and equal-mass classes (nothing to learn but
                       # the window itself) make it slow at lr 1: 0.2% (LSTM-512, full
                       # softmax) to 0.6% (hidden 16, 5 classes) in 8 steps


def check(a):
    """--check: the model is wired as meant.  Its first loss is near a uniform predictor's
    on the same targets (ln V; with classes what the factorization gives), and training on
    one window over and over (from the same zero state) lowers the loss.  Exit 1 if not."""
    s = Setup(a, 1)
    if a.classes:
        print(split_summary(a, s))
    x, y = s.window(0)
    uni = s.uniform_loss(y)
    losses = [s.step(x, y, s.zero_state)[0] for _ in range(CHECK_STEPS)]
    print(f"check    loss at init {losses[0]:.4f} (a uniform predictor: {uni:.4f}); "
          f"{CHECK_STEPS} steps on one window: {' '.join(f'{v:.3f}' for v in losses)}")
    if not all(math.isfinite(v) for v in losses):
        die(1, "check failed: the loss is not finite (lower --lr)")
    if abs(losses[0] - uni) > CHECK_INIT_TOL:
        die(1, f"check failed: loss at init {losses[0]:.4f}, a uniform predictor's {uni:.4f} "
               f"(more than {CHECK_INIT_TOL} apart: the output layer is not wired as meant)")
    rising = [i for i in range(1, CHECK_STEPS) if not losses[i] < losses[i - 1]]
    if rising or not losses[-1] < (1 - CHECK_FALL) * losses[0]:
        die(1, f"check failed: the loss on a repeated window went {losses[0]:.4f} -> "
               f"{losses[-1]:.4f} in {CHECK_STEPS} steps" +
               (f", not falling at step {rising[0] + 1}" if rising else "") +
               f" (want it falling at every step, by {CHECK_FALL:.1%} of the first at least)")
    print("check    passed")
    return 0


def bench(a, coretype_row):
    import torch
    H, D, V, B, T = a.hidden, a.embed, a.vocab, a.batch, a.bptt
    total = a.warmup + a.steps
    s = Setup(a, total)
    if a.classes:
        print(split_summary(a, s))
    state = s.zero_state
    times, losses = [], []
    uni = s.uniform_loss(s.window(0)[1])
    for i in range(total):
        t0 = time.perf_counter()
        x, y = s.window(i)
        lv, state = s.step(x, y, state)
        dt = time.perf_counter() - t0
        if not math.isfinite(lv):
            die(1, f"the loss became {lv} at step {i + 1} (lower --lr)")
        losses.append(lv)
        if i >= a.warmup:
            times.append(dt)
    med = statistics.median(times)
    ours = model_step_flops(a.model, H, D, V, B, T, a.classes)
    flops = adaptive_step_flops(a.model, H, D, B, T, s.probs, s.off) if a.classes else ours
    core, nthr = openblas_info()
    if a.classes:
        inputs = f"Zipf ids (p ~ 1/rank^{ZIPF_S:g}), seed {a.seed}"
        output = f"adaptive_log_softmax (div_value 1, head {s.off[1] + a.classes - 1}, {a.classes - 1} tail clusters)"
    else:
        inputs, output = f"random ids, seed {a.seed}", "softmax"
    row = {"model": a.model, "layers": 1, "hidden": H, "embed": D, "vocab": V, "batch": B,
           "bptt": T, "threads": a.threads, "classes": a.classes, "gemm": "openblas",
           "steps": a.steps, "step_ms_median": med * 1e3, "step_ms_min": min(times) * 1e3,
           "step_ms_max": max(times) * 1e3, "tokens_per_s": B * T / med,
           "gflops": flops / med * 1e-9, "gflop_per_step": flops * 1e-9,
           "gflop_per_step_rnnscale": ours * 1e-9, "output": output,
           "loss_first": losses[0], "loss_last": losses[-1], "loss_uniform": uni,
           "peer": "pytorch", "peer_version": torch.__version__, "openblas_core": core,
           "openblas_threads": nthr,
           "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(unset)"),
           "inputs": inputs, "clip": a.clip, "lr": a.lr}
    row.update(coretype_row)
    return row


def main():
    if sys.argv[1:] == ["--probe-child"]:
        probe_child()
        return 0
    ap = argparse.ArgumentParser(
        prog="peer_torch.py",
        description="Time rnn-train --bench's training step (embedding, 1-layer LSTM or Elman, "
                    "full-softmax Linear or, with --classes, AdaptiveLogSoftmaxWithLoss, cross-entropy, "
                    "truncated BPTT, clipping, SGD) in PyTorch, "
                    "with OpenBLAS at the fastest core type that computes correctly on this CPU. "
                    "Run with /usr/bin/python3 (Debian's python3-torch; `make peers`).",
        epilog="Exit: 0 done, 1 the loss diverged, no OpenBLAS core type computed correctly or "
               "--check failed, 2 bad usage or input, 130 interrupted.")
    ap.add_argument("--model", default="lstm", help="lstm or elman [lstm]")
    ap.add_argument("--hidden", type=int, default=512, metavar="N", help="hidden units [512]")
    ap.add_argument("--embed", type=int, default=0, metavar="N", help="embedding width [= --hidden]")
    ap.add_argument("--batch", type=int, default=32, metavar="B", help="parallel streams per step [32]")
    ap.add_argument("--bptt", type=int, default=35, metavar="T", help="truncated-BPTT window, steps [35]")
    ap.add_argument("--vocab", type=int, default=10000, metavar="N", help="vocabulary size [10000]")
    ap.add_argument("--classes", type=int, default=0, metavar="C",
                    help="RNNLM's class softmax with C classes, as nn.AdaptiveLogSoftmaxWithLoss "
                         "on Zipf-distributed ids (see the docstring); 0 = full softmax [0]")
    ap.add_argument("--threads", type=int, default=0, metavar="N",
                    help="threads for PyTorch and OpenBLAS [all CPUs]")
    ap.add_argument("--steps", type=int, default=10, metavar="N", help="timed steps [10]")
    ap.add_argument("--warmup", type=int, default=2, metavar="N",
                    help="untimed steps first [2, as rnn-train --bench]")
    ap.add_argument("--lr", type=float, default=1.0, metavar="X", help="SGD learning rate [1]")
    ap.add_argument("--clip", type=float, default=5.0, metavar="X",
                    help="clip the global gradient norm at X, 0 = off [5]")
    ap.add_argument("--seed", type=int, default=1, metavar="N", help="weights and input ids [1]")
    ap.add_argument("--coretype", default="auto", metavar="WHAT",
                    help="OPENBLAS_CORETYPE: auto (probe, use the fastest correct), keep (the "
                         "environment's, no probe) or a core name (no probe) [auto]")
    ap.add_argument("--probe-cache", metavar="FILE",
                    help="keep the probe's results in FILE and reuse them while the CPU and "
                         "the environment's OPENBLAS_CORETYPE are the same")
    ap.add_argument("--probe-only", action="store_true", help="print the probe's table and exit")
    ap.add_argument("--csv", metavar="FILE", help="write the result row (never overwrites)")
    ap.add_argument("--check", action="store_true",
                    help="check the model instead of timing it: its first loss near a uniform "
                         "predictor's, and the loss falling over a few steps on one repeated "
                         "window (exit 1 if not)")

    def error(msg):   # argparse's own error: one line, exit 2
        die(2, f"{msg} (see --help)")
    ap.error = error
    a = ap.parse_args()
    if a.model not in ("lstm", "elman"):
        die(2, f"--model: unknown model '{a.model}' (expected lstm or elman)")
    for name in ("hidden", "batch", "bptt", "steps"):
        if getattr(a, name) < 1:
            die(2, f"--{name}: expected a positive integer, got {getattr(a, name)}")
    if a.vocab < 2:
        die(2, f"--vocab: expected at least 2, got {a.vocab}")
    if a.embed < 0 or a.threads < 0 or a.warmup < 0 or not 0 <= a.clip < math.inf or not 0 < a.lr < math.inf:
        die(2, "--embed, --threads, --warmup and --clip must be >= 0, --lr > 0 (and finite)")
    # AdaptiveLogSoftmaxWithLoss needs one cutoff at least (C >= 2), and each tail cluster
    # holds an H x H projection: refused past 1 GiB of them rather than swapping
    if a.classes != 0 and not 2 <= a.classes <= a.vocab:
        die(2, f"--classes: expected 0 (full softmax) or 2 to --vocab {a.vocab}, got {a.classes}")
    if a.classes and (a.classes - 1) * a.hidden * a.hidden * 4 > 1 << 30:
        die(2, f"--classes {a.classes} --hidden {a.hidden}: {a.classes - 1} tail projections of "
               f"{a.hidden}x{a.hidden} exceed 1 GiB (fewer classes or a smaller --hidden)")
    a.embed = a.embed or a.hidden
    a.threads = a.threads or len(os.sched_getaffinity(0))
    if a.csv and a.check:
        die(2, "--check writes no CSV: drop --csv")
    if a.csv:
        check_writable(a.csv)

    user = os.environ.get("OPENBLAS_CORETYPE")
    if a.coretype == "auto":
        rows, cached = run_probe(user, a.probe_cache)
        print_probe(rows, cached, a.probe_cache)
        val, lab, reason = pick(rows, user)
        if lab is None:
            die(1, "no OPENBLAS_CORETYPE candidate computed a correct matmul (see the table)")
        print(f"picked   {lab}: {reason}")
        summary = probe_summary(rows)
    elif a.coretype == "keep":
        val, reason, summary = user, "kept from the environment (--coretype keep; no probe)", ""
    else:
        val, reason, summary = a.coretype, "set by --coretype (no probe)", ""
    if a.probe_only:
        return 0
    # The variable is read when OpenBLAS loads, i.e. at `import torch` below.
    if val is None:
        os.environ.pop("OPENBLAS_CORETYPE", None)
    else:
        os.environ["OPENBLAS_CORETYPE"] = val
    os.environ["OPENBLAS_NUM_THREADS"] = str(a.threads)
    os.environ["OMP_NUM_THREADS"] = str(a.threads)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")   # read at `import torch` too
    coretype_row = {"openblas_coretype": val if val is not None else "(unset)",
                    "openblas_coretype_user": user if user is not None else "(unset)",
                    "coretype_reason": reason, "coretype_probe": summary}
    if a.check:
        return check(a)
    row = bench(a, coretype_row)
    print(f"\npeer     pytorch {row['peer_version']}, OpenBLAS core {row['openblas_core']} "
          f"(OPENBLAS_CORETYPE {row['openblas_coretype']}), {a.threads} threads; "
          f"{row['inputs']}; output layer {row['output']}")
    if a.classes:
        print(f"work     {row['gflop_per_step']:.3g} GFLOP per step here, {row['gflop_per_step_rnnscale']:.3g} "
              f"as rnn-train counts its class layer (H (C + V/C) per token, no tail projections)")
    cols = ["model", "hidden", "batch", "bptt", "vocab", "classes", "threads", "step_ms_median",
            "tokens_per_s", "gflops", "gflop_per_step", "loss_first", "loss_last"]
    vals = [f"{row[c]:.4g}" if isinstance(row[c], float) else str(row[c]) for c in cols]
    wid = [max(len(c), len(v)) for c, v in zip(cols, vals)]
    print("  ".join(c.rjust(w) for c, w in zip(cols, wid)))
    print("  ".join(v.rjust(w) for v, w in zip(vals, wid)))
    if a.csv:
        write_csv_atomic(a.csv, row)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted (nothing written)", file=sys.stderr)
        sys.exit(130)
