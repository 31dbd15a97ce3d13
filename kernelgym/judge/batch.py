"""Paying for the reference once per batch: evaluations of one task in one batch (the GRPO shape, many samples of one
prompt) share a :class:`BatchPlan`.

A plan draws, once and from the OS, the model's init seed and the secret seeds of the correctness trials, the
profiled forward and the rechecks after timing (by kind and index), and keeps the reference's outputs for them,
computed the first time a session asks and then served to every later evaluation of the batch. Timed calls still
get fresh seeds per block, so they cost a reference forward per checked call as before.

What sharing seeds does not open: candidates never see one another's inputs or outputs — each runs in its own
sandboxed worker with a private ``/tmp``, scratch and transfer folder, every tensor a worker releases is scrubbed,
and a candidate that learned the trials' outputs from anywhere would still be caught by the timed calls it is
compared on, whose inputs no earlier candidate saw (``tests/test_batch.py``). The reference's outputs stay in the
runner, on the device, while the plan lives, up to ``max_bytes`` (outputs beyond it are computed afresh each time).
"""

from __future__ import annotations

import threading

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
        self._bytes = 0
        self._lock = threading.Lock()
        self.computed = 0  # reference forwards run for this plan (for tests and benchmarks)

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

    def outputs(self, compute, seed: int, outlier: int) -> tuple:
        """The reference's outputs for ``seed``: ``compute()`` the first time (under the plan's lock, so concurrent
        evaluations of the batch wait for one forward instead of each running it), kept while within budget."""
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
            return refs
