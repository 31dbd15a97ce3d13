"""Evaluate many candidates at once: :class:`JudgePool`, over a :class:`~kernelgym.evaluators.LocalEvaluator` of its
own (a thread pool, one Judge per thread) or over any :class:`~kernelgym.evaluators.Evaluator` given (e.g. the Ray
pool of :mod:`kernelgym.evaluators.ray_pool`; a plain Judge is wrapped, anything else is a TypeError).

:class:`ThreadJudges` and :func:`default_workers` live in :mod:`kernelgym.evaluators` (re-exported here).
"""

from __future__ import annotations

from concurrent.futures import Future, as_completed
from pathlib import Path
from typing import Any, Iterator, Sequence

from kernelgym.evaluators.base import Evaluator, default_workers
from kernelgym.evaluators.local import LocalEvaluator, ThreadJudges, as_evaluator
from kernelgym.hardware import require_device
from kernelgym.judge import policy
from kernelgym.judge.result import EvalResult
from kernelgym.tasks import Task

Item = tuple[Task, str]

__all__ = ["JudgePool", "ThreadJudges", "default_workers"]


class JudgePool:
    """Evaluates ``(task, text)`` pairs concurrently; itself an :class:`~kernelgym.evaluators.Evaluator`.
    Thread-safe; :meth:`close` (or ``with``) ends the threads of the evaluator it made (one given is the caller's).

    Args:
        device, cache_dir: for the per-thread Judges of its own :class:`~kernelgym.evaluators.LocalEvaluator`.
        max_workers: threads (default :func:`default_workers`).
        evaluator: evaluate on this :class:`~kernelgym.evaluators.Evaluator` instead (a plain Judge is wrapped;
            anything else raises TypeError).
    """

    def __init__(self, device: str | None = None, cache_dir: str | Path | None = None,
                 max_workers: int | None = None, evaluator: Any = None):
        self.cache_dir = cache_dir
        if evaluator is None:
            self.evaluator: Evaluator = LocalEvaluator(device=require_device(device), cache_dir=cache_dir,
                                                       max_workers=max_workers)
        else:
            self.evaluator = as_evaluator(evaluator)
        self._owned = self.evaluator is not evaluator  # made here (or a Judge's wrapper): closed by close()
        self.device = device or getattr(self.evaluator, "device", None)
        self.max_workers = getattr(self.evaluator, "max_workers", None) or max_workers or default_workers()

    @property
    def _judges(self) -> ThreadJudges | None:
        """The per-thread judges of its own LocalEvaluator (``None`` on an evaluator given)."""
        return getattr(self.evaluator, "_judges", None) if self._owned else None

    def imap(self, items: Sequence[Item], backend: str = "triton", profile: Any = "quick",
             torch_policy: str = policy.DEFAULT) -> Iterator[tuple[int, EvalResult]]:
        """``(index, result)`` for each item, in completion order."""
        futures = {self.evaluator.submit(task, text, backend=backend, profile=profile, torch_policy=torch_policy): i
                   for i, (task, text) in enumerate(items)}
        for future in as_completed(futures):
            yield futures[future], future.result()

    # -- the Evaluator protocol ---------------------------------------------------------------------------
    def submit(self, task: Task, text: str, *, backend: str = "triton", profile: Any = "quick",
               torch_policy: str = policy.DEFAULT) -> "Future[EvalResult]":
        return self.evaluator.submit(task, text, backend=backend, profile=profile, torch_policy=torch_policy)

    def evaluate_many(self, items: Sequence[Item], backend: str = "triton", profile: Any = "quick",
                      torch_policy: str = policy.DEFAULT) -> list[EvalResult]:
        """The results of all items, in input order (one batch call to the evaluator)."""
        return self.evaluator.evaluate_many(list(items), backend=backend, profile=profile, torch_policy=torch_policy)

    def hardware_json(self) -> str | None:
        return self.evaluator.hardware_json()

    def close(self, abort: bool = False) -> None:
        """Close the evaluator made here (one given stays the caller's); ``abort`` ends the evaluations running
        now instead of waiting for them (see :meth:`~kernelgym.evaluators.LocalEvaluator.close`)."""
        if self._owned:  # made here: always a LocalEvaluator (its own, or the wrapper of a Judge given)
            self.evaluator.close(abort=abort)

    def __enter__(self) -> "JudgePool":
        return self

    def __exit__(self, exc_type, *exc) -> None:
        self.close(abort=exc_type is not None)
