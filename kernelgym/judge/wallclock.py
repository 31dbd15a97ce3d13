"""The runner's own clock on the candidate's timing: a check the worker cannot reach.

The candidate's kernel times are measured inside its worker, which the candidate shares; code that got past every
guard could rewrite them. The runner therefore times each block of candidate calls itself, from asking for the
block to receiving its times, and compares. A block's wall time per call is the kernel's time plus per-call
overhead (fresh inputs, the L2 flush, synchronisation, the pipe). The overhead is measured on the reference,
whose blocks run the same steps with inputs of the same shapes in the runner: wall per call minus its median.

A candidate is suspect when even its fastest block, less that overhead, took more than :data:`FACTOR` times the
reported median plus a slack (:data:`SLACK_MS`: generous on the CPU, where the interpreter and a shared machine
make wall clocks noisy). Under-reporting by more than about 3x is caught for kernels of a millisecond or more on a
GPU; honest candidates have the reference's overhead and pass. Before rejecting, the judge asks for
:data:`EXTRA_BLOCKS` more blocks, so one scheduling hiccup cannot fail an honest kernel.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable

FACTOR = 3.0
SLACK_MS = {"gpu": 1.0, "cpu": 50.0}
EXTRA_BLOCKS = 2


class BlockClock:
    """Wraps ``run_block(calls) -> times`` and records the times it returns and each block's wall time per call
    (ms), by this process's clock."""

    def __init__(self, run_block: Callable[[int], list[float]]):
        self.run_block = run_block
        self.times: list[float] = []
        self.per_call_ms: list[float] = []

    def __call__(self, calls: int) -> list[float]:
        started = time.perf_counter()
        times = self.run_block(calls)
        self.per_call_ms.append((time.perf_counter() - started) * 1e3 / max(calls, 1))
        self.times.extend(times)
        return times

    def median_ms(self) -> float:
        return statistics.median(self.times)

    def overhead_ms(self) -> float:
        """Per-call time outside the timed interval: the fastest block's wall per call minus the median."""
        return max(0.0, min(self.per_call_ms) - self.median_ms()) if self.per_call_ms else 0.0


def mismatch(reported_median_ms: float, fastest_wall_per_call_ms: float, overhead_ms: float, on_gpu: bool) -> str:
    """A reason when the reported median is implausibly small for the wall time the calls took, else ``""``."""
    implied = fastest_wall_per_call_ms - overhead_ms
    slack = SLACK_MS["gpu" if on_gpu else "cpu"]
    if implied <= FACTOR * reported_median_ms + slack:
        return ""
    return (f"the worker reported {reported_median_ms:.3g} ms per call, but by the judge's clock each call took "
            f"{implied:.3g} ms beyond the measured per-call overhead ({overhead_ms:.3g} ms)")
