#!/usr/bin/env python3
"""tcpring.py — what the namespace cluster's links give without MPI: each host sends
BYTES to the next host of a ring while it receives BYTES from the one before, over
plain blocking TCP sockets (no busy polling), and prints each host's rate.

    python3 scaling/net/tcpring.py [--hosts H] [--bytes N] [--rounds R]

Run as root with the cluster up (netcluster.sh up --hosts H): it starts one process a
host inside that host's namespace (ip netns exec rsnK), each one given its settings as
arguments, none as shell text.  The median over R rounds of the slowest host's time is
the ring's time for that message; set beside allreduce-bench's ring under mpirun it
separates what the network does from what the ranks' CPU does."""
import argparse
import socket
import statistics
import subprocess
import sys
import threading
import time

PORT = 17771


def run_rank(rank, hosts, nbytes, rounds):
    nxt = f"10.77.0.{rank % hosts + 1}"
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((f"10.77.0.{rank}", PORT))
    srv.listen(1)
    out = None
    for _ in range(200):   # the next host may not listen yet
        try:
            out = socket.create_connection((nxt, PORT), timeout=10)
            break
        except OSError:
            time.sleep(0.05)
    if out is None:
        sys.exit(f"tcpring: host {rank}: cannot connect to {nxt}:{PORT}")
    inp, _ = srv.accept()
    buf = bytearray(nbytes)
    times = []
    for _ in range(rounds):
        # a token around the ring: every host starts within one hop's latency
        if rank == 1:
            out.sendall(b"t")
            inp.recv(1)
        else:
            inp.recv(1)
            out.sendall(b"t")
        t0 = time.perf_counter()
        sender = threading.Thread(target=out.sendall, args=(buf,))
        sender.start()
        got, view = 0, memoryview(bytearray(1 << 20))
        while got < nbytes:
            k = inp.recv_into(view, min(len(view), nbytes - got))
            if k == 0:
                sys.exit(f"tcpring: host {rank}: the previous host closed early")
            got += k
        sender.join()
        times.append(time.perf_counter() - t0)
    print(f"{rank} {statistics.median(times):.6f} {min(times):.6f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hosts", type=int, default=4)
    ap.add_argument("--bytes", type=int, default=4 << 20)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--rank", type=int, default=0, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if not (2 <= a.hosts <= 16) or a.bytes < 1 or a.rounds < 1:
        ap.error("expected 2 <= --hosts <= 16, --bytes >= 1, --rounds >= 1")
    if a.rank:
        run_rank(a.rank, a.hosts, a.bytes, a.rounds)
        return
    procs = [subprocess.Popen(["ip", "netns", "exec", f"rsn{k}", sys.executable, __file__, "--rank", str(k),
                               "--hosts", str(a.hosts), "--bytes", str(a.bytes), "--rounds", str(a.rounds)],
                              stdout=subprocess.PIPE, text=True) for k in range(1, a.hosts + 1)]
    rows = []
    for p in procs:
        out, _ = p.communicate(timeout=600)
        if p.returncode != 0:
            sys.exit(f"tcpring: a host failed (exit {p.returncode}); is the cluster up with --hosts {a.hosts}?")
        rows.append([float(x) for x in out.split()[1:]])
    slowest = max(r[0] for r in rows)
    print(f"tcpring: {a.hosts} hosts, {a.bytes} bytes each way: median of the slowest host "
          f"{slowest * 1e3:.2f} ms, {a.bytes / slowest / 1e6:.2f} MB/s each way")


if __name__ == "__main__":
    main()
