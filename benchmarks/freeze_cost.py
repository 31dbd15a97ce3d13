"""What freezing a worker costs the runner (the device handover stops the worker's processes before it takes its
copy of an output), beside busy threads, with ``/proc`` read by Python's ``open`` and by
:func:`kernelgym.judge.process.read_proc` (the GIL held). CPU only, a few seconds to a minute.

    python benchmarks/freeze_cost.py [--processes 150] [--threads 0,1,2] [--rounds 10]

Starts ``--processes`` sleeping processes (a loaded host's ``/proc``: Ray's and the other workers' processes), then
for each number of threads that run Python without pause (a pool's other evaluations) times a freeze (``SIGSTOP``
to a process tree found by scanning ``/proc``) and a thaw, both ways, and prints the median per freeze and thaw.
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelgym.judge import process  # noqa: E402


def python_open(path: str) -> str | None:
    """``/proc`` read as before read_proc: Python's own ``open``, which gives the GIL up for each call."""
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


@contextlib.contextmanager
def busy_threads(n: int):
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            sum(range(100))

    threads = [threading.Thread(target=spin, daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    try:
        yield
    finally:
        stop.set()
        for t in threads:
            t.join()


def freeze_thaw_ms(root: int, rounds: int) -> float:
    """Median ms of one freeze (signal_tree SIGSTOP) and the thaw of what it stopped."""
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        stopped = process.signal_tree(root, signal.SIGSTOP)
        process.signal_each(stopped, signal.SIGCONT)
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", type=int, default=150)
    ap.add_argument("--threads", default="0,1,2", help="busy threads beside the freezing one, comma-separated")
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    sleepers = [subprocess.Popen(["sleep", "600"]) for _ in range(args.processes)]
    try:
        root = sleepers[0].pid
        print(f"{len(process.live_processes())} processes in /proc; switch interval {sys.getswitchinterval()} s")
        for n in (int(x) for x in args.threads.split(",")):
            with busy_threads(n):
                with mock.patch.object(process, "read_proc", python_open):
                    before = freeze_thaw_ms(root, args.rounds)
                after = freeze_thaw_ms(root, args.rounds)
            print(f"{n} busy thread(s): freeze and thaw {before:9.2f} ms with Python's open, "
                  f"{after:7.2f} ms with read_proc (GIL held)")
    finally:
        for p in sleepers:
            p.kill()
            p.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
