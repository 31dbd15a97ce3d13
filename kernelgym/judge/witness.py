"""A witness: a second worker of the evaluation's task that never receives a candidate, timing null calls in the
timing window itself, beside the candidate's blocks.

The runner's wall-clock bound on the candidate's time per call (:mod:`kernelgym.judge.wallclock`) subtracts a
per-call overhead: the judge's own steps around each timed call (fresh inputs, the L2 flush, synchronisation,
snapshots, the pipe). Measured on null calls in the candidate's worker before its candidate loads, that overhead
comes from another window than the candidate's blocks: the compile stage, the GPU shared, another host load. On
an H100 the worker's per-call steps then ran up to 1.8 times slower in the timing window than in the null blocks,
and the bound raised 11-12 honest rows of 69 by up to 2.9x (docs/BENCHMARKS.md, thirty-fifth session).

The witness measures the same steps in the candidate's window: right before a candidate block, under the same
exclusive hold of the GPU and with the candidate's worker stopped, the witness runs a block of as many null calls,
by the runner's clock (:data:`~kernelgym.judge.wallclock.NULL_WARMUP_BLOCKS` uncounted, then
:data:`WITNESS_BLOCKS`). The bound is then also taken in that window: the fastest of the candidate blocks that had
a witness block before them, less the witness's overhead; the runner keeps the lower of that and the bound from the
null calls (each is a lower bound on the candidate's time where its overhead is right). In mode ``always`` the
witness starts with the evaluation and runs before the candidate's first blocks; in mode ``lazy`` it is started only
where the bound from the null calls would raise the candidate's runtime (above :data:`WITNESS_TRIGGER` of its
synchronized median) or reject it, and its blocks run before as many more candidate blocks: most evaluations never
pay for one (11-12 of 69 solutions were raised on the H100).

The witness runs only the judge's code and the task's own module (it obeys ``null`` alone; ``go`` ends it), so
nothing the candidate wrote runs in it, and nothing can slow it on purpose except through the machine they share:
work the candidate left queued on the GPU, or processes it left running (the worker is stopped, and its CPU while
idle is judged). The overhead taken from it therefore counts at most :data:`WITNESS_CAP` times the overhead measured
before the candidate loaded (:func:`witness_overhead_ms`).

A witness that fails (it died, answered late or wrongly, its GPU memory ran out) is dropped and the bound uses the
null calls' figure, as without one: the failure is the judge's, recorded beside the bound, never the candidate's
verdict.
"""

from __future__ import annotations

import os
import time

from kernelgym.judge.verdict import Verdict
from kernelgym.judge.wallclock import NULL_WARMUP_BLOCKS, BlockClock, null_overhead_ms

#: blocks the witness runs and counts (each before one of the candidate's timed blocks, after the uncounted
#: warm-up ones): four, as the null blocks before the candidate loads
WITNESS_BLOCKS = 4
#: the witness's overhead counts at most this many times the null calls' overhead measured before the candidate
#: loaded (the largest ratio of the candidate's in-window overhead to that figure over 196 rows on the H100 was 1.80)
WITNESS_CAP = 2.0
#: seconds the witness has to answer one null block (its calls are the judge's own: fast)
WITNESS_BLOCK_LIMIT_S = 60.0
#: seconds the witness has to say it is ready (waited for off every GPU hold)
WITNESS_READY_LIMIT_S = 120.0
#: seconds a witness started late (``lazy``) waits for its GPU memory before the evaluation goes on without it
WITNESS_MEMORY_WAIT_S = 30.0
#: ``lazy``: a witness is called where the bound, from the null calls' overhead, comes above this share of the
#: candidate's synchronized median (where it raises the runtime, or nearly: the activity method's figure is lower)
WITNESS_TRIGGER = 0.75
#: the environment switch (:func:`mode_from_env`)
ENV = "KERNELGYM_WITNESS"
#: ``off``: none; ``lazy``: one started only where the bound would raise the candidate's runtime or reject it, its
#: blocks interleaved with as many more candidate blocks; ``always``: one started with every evaluation, its blocks
#: before the candidate's first ones
MODES = ("off", "lazy", "always")
DEFAULT_MODE = "off"


def mode_from(value) -> str:
    """A witness mode from a judge's argument: one of :data:`MODES`, ``True`` (``lazy``), ``False`` (``off``), or
    ``None`` (:func:`mode_from_env`). Anything else is an error, said plainly."""
    if value is None:
        return mode_from_env()
    if value is True:
        return "lazy"
    if value is False:
        return "off"
    if value in MODES:
        return value
    raise ValueError(f"witness must be one of {', '.join(MODES)} (or a bool), not {value!r}")


def mode_from_env() -> str:
    """The mode :data:`ENV` asks for: one of :data:`MODES`, ``1`` (``lazy``) or ``0`` (``off``); unset:
    :data:`DEFAULT_MODE`. Any other value is an error, said plainly."""
    value = os.environ.get(ENV, "").strip().lower()
    if not value:
        return DEFAULT_MODE
    if value in MODES:
        return value
    if value in ("1", "0"):
        return "lazy" if value == "1" else "off"
    raise ValueError(f"{ENV} must be one of {', '.join(MODES)}, 1 or 0, not {value!r}")


def witness_overhead_ms(witness_ms: float | None, null_ms: float | None) -> float | None:
    """The overhead the bound subtracts where a witness measured ``witness_ms`` in the timing window: that figure,
    capped at :data:`WITNESS_CAP` times ``null_ms`` (the null calls' before the candidate loaded) where that is
    known; ``None`` where the witness measured nothing."""
    if witness_ms is None:
        return None
    if null_ms is None:
        return witness_ms
    return min(witness_ms, WITNESS_CAP * null_ms)


class Witness:
    """The runner's side of one witness: a :class:`~kernelgym.judge.session.Session` over a worker that was given
    the evaluation's task and no candidate (``session``), and the runner's clock on its null blocks.

    :meth:`block` runs one null block of ``calls`` calls (the specs of the reference's outputs as the candidate's
    null blocks had them) and records its wall time per call and its median; :meth:`overhead_ms` is the least
    counted block's wall less median (:func:`~kernelgym.judge.wallclock.null_overhead_ms`). Any failure drops the
    witness (:attr:`failure` says why); it then does nothing more."""

    def __init__(self, session):
        self.session = session
        self.clock = BlockClock(self._null_block)
        self.failure: str | None = None
        self.specs: str | None = None
        self._ready = False

    def _null_block(self, calls: int) -> list[float]:
        return self.session.null_block(calls, self.specs)

    @property
    def wanted(self) -> bool:
        """Whether the next candidate block should have a witness block before it."""
        return self.failure is None and self.specs is not None and \
            len(self.clock.per_call_ms) < NULL_WARMUP_BLOCKS + WITNESS_BLOCKS

    def _within(self, seconds: float) -> None:
        """The witness's deadlines ``seconds`` from now (its session's stage limits are not the candidate's)."""
        self.session.deadline = self.session.total_deadline = time.monotonic() + seconds

    def wait_ready(self) -> None:
        """Wait (up to :data:`WITNESS_READY_LIMIT_S`) for the witness's ``ready``, before the timing window takes the
        GPU: a witness still starting never holds up the candidate's exclusive hold. A failure drops it."""
        if self.failure is not None or self._ready:
            return
        try:
            self._within(WITNESS_READY_LIMIT_S)
            self.session.expect_ready()
            self._ready = True
        except Verdict as verdict:
            self.fail(f"{verdict.status}: {verdict.message}")
        except Exception as exc:  # noqa: BLE001 - the witness's failure is the judge's, never the candidate's
            self.fail(f"{type(exc).__name__}: {exc}")

    def block(self, calls: int) -> bool:
        """One null block of ``calls`` calls on the witness, by the runner's clock; a failure drops the witness.
        Nothing where :meth:`wait_ready` has not seen it ready. Whether the block ran and is one of the counted
        ones (past the warm-up)."""
        if not self.wanted:
            return False
        if not self._ready:
            self.fail("not ready when its blocks were due")
            return False
        try:
            self._within(WITNESS_BLOCK_LIMIT_S)
            self.clock(calls)
        except Verdict as verdict:
            self.fail(f"{verdict.status}: {verdict.message}")
            return False
        except Exception as exc:  # noqa: BLE001 - the witness's failure is the judge's, never the candidate's
            self.fail(f"{type(exc).__name__}: {exc}")
            return False
        return len(self.clock.per_call_ms) > NULL_WARMUP_BLOCKS

    def fail(self, why: str) -> None:
        """Drop the witness: its figures are not used, its process is killed."""
        self.failure = why[:300]
        self.kill()

    def overhead_ms(self) -> float | None:
        """The least counted block's per-call overhead (ms), or ``None`` where fewer than two blocks were counted
        or the witness failed."""
        if self.failure is not None:
            return None
        walls = self.clock.per_call_ms[NULL_WARMUP_BLOCKS:]
        if len(walls) < 2:
            return None
        medians = self._medians()[NULL_WARMUP_BLOCKS:]
        return null_overhead_ms(walls, medians)

    def overheads_ms(self) -> list[float]:
        """Each counted block's wall per call less its median (ms)."""
        walls = self.clock.per_call_ms[NULL_WARMUP_BLOCKS:]
        return [round(w - m, 4) for w, m in zip(walls, self._medians()[NULL_WARMUP_BLOCKS:])]

    def _medians(self) -> list[float]:
        medians, start = [], 0
        for calls in self.clock.calls:
            chunk = sorted(self.clock.times[start:start + calls])
            medians.append(chunk[calls // 2])
            start += calls
        return medians

    def report(self) -> dict:
        """What the witness measured, for the result's ``runtime_spread`` (diagnostics beside the bound)."""
        return {"witness_overhead_ms": self.overhead_ms(), "witness_overheads_ms": self.overheads_ms(),
                "witness_block_walls_ms": [round(w, 4) for w in self.clock.per_call_ms],
                "witness_failure": self.failure}

    def kill(self) -> None:
        """Kill the witness's processes (idempotent); its scratch goes with :meth:`discard`."""
        self.session.worker.kill()

    def discard(self) -> None:
        """After :meth:`kill`: its scratch folders removed."""
        self.session.worker.kill()
        self.session.worker.discard()
