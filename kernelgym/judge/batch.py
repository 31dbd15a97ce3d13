"""Paying for the reference once per batch: evaluations of one task in one batch (the GRPO shape, many samples of one
prompt) share a :class:`BatchPlan`.

Under a profile with ``batch_baseline`` (``quick``), they also share the eager reference's timing: the first
evaluation of the batch to time the reference (interleaved with its candidate, then confirmed in a block timed with
the candidate's worker dead, :meth:`kernelgym.judge.runner.Judge._confirm_baseline`) offers its figure, and the
evaluations that start timing after that use it instead of timing the reference again. The 16 samples of a GRPO
prompt then pay for one eager measurement, and their speedups share one denominator. A candidate can have slowed the
figure it was timed beside by at most the profile's CI target unseen (the confirmation), and that figure is then
its batch-mates' too: only a figure whose 95% CI is within that target is offered.

A plan draws, once and from the OS, the model's init seed and the secret seeds of the correctness trials, the
profiled forward and the rechecks after timing (by kind and index), and keeps the reference's outputs for them,
computed the first time a session asks and then served to every later evaluation of the batch. Timed calls still
get fresh seeds per block, so they cost a reference forward per checked call as before.

What sharing seeds does not open: candidates never see one another's inputs or outputs — each runs in its own
sandboxed worker with a private ``/tmp``, scratch and transfer folder, every tensor a worker releases is scrubbed,
and a candidate that learned the trials' outputs from anywhere would still be caught by the timed calls it is
compared on, whose inputs no earlier candidate saw (``tests/test_batch.py``). The reference's outputs stay in the
runner, on the device, while the plan lives, up to ``max_bytes`` (outputs beyond it are computed afresh each time).
They outlive the evaluation that computed them, so where a memory budget is given they are counted as held outside
every reservation (:meth:`~kernelgym.judge.admission.MemoryBudget.hold_outside`) until the plan is closed or
collected: four plans of 2 GiB each were beside the reservations uncounted before.
"""

from __future__ import annotations

import threading
import weakref

from kernelgym.judge.inputs import secret_seed

#: reference outputs a plan keeps on the device, in bytes
DEFAULT_PLAN_BYTES = 2 << 30


class BatchPlan:
    """The shared secrets and reference outputs of one task's evaluations in one batch (module docstring)."""

    def __init__(self, task, max_bytes: int = DEFAULT_PLAN_BYTES):
        self.task_key = task.key
        self.init_seed = secret_seed() % 100_003
        self.max_bytes = int(max_bytes)
        self._seeds: dict[tuple[str, int], int] = {}
        self._outputs: dict[tuple[int, bool], tuple] = {}
        self._baselines: dict[tuple, dict] = {}
        self._bytes = 0
        self._lock = threading.Lock()
        self.computed = 0  # reference forwards run for this plan (for tests and benchmarks)
        self._holds: list = []  # the budget's outside holds of the kept outputs
        self._release = weakref.finalize(self, _release_all, self._holds)

    def check_task(self, task) -> None:
        if task.key != self.task_key:
            raise ValueError(f"this batch plan belongs to {self.task_key.split(':')[0]}, not to {task.id}")

    def seed(self, kind: str, index: int) -> int:
        """The secret seed of trial ``index`` of ``kind`` (``standard``, ``outlier``, ``profile``, ``recheck``)."""
        with self._lock:
            return self._seeds.setdefault((kind, int(index)), secret_seed())

    def issued(self, seed: int) -> bool:
        with self._lock:
            return seed in self._seeds.values()

    def baseline(self, key: tuple) -> dict | None:
        """The eager figure offered for ``key`` (:meth:`kernelgym.judge.session.Session.plan_baseline_key`), or
        ``None``."""
        with self._lock:
            kept = self._baselines.get(key)
            return dict(kept) if kept is not None else None

    def offer_baseline(self, key: tuple, base: dict, rel_ci: float) -> bool:
        """Keep ``base`` (a confirmed eager summary with ``median_ms`` and ``ci95_ms``) for ``key`` unless one is
        kept already or its CI is wider than ``rel_ci`` of its median; returns whether it was kept."""
        median, ci = base.get("median_ms"), base.get("ci95_ms")
        if not median or ci is None or ci > rel_ci * median:
            return False
        with self._lock:
            if key in self._baselines:
                return False
            self._baselines[key] = dict(base)
            return True

    def baselines(self) -> int:
        """How many eager figures the plan keeps (one per key)."""
        with self._lock:
            return len(self._baselines)

    def outputs(self, compute, seed: int, outlier: int, budget=None) -> tuple:
        """The reference's outputs for ``seed``: ``compute()`` the first time (under the plan's lock, so concurrent
        evaluations of the batch wait for one forward instead of each running it), kept while within ``max_bytes``
        and then counted by ``budget`` (a :class:`~kernelgym.judge.admission.MemoryBudget`, where given) until
        :meth:`close`."""
        key = (int(seed), int(outlier))
        with self._lock:
            kept = self._outputs.get(key)
            if kept is not None:
                return kept
            refs = compute()
            self.computed += 1
            size = sum(r.numel() * r.element_size() for r in refs if hasattr(r, "element_size"))
            if self._bytes + size <= self.max_bytes:
                self._outputs[key] = refs
                self._bytes += size
                if budget is not None:
                    self._holds.append(budget.hold_outside(size))
            return refs

    @property
    def kept_bytes(self) -> int:
        """Bytes of the reference outputs the plan keeps."""
        with self._lock:
            return self._bytes

    def close(self) -> None:
        """Drop the kept outputs and release their holds (idempotent; also done when the plan is collected). The
        plan still serves its seeds and eager figures; outputs asked for later are computed and kept again."""
        with self._lock:
            self._outputs.clear()
            self._bytes = 0
            _release_all(self._holds)


def _release_all(holds: list) -> None:
    while holds:
        holds.pop().release()
