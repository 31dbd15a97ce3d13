"""What the runner's reads of ``/proc`` cost beside busy threads: freezing a worker (the device handover stops the
worker's processes before it takes its copy of an output) and checking its memory (every 0.5 s while the runner
waits for it), with ``/proc`` read by Python's own calls and by :func:`kernelgym.judge.process.read_proc` and
:func:`~kernelgym.judge.process.read_link` (the GIL held). CPU only, a few seconds to a minute.

    python benchmarks/proc_reads.py [--processes 150] [--fds 120] [--threads 0,1,2] [--rounds 10]

Starts ``--processes`` sleeping processes (a loaded host's ``/proc``: Ray's and the other workers' processes) and
one holding ``--fds`` open descriptors (a CUDA worker holds about that many), then for each number of threads that
run Python without pause (a pool's other evaluations) times, both ways, a freeze (``SIGSTOP`` to a process tree
found by scanning ``/proc``) with the thaw of what it stopped, and a memory check of the process with the
descriptors (:func:`~kernelgym.judge.process.descendants`, ``tree_usage`` and ``held_file_bytes``); prints medians.
"""

from __future__ import annotations

import argparse
import contextlib
import os
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


def python_readlink(path: str) -> str | None:
    """As before read_link: Python's own ``os.readlink``."""
    try:
        return os.readlink(path)
    except OSError:
        return None


@contextlib.contextmanager
def pythons_own_calls():
    with mock.patch.object(process, "read_proc", python_open), \
            mock.patch.object(process, "read_link", python_readlink):
        yield


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


def median_ms(run, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        run()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def freeze_thaw(root: int) -> None:
    """One freeze (signal_tree SIGSTOP) and the thaw of what it stopped."""
    process.signal_each(process.signal_tree(root, signal.SIGSTOP), signal.SIGCONT)


def memory_check(root: int) -> None:
    """The reads of one memory check of a worker (Session._check_memory, without its folders)."""
    pids = process.descendants(root)
    process.tree_usage(pids)
    process.held_file_bytes(pids)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", type=int, default=150)
    ap.add_argument("--fds", type=int, default=120, help="descriptors the checked process holds open")
    ap.add_argument("--threads", default="0,1,2", help="busy threads beside the freezing one, comma-separated")
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()
    sleepers = [subprocess.Popen(["sleep", "600"]) for _ in range(args.processes)]
    holder = subprocess.Popen([sys.executable, "-c", f"import time; fs = [open('/dev/null') for _ in range({args.fds})]; "
                               "print(flush=True); time.sleep(600)"], stdout=subprocess.PIPE)
    holder.stdout.readline()  # its descriptors are open
    sleepers.append(holder)
    try:
        root = sleepers[0].pid
        print(f"{len(process.live_processes())} processes in /proc; switch interval {sys.getswitchinterval()} s")
        for n in (int(x) for x in args.threads.split(",")):
            with busy_threads(n):
                with pythons_own_calls():
                    freeze_before = median_ms(lambda: freeze_thaw(root), args.rounds)
                    check_before = median_ms(lambda: memory_check(holder.pid), args.rounds)
                freeze_after = median_ms(lambda: freeze_thaw(root), args.rounds)
                check_after = median_ms(lambda: memory_check(holder.pid), args.rounds)
            print(f"{n} busy thread(s): freeze and thaw {freeze_before:9.2f} ms with Python's calls, "
                  f"{freeze_after:7.2f} ms GIL held; memory check {check_before:9.2f} ms with Python's calls, "
                  f"{check_after:7.2f} ms GIL held")
    finally:
        for p in sleepers:
            p.kill()
            p.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
