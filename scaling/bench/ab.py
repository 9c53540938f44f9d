#!/usr/bin/python3
"""ab.py — time a commit's binaries against the working tree's, interleaved.

    python3 scaling/bench/ab.py REF                  # the training-step set below
    python3 scaling/bench/ab.py REF -- rnn-train --model elman --bench 10 ...
    python3 scaling/bench/ab.py REF -- microbench softmax --quick   # wall time

REF (anything `git rev-parse` takes) is checked out with `git worktree` into
build/ab/<commit>/ and its binary built there; the working tree's (uncommitted changes
included) is built in build/.  Each round runs every configuration on both builds,
the order A-B in even rounds and B-A in odd ones, so a drift of the machine (a
neighbour, the clock) falls on both sides.  A configuration's figure is rnn-train
--bench's step_ms_median (from its --json) or, for any other command, the wall time of
the process.  Reported per configuration: each side's median over the rounds, and the
time ratio B/A (the working tree over REF: below 1 is faster) as the median of the
rounds' paired ratios with their range [min, max] and how many rounds B was faster, as
pyperf compare and Google Benchmark's compare.py report a change with its spread.  A
range that straddles 1 is no evidence of a change.

Every command is an argument vector (no shell); one A/B runs at a time (a second
waits: two on 2 cores would time each other).  Time on a quiet machine: pause a
background study first (kill -STOP), as a process of another session's autogroup
ignores nice.  Exit 0, 1 when a run failed, 2 on bad usage.
"""
import argparse
import fcntl
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# The training steps issue 40 names: LSTM-512 and Elman-512 on B 32, T 35, V 10k, full
# softmax and 100 classes; the scaling study's model (LSTM 128, 100 classes, T 35) at
# b = 80 and 800.  name, steps, args.
SHAPE512 = ["--hidden", "512", "--batch", "32", "--bptt", "35", "--vocab", "10000"]
STUDY = ["--model", "lstm", "--hidden", "128", "--classes", "100", "--bptt", "35", "--vocab", "10000"]
DEFAULT_SET = [
    ("lstm512_t1", 10, ["--model", "lstm", *SHAPE512, "--threads", "1"]),
    ("lstm512_t2", 10, ["--model", "lstm", *SHAPE512, "--threads", "2"]),
    ("lstm512_c100_t1", 10, ["--model", "lstm", *SHAPE512, "--classes", "100", "--threads", "1"]),
    ("lstm512_c100_t2", 10, ["--model", "lstm", *SHAPE512, "--classes", "100", "--threads", "2"]),
    ("elman512_t1", 10, ["--model", "elman", *SHAPE512, "--threads", "1"]),
    ("elman512_t2", 10, ["--model", "elman", *SHAPE512, "--threads", "2"]),
    ("study_b80_t1", 40, [*STUDY, "--batch", "80", "--threads", "1"]),
    ("study_b80_t2", 40, [*STUDY, "--batch", "80", "--threads", "2"]),
    ("study_b800_t1", 10, [*STUDY, "--batch", "800", "--threads", "1"]),
]
QUICK_SET = [
    ("lstm256_t1", 4, ["--model", "lstm", "--hidden", "256", "--batch", "16", "--bptt", "20",
                       "--vocab", "5000", "--threads", "1"]),
    ("study_b80_t1", 10, [*STUDY, "--batch", "80", "--threads", "1"]),
]


def die(msg, code=2):
    print(f"ab.py: {msg}", file=sys.stderr)
    sys.exit(code)


def git(*args):
    r = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True)
    if r.returncode != 0:
        die(f"git {' '.join(args)}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else 'failed'}")
    return r.stdout.strip()


def build(tree, binary, log):
    """make BINARY in tree; its output goes to log.  Exits 1 on a failed build."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    with open(log, "w") as f:   # a make of its own, not a job of a make that called us
        r = subprocess.run(["make", "-C", tree, f"-j{os.cpu_count() or 1}", f"build/bin/{binary}"],
                           stdout=f, stderr=subprocess.STDOUT, env=env)
    if r.returncode != 0:
        die(f"building {binary} in {tree} failed; see {log}", 1)
    return os.path.join(tree, "build", "bin", binary)


def ref_tree(ref):
    """The commit's worktree under build/ab/ (made once, kept for the next A/B)."""
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        die(f"REF '{ref}': not a commit of this repository (try a hash from git log, or HEAD~1)")
    sha = r.stdout.strip()
    tree = os.path.join(ROOT, "build", "ab", sha[:12])
    if not os.path.isdir(tree):
        os.makedirs(os.path.dirname(tree), exist_ok=True)
        git("worktree", "add", "--detach", tree, sha)
    return sha, tree


def run_once(exe, args, tmpdir, bench):
    """One run: its figure (ms; lower is better), or None when the run failed."""
    argv = [exe, *args]
    out = None
    if bench:
        out = os.path.join(tmpdir, "row.json")
        if os.path.exists(out):
            os.unlink(out)
        argv += ["--json", out]
    t0 = time.monotonic()
    r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = (time.monotonic() - t0) * 1e3
    if r.returncode != 0:
        last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit {r.returncode}"
        print(f"  {os.path.relpath(exe, ROOT)} failed: {last}", file=sys.stderr)
        return None
    if not bench:
        return wall
    with open(out) as f:
        return float(json.load(f)["rows"][0]["step_ms_median"])


def main():
    ap = argparse.ArgumentParser(
        prog="ab.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n", 1)[1],
        usage="ab.py [options] REF [-- BINARY ARGS...]",
        epilog="Example: python3 scaling/bench/ab.py HEAD~1 --rounds 5 --csv ab.csv")
    ap.add_argument("ref", metavar="REF", help="the commit to compare against (A)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds, each running A and B once [3]")
    ap.add_argument("--quick", action="store_true", help="two small configurations, for a smoke run")
    ap.add_argument("--only", metavar="NAMES", help="comma-separated configurations of the set")
    ap.add_argument("--csv", metavar="FILE", help="also write the table as CSV (refuses an existing FILE)")
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    o = ap.parse_args(argv[:cut])
    cmd = argv[cut + 1:]
    if "--" in argv and not cmd:
        die("nothing after '--': give BINARY ARGS..., e.g. -- rnn-train --model elman --bench 10")
    if o.rounds < 1:
        die(f"--rounds {o.rounds}: expected a whole number >= 1")
    if o.csv and os.path.lexists(o.csv):
        die(f"--csv {o.csv}: exists; name a new file (results are never overwritten)")
    if cmd:
        binary, args = os.path.basename(cmd[0]), cmd[1:]
        if not os.path.exists(os.path.join(ROOT, "build", "bin", binary)) and \
                binary not in ("rnn-train", "microbench", "allreduce-bench", "study"):
            die(f"'{cmd[0]}': not a program of build/bin (rnn-train, microbench, ...)")
        bench = binary == "rnn-train" and "--bench" in args
        configs = [("command", None, args)]
    else:
        binary, bench = "rnn-train", True
        configs = QUICK_SET if o.quick else DEFAULT_SET
        if o.only:
            want = o.only.split(",")
            unknown = [w for w in want if w not in [c[0] for c in configs]]
            if unknown:
                die(f"--only: no configuration '{unknown[0]}' (the set: {', '.join(c[0] for c in configs)})")
            configs = [c for c in configs if c[0] in want]

    os.makedirs(os.path.join(ROOT, "build", "ab"), exist_ok=True)
    # one A/B builds at a time: a second waits (two makes in one tree would race)
    lock = open(os.path.join(ROOT, "build", "ab", ".lock"), "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print("ab.py: another A/B is building or running; waiting for it", file=sys.stderr)
        fcntl.flock(lock, fcntl.LOCK_EX)
    sha, tree = ref_tree(o.ref)
    print(f"A: {sha[:12]} ({git('log', '-1', '--format=%s', sha)[:60]}), built in {os.path.relpath(tree, ROOT)}")
    exe_a = build(tree, binary, os.path.join(ROOT, "build", "ab", f"{sha[:12]}.log"))
    dirty = " with uncommitted changes" if git("status", "--porcelain", "--untracked-files=no") else ""
    print(f"B: the working tree ({git('rev-parse', '--short=12', 'HEAD')}{dirty}), built in build")
    exe_b = build(ROOT, binary, os.path.join(ROOT, "build", "ab", "working-tree.log"))

    times = {c[0]: ([], []) for c in configs}
    failed = False
    with tempfile.TemporaryDirectory(prefix="rnnscale-ab-") as tmpdir:
        for rnd in range(o.rounds):
            for name, steps, args in configs:
                full = args + (["--bench", str(steps)] if steps else [])
                sides = [(0, exe_a), (1, exe_b)] if rnd % 2 == 0 else [(1, exe_b), (0, exe_a)]
                got = {}
                for side, exe in sides:
                    got[side] = run_once(exe, full, tmpdir, bench)
                if got[0] is None or got[1] is None:
                    failed = True
                    continue
                times[name][0].append(got[0])
                times[name][1].append(got[1])
                print(f"  round {rnd + 1}/{o.rounds} {name}: A {got[0]:.1f} ms, B {got[1]:.1f} ms", flush=True)

    what = "step_ms_median" if bench else "wall_ms"
    cols = ["config", f"a_{what}", f"b_{what}", "ratio_b_over_a", "ratio_min", "ratio_max", "rounds",
            "rounds_b_faster"]
    rows = []
    for name, _, _ in configs:
        a, b = times[name]
        if not a:
            continue
        ratios = [y / x for x, y in zip(a, b)]
        rows.append([name, statistics.median(a), statistics.median(b), statistics.median(ratios),
                     min(ratios), max(ratios), len(ratios), sum(r < 1 for r in ratios)])
    print(f"\n{what}, median over rounds; B/A: the median of the rounds' paired ratios [min, max]")
    print(f"{'config':<18} {'A ms':>9} {'B ms':>9} {'B/A':>6}  {'range':<15} B faster")
    for r in rows:
        print(f"{r[0]:<18} {r[1]:9.1f} {r[2]:9.1f} {r[3]:6.3f}  [{r[4]:.3f}, {r[5]:.3f}]  {r[7]}/{r[6]}")
    if o.csv:
        tmp = f"{o.csv}.tmp.{os.getpid()}"
        with open(tmp, "w") as f:
            f.write(",".join(cols) + "\n")
            for r in rows:
                f.write(",".join(x if isinstance(x, str) else f"{x:.6g}" for x in r) + "\n")
        os.rename(tmp, o.csv)
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        die("interrupted; nothing written", 130)
