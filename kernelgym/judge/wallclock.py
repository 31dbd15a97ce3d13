"""The runner's own clock on the candidate's timing: a check the worker cannot reach.

The candidate's kernel times are measured inside its worker, which the candidate shares; code that got past every
guard could rewrite them. The runner therefore times each block of candidate calls itself, from asking for the
block to receiving its times, and compares. A block's wall time per call is the kernel's time plus per-call
overhead (fresh inputs, the L2 flush, synchronisation, the pipe). The overhead is measured on the reference,
whose blocks run the same steps with inputs of the same shapes in the runner: wall per call minus its median; and,
where measured, on null calls run by the worker itself before its candidate loaded (:func:`null_overhead_ms`),
which the bound then uses.

The runner turns its clock into a lower bound on the candidate's time per call (:func:`lower_bound_ms`): its
fastest block's wall time per call, less that overhead, less a fixed allowance per block for the pipe
(:data:`IPC_ALLOWANCE_MS`, spread over the block's calls), divided by a relative slack (:data:`REL_SLACK`). Under
the activity method, whose figure is a call's device span, a null call's own synchronized time (its host latency)
is subtracted too (:meth:`kernelgym.judge.session.Session.check_wall_clock`). The
candidate's runtime is the larger of what its worker reported and this bound, so a rewritten timer gains at most
the slack; a report more than :data:`FACTOR` times below the bound is a lie and rejected, after
:data:`EXTRA_BLOCKS` more blocks (one scheduling hiccup cannot fail an honest kernel), where it stays so with the
median null block's overhead subtracted (:func:`rejection_overhead_ms`). The slack is relative,
not absolute: a fast kernel cannot claim to take no time at all. The runner also times each ``check`` (the answer
describing a compared call's output, :func:`check_lower_bound_ms`): work deferred from the timed calls to the
checks shows there, beyond :data:`CHECK_ALLOWANCE_MS`.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable

from kernelgym.judge.timing import prompt_gil

FACTOR = 3.0
#: the runner's clock may exceed the kernel's time by this factor (noise, launch gaps outside the events)
REL_SLACK = {"gpu": 1.25, "cpu": 2.0}
#: wall time of one block's request and reply through the pipe, allowed on top of the calls (ms)
IPC_ALLOWANCE_MS = {"gpu": 0.5, "cpu": 30.0}
EXTRA_BLOCKS = 2
#: blocks of null calls the worker runs before its candidate loads (:func:`null_overhead_ms`), after blocks run to
#: warm it up whose figures are not used: the first block of a fresh worker pays one-off costs (the first
#: allocations, the first launch of each of its kernels) that the candidate pays in its warm-up, outside its blocks.
#: (Until 2026-12-05 the worker warmed up inside the first command of each block, so the runner's clock on a block of
#: one call spanned two: on the H200 the null overhead came out 6.8 ms per call beside a candidate's whole call at
#: 3.7 ms, and the bound was zero in 121 of 128 rows of batch B at 074a7ed.) Four blocks: the other evaluations'
#: work on the GPU only ever adds to a block's time, and with two (after the warm-up, H100, batch B at ea9fd72) the
#: least of them was still 2-4 times the overhead the candidate's own blocks showed in a third of the rows.
NULL_BLOCKS = 4
NULL_WARMUP_BLOCKS = 1
#: blocks of null calls run again in the candidate's worker during the timing, each right before a candidate block
#: in one exclusive hold, where the bound (with the null calls' overhead from before the candidate loaded) would raise
#: the reported runtime (:func:`late_null_overhead_ms`)
LATE_NULL_BLOCKS = 2
#: the most the late null blocks' overhead may count, in multiples of the overhead measured before the candidate loaded
LATE_NULL_CAP = 2.0
#: wall time of answering ``check INDEX`` up to the header of the outputs (the worker only describes a snapshot it
#: took already), allowed before the answer counts as work the call should have done (ms)
CHECK_ALLOWANCE_MS = {"gpu": 50.0, "cpu": 200.0}


class BlockClock:
    """Wraps ``run_block(calls) -> times`` and records the times it returns and each block's wall time per call
    (ms), by this process's clock. ``untimed_ms``, given only for blocks run in this process (the reference's):
    the host time (ms) the last block spent on the judge's own instruments outside its calls (the activity
    method's recorder, :attr:`kernelgym.judge.timing.CallTimer.recorder_ms`), left out of its wall time, as the
    candidate's worker spends it outside its blocks."""

    def __init__(self, run_block: Callable[[int], list[float]], untimed_ms: Callable[[], float] | None = None,
                 scheduler: Callable[[], tuple[int, int] | None] | None = None):
        self.run_block = run_block
        self.untimed_ms = untimed_ms
        #: ``scheduler() -> (ran_ns, waited_ns)`` of the process that runs the blocks
        #: (:func:`kernelgym.judge.process.scheduler_ns`), read outside each block's wall time: per call, how long
        #: its threads ran and waited for a CPU (:attr:`cpu_per_call_ms`, :attr:`cpu_wait_per_call_ms`; recorded
        #: beside the bound, not used by it)
        self.scheduler = scheduler
        self.times: list[float] = []
        self.per_call_ms: list[float] = []
        self.calls: list[int] = []
        self.cpu_per_call_ms: list[float | None] = []
        self.cpu_wait_per_call_ms: list[float | None] = []

    def __call__(self, calls: int) -> list[float]:
        before = self.scheduler() if self.scheduler else None
        with prompt_gil():  # the answer's arrival, not the other threads' switch interval, ends the block
            started = time.perf_counter()
            times = self.run_block(calls)
            wall_ms = (time.perf_counter() - started) * 1e3 - (self.untimed_ms() if self.untimed_ms else 0.0)
        after = self.scheduler() if self.scheduler else None
        self.per_call_ms.append(wall_ms / max(calls, 1))
        self.calls.append(calls)
        self.times.extend(times)
        both = before is not None and after is not None
        for i, series in ((0, self.cpu_per_call_ms), (1, self.cpu_wait_per_call_ms)):
            series.append((after[i] - before[i]) / 1e6 / max(calls, 1) if both else None)
        return times

    def median_ms(self) -> float:
        return statistics.median(self.times)

    def _per_block(self, summary: Callable[[list[float]], float]) -> list[float]:
        """``summary`` of each block's times, in order (0 for a block without calls)."""
        out, start = [], 0
        for calls in self.calls:
            times = self.times[start:start + calls]
            start += calls
            out.append(summary(times) if times else 0.0)
        return out

    def block_medians(self) -> list[float]:
        """Each block's median time per call (of an even count, the upper of the middle two), in order."""
        return self._per_block(lambda times: sorted(times)[len(times) // 2])

    def block_means(self) -> list[float]:
        """Each block's mean time per call, in order (0 for a block without calls)."""
        return self._per_block(lambda times: sum(times) / len(times))

    def overhead_ms(self) -> float:
        """Per-call time outside the timed interval: the fastest block's wall per call minus the median."""
        return max(0.0, min(self.per_call_ms) - self.median_ms()) if self.per_call_ms else 0.0

    def fastest(self) -> tuple[float, int]:
        """The fastest block's wall time per call and its number of calls."""
        i = min(range(len(self.per_call_ms)), key=self.per_call_ms.__getitem__)
        return self.per_call_ms[i], self.calls[i]


def null_overhead_ms(walls_per_call_ms: list[float], medians_ms: list[float]) -> float:
    """The per-call overhead from blocks of null calls (ms, never negative): the least, over the blocks, of a
    block's wall time per call by the runner's clock less the median the worker timed inside its calls.

    A null call is a timed call whose forward only allocates outputs of the reference's shapes, run by the worker
    before its candidate loads, so its code is the judge's own; its other steps (inputs from a seed, the L2 flush,
    synchronisation, snapshots, scrubbing, the pipe) are the candidate's blocks' steps, in the same process and
    under the same host load (they share the GPU where the candidate's blocks hold it alone: GPU contention can
    only make this overhead larger, which lowers the bound). The least over blocks: a slow block is noise, and
    overhead over-counted only lowers the bound. Measured this way rather than only on the reference's blocks in
    the runner, whose per-call steps need the runner's interpreter lock, which a busy pool's other evaluations
    hold: under load the bound was zero in 58 of 64 rows of batch B at dd9beaa, with that overhead the suspected
    cause (not measured apart)."""
    return max(0.0, min(w - m for w, m in zip(walls_per_call_ms, medians_ms))) if walls_per_call_ms else 0.0


def rejection_overhead_ms(null_overheads_ms: list[float], least_ms: float) -> float:
    """The per-call overhead a *rejection* is judged with (ms): the median of the null blocks' overheads, never below
    ``least_ms`` (their least, which the bound that raises the runtime subtracts).

    The bound raises an honest kernel's runtime wherever its blocks' per-call overhead exceeds the least null
    block's, and rejects it where the excess passes :data:`FACTOR` times its time: on the H100 at aca670b, L2/70's
    honest attention (0.41 ms per call) was rejected, its fastest block at 7.51 ms per call against null blocks of
    5.19, 7.08, 38.8 and 7.86 (the host's speed drifts by tens of percent between the compile stage and the timing
    window; docs/BENCHMARKS.md, thirty-eighth session). A rejection therefore has to hold with the typical null
    block's overhead too; the raise keeps the least. The null blocks run before the candidate loads, so no code of
    its can move this figure; a worker whose report is more than the factor below the bound and within it under this
    overhead gets the bound as its runtime, not a rejection."""
    return max(least_ms, statistics.median(null_overheads_ms)) if null_overheads_ms else least_ms


def late_null_overhead_ms(late_ms: float | None, early_ms: float) -> float:
    """The per-call overhead the bound subtracts once null blocks ran again during the timing (ms): their least
    block's (``late_ms``; ``None`` where none ran), never below ``early_ms`` (the least of those run before the
    candidate loaded) and never above :data:`LATE_NULL_CAP` times it.

    The host's speed drifts: on the H100 the same null calls in one process moved by 25-40% within seconds, both
    ways, and every host step of a call moved together (docs/BENCHMARKS.md, thirty-eighth session). Null blocks run
    in the compile stage then miss what the candidate's blocks pay in the timing window, and the bound raised honest
    runtimes (8 of 69 solutions at 272e5ab, X/1 by 3.27). Null blocks run right before candidate blocks, in the same
    process and the same exclusive hold, pay what they pay. They run after the candidate loaded, so its code could
    slow them (which lowers the bound): the worker refuses to start a timed call while a thread of the candidate's
    runs Python or a signal handler of its is set, every frame carries the integrity flags (a flag there is the
    candidate's rejection), and whatever else it manages counts at most the cap."""
    if late_ms is None:
        return early_ms
    return max(early_ms, min(late_ms, LATE_NULL_CAP * early_ms))


def lower_bound_ms(fastest_wall_per_call_ms: float, overhead_ms: float, calls: int, on_gpu: bool) -> float:
    """The least time per call the runner's clock allows for the candidate (ms, never negative)."""
    kind = "gpu" if on_gpu else "cpu"
    implied = fastest_wall_per_call_ms - overhead_ms - IPC_ALLOWANCE_MS[kind] / max(calls, 1)
    return max(0.0, implied / REL_SLACK[kind])


def check_lower_bound_ms(fastest_check_ms: float, on_gpu: bool) -> float:
    """The least time per call that the fastest ``check`` answer allows (ms, never negative). A timed call's output
    is snapshotted right after the call, so describing it costs next to nothing; a worker whose code was changed to
    do the call's work only when one of its outputs is asked for (in the check, outside every timed block) spends
    that work here, and cannot know which calls will be asked for, so it spends it in every check."""
    kind = "gpu" if on_gpu else "cpu"
    return max(0.0, (fastest_check_ms - CHECK_ALLOWANCE_MS[kind]) / REL_SLACK[kind])


def mismatch(reported_median_ms: float, bound_ms: float, what: str = "each call took") -> str:
    """A reason when the reported median is more than :data:`FACTOR` times below the runner's bound, else ``""``."""
    if FACTOR * reported_median_ms >= bound_ms:
        return ""
    return (f"the worker reported {reported_median_ms:.3g} ms per call, but by the judge's clock {what} at least "
            f"{bound_ms:.3g} ms")


#: the most step names a worker's ``step_ms`` may hold (:func:`step_report`)
MAX_STEPS = 16


def step_report(steps) -> dict[str, float] | None:
    """A worker's per-step host times of a timed block (``step_ms`` of its ``timing`` frame:
    :attr:`kernelgym.judge.timing.CallTimer.step_ms`) as a diagnostic the result may carry, or ``None`` where it is
    not a small mapping of short names to finite non-negative numbers. The worker runs the candidate's code, so these
    figures are its word only: reported, never judged by."""
    if not isinstance(steps, dict) or len(steps) > MAX_STEPS:
        return None
    out = {}
    for name, value in steps.items():
        if not isinstance(name, str) or len(name) > 32 or isinstance(value, bool) or \
                not isinstance(value, (int, float)) or not 0 <= value < float("inf"):
            return None
        out[name] = round(float(value), 4)
    return out

