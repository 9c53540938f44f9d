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

Exit: 0 done, 1 the loss diverged or no core type computed correctly, 2 bad usage or
input (one line on stderr), 130 interrupted.  --csv never overwrites a file and never
leaves a partial one.
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
            "tokens_per_s", "gflops", "gflop_per_step", "loss_first", "loss_last", "peer",
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


# ---- the benchmark --------------------------------------------------------------------------

def model_step_flops(cell, hidden, embed, vocab, batch, bptt):
    """models/model.c's model_step_flops: the GEMMs of forward and backward."""
    n = bptt * batch
    g = (4 if cell == "lstm" else 1) * hidden
    return 6.0 * n * g * (embed + hidden) + 6.0 * n * hidden * vocab


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


def bench(a, coretype_row):
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    H, D, V, B, T = a.hidden, a.embed, a.vocab, a.batch, a.bptt

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(V, D)
            if a.model == "lstm":
                self.rnn = nn.LSTM(D, H)
            else:
                self.rnn = nn.RNN(D, H, nonlinearity="tanh")
            self.out = nn.Linear(H, V)
            # rnnscale's initial values (model_init_params): embedding and output weights
            # uniform +-0.1, recurrent weights +-1/sqrt(H), biases 0, LSTM forget gate 1.
            with torch.no_grad():
                self.emb.weight.uniform_(-0.1, 0.1)
                self.out.weight.uniform_(-0.1, 0.1)
                self.out.bias.zero_()
                r = 1.0 / math.sqrt(H)
                self.rnn.weight_ih_l0.uniform_(-r, r)
                self.rnn.weight_hh_l0.uniform_(-r, r)
                self.rnn.bias_ih_l0.zero_()
                if a.model == "lstm":
                    self.rnn.bias_ih_l0[H:2 * H] = 1.0
                self.rnn.bias_hh_l0.zero_()
            self.rnn.bias_hh_l0.requires_grad_(False)   # one bias per layer, as rnnscale

        def forward(self, x, state):
            y, state = self.rnn(self.emb(x), state)
            return self.out(y.reshape(-1, H)), state

    m = LM()
    params = [p for p in m.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=a.lr)
    total = a.warmup + a.steps
    g = torch.Generator().manual_seed(a.seed)
    stream = torch.randint(0, V, (B, total * T + 1), generator=g)   # B parallel streams
    zeros = torch.zeros(1, B, H)
    state = (zeros, zeros.clone()) if a.model == "lstm" else zeros
    times, losses = [], []
    for i in range(total):
        t0 = time.perf_counter()
        x = stream[:, i * T:(i + 1) * T].t().contiguous()           # (T, B), time-major
        y = stream[:, i * T + 1:(i + 1) * T + 1].t().reshape(-1)
        state = tuple(s.detach() for s in state) if a.model == "lstm" else state.detach()
        logits, state = m(x, state)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if a.clip > 0:
            torch.nn.utils.clip_grad_norm_(params, a.clip)
        opt.step()
        lv = loss.item()
        dt = time.perf_counter() - t0
        if not math.isfinite(lv):
            die(1, f"the loss became {lv} at step {i + 1} (lower --lr)")
        losses.append(lv)
        if i >= a.warmup:
            times.append(dt)
    med = statistics.median(times)
    flops = model_step_flops(a.model, H, D, V, B, T)
    core, nthr = openblas_info()
    row = {"model": a.model, "layers": 1, "hidden": H, "embed": D, "vocab": V, "batch": B,
           "bptt": T, "threads": a.threads, "classes": 0, "gemm": "openblas", "steps": a.steps,
           "step_ms_median": med * 1e3, "step_ms_min": min(times) * 1e3,
           "step_ms_max": max(times) * 1e3, "tokens_per_s": B * T / med,
           "gflops": flops / med * 1e-9, "gflop_per_step": flops * 1e-9,
           "loss_first": losses[0], "loss_last": losses[-1], "peer": "pytorch",
           "peer_version": torch.__version__, "openblas_core": core, "openblas_threads": nthr,
           "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", "(unset)"),
           "inputs": f"random ids, seed {a.seed}", "clip": a.clip, "lr": a.lr}
    row.update(coretype_row)
    return row


def main():
    if sys.argv[1:] == ["--probe-child"]:
        probe_child()
        return 0
    ap = argparse.ArgumentParser(
        prog="peer_torch.py",
        description="Time rnn-train --bench's training step (embedding, 1-layer LSTM or Elman, "
                    "full-softmax Linear, cross-entropy, truncated BPTT, clipping, SGD) in PyTorch, "
                    "with OpenBLAS at the fastest core type that computes correctly on this CPU. "
                    "Run with /usr/bin/python3 (Debian's python3-torch; `make peers`).",
        epilog="Exit: 0 done, 1 the loss diverged or no OpenBLAS core type computed correctly, "
               "2 bad usage or input, 130 interrupted.")
    ap.add_argument("--model", default="lstm", help="lstm or elman [lstm]")
    ap.add_argument("--hidden", type=int, default=512, metavar="N", help="hidden units [512]")
    ap.add_argument("--embed", type=int, default=0, metavar="N", help="embedding width [= --hidden]")
    ap.add_argument("--batch", type=int, default=32, metavar="B", help="parallel streams per step [32]")
    ap.add_argument("--bptt", type=int, default=35, metavar="T", help="truncated-BPTT window, steps [35]")
    ap.add_argument("--vocab", type=int, default=10000, metavar="N", help="vocabulary size [10000]")
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
    if a.embed < 0 or a.threads < 0 or a.warmup < 0 or a.clip < 0 or not a.lr > 0:
        die(2, "--embed, --threads, --warmup and --clip must be >= 0, --lr > 0")
    a.embed = a.embed or a.hidden
    a.threads = a.threads or len(os.sched_getaffinity(0))
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
    row = bench(a, coretype_row)
    print(f"\npeer     pytorch {row['peer_version']}, OpenBLAS core {row['openblas_core']} "
          f"(OPENBLAS_CORETYPE {row['openblas_coretype']}), {a.threads} threads; "
          f"random input ids, seed {a.seed}")
    cols = ["model", "hidden", "batch", "bptt", "vocab", "threads", "step_ms_median",
            "tokens_per_s", "gflops", "loss_first", "loss_last"]
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
