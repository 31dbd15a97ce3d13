"""What a busy thread does to a timed call that waits with the GIL released, with and without the judge's
short switch interval (:func:`kernelgym.judge.timing.quiet_for_timing`). CPU only, a few seconds.

    python benchmarks/gil_handoff.py [--wait-ms 2] [--calls 50]

The timed call sleeps (the GIL released, as ``torch.cuda.synchronize`` releases it while the GPU works) beside one
thread that runs Python without pause, as the runner's other evaluations do. Prints the median and worst measured
time per call three ways (the default interval, :func:`quiet_for_timing` of a timed block, and
:func:`prompt_gil` of the runner's clock on a worker's block), and how far the busy thread got in each: what the
short interval costs the other threads.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelgym.judge.timing import prompt_gil, quiet_for_timing  # noqa: E402


def timed_waits(wait_s: float, calls: int) -> list[float]:
    out = []
    for _ in range(calls):
        t0 = time.perf_counter()
        time.sleep(wait_s)
        out.append((time.perf_counter() - t0) * 1e3)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wait-ms", type=float, default=2.0, help="how long each timed call waits, GIL released")
    ap.add_argument("--calls", type=int, default=50, help="timed calls per measurement")
    args = ap.parse_args()
    stop = threading.Event()
    progress = [0]

    def busy():
        while not stop.is_set():
            progress[0] += 1

    thread = threading.Thread(target=busy, daemon=True)
    thread.start()
    rows = []
    try:
        for name, context in (("default switch interval", contextlib.nullcontext), ("quiet_for_timing", quiet_for_timing),
                              ("prompt_gil", prompt_gil)):
            with context():
                before, started = progress[0], time.perf_counter()
                times = timed_waits(args.wait_ms / 1e3, args.calls)
                rate = (progress[0] - before) / (time.perf_counter() - started)
            rows.append((name, times, rate))
    finally:
        stop.set()
        thread.join()
    for name, times, rate in rows:
        print(f"{name:<24} median {statistics.median(times):.2f} ms, worst {max(times):.2f} ms "
              f"(the call waits {args.wait_ms:.2f} ms); the busy thread: {rate / 1e6:.2f} M steps/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
