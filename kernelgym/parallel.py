"""Evaluate many candidates at once on one machine: a thread pool with one Judge per thread.

A :class:`~kernelgym.judge.runner.Judge` evaluates one candidate at a time (each evaluation is a worker process
the thread waits on), so concurrency comes from several Judges on several threads. Given an ``evaluator``
instead, :class:`JudgePool` uses its ``submit`` (futures, yielded as they complete) when it has one (e.g. the Ray
pool of :mod:`kernelgym.distributed`), else its ``evaluate_many``, else calls its ``evaluate`` one candidate after
the other.

``evaluate_many`` contract assumed of an evaluator: ``evaluate_many(items, backend=..., profile=...)`` with
``items`` a sequence of ``(Task, text)`` pairs, returning the EvalResults in the same order.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Iterator, Sequence

from kernelgym.judge.result import EvalResult
from kernelgym.tasks import Task

Item = tuple[Task, str]


class ThreadJudges:
    """One :class:`~kernelgym.judge.runner.Judge` per thread (a Judge evaluates one candidate at a time), made on
    first use with ``judge_kwargs``; each keeps a worker started ahead unless the kwargs say otherwise.
    :meth:`close` stops every one's spare worker. Thread-safe."""

    def __init__(self, **judge_kwargs):
        self.judge_kwargs = {"prestart_workers": True, **judge_kwargs}
        self._local = threading.local()
        self._lock = threading.Lock()
        self._made: list = []

    def get(self):
        judge = getattr(self._local, "judge", None)
        if judge is None:
            from kernelgym.judge.runner import Judge

            judge = self._local.judge = Judge(**self.judge_kwargs)
            with self._lock:
                self._made.append(judge)
        return judge

    def all(self) -> list:
        with self._lock:
            return list(self._made)

    def close(self) -> None:
        for judge in self.all():
            judge.close()


def default_workers() -> int:
    """Evaluations at once by default: the CPU count, at most 8."""
    return max(1, min(8, os.cpu_count() or 1))


class JudgePool:
    """Evaluates ``(task, text)`` pairs concurrently. Thread-safe; :meth:`close` (or ``with``) ends the threads.

    Args:
        device, cache_dir: for the per-thread Judges.
        max_workers: threads (default :func:`default_workers`).
        evaluator: use this instead of local Judges (see the module docstring).
    """

    def __init__(self, device: str | None = None, cache_dir: str | Path | None = None,
                 max_workers: int | None = None, evaluator: Any = None):
        self.device = device
        self.cache_dir = cache_dir
        self.max_workers = max_workers or default_workers()
        self.evaluator = evaluator
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._judges = ThreadJudges(device=device, cache_dir=cache_dir)

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.max_workers, thread_name_prefix="kernelgym-judge")
            return self._executor

    def imap(self, items: Sequence[Item], backend: str = "triton",
             profile: str = "quick") -> Iterator[tuple[int, EvalResult]]:
        """``(index, result)`` for each item, in completion order (input order with an ``evaluator`` that offers only
        ``evaluate_many`` or ``evaluate``)."""
        if self.evaluator is not None:
            if hasattr(self.evaluator, "submit"):  # e.g. RayEvalPool: futures, yielded as they complete
                futures = {self.evaluator.submit(task, text, backend, profile): i
                           for i, (task, text) in enumerate(items)}
                for future in as_completed(futures):
                    yield futures[future], future.result()
            elif hasattr(self.evaluator, "evaluate_many"):
                yield from enumerate(self.evaluator.evaluate_many(list(items), backend=backend, profile=profile))
            else:
                for i, (task, text) in enumerate(items):
                    yield i, self.evaluator.evaluate(task, text, backend=backend, profile=profile)
            return
        pool = self._pool()
        futures = {pool.submit(lambda t, x: self._judges.get().evaluate(t, x, backend=backend, profile=profile),
                               task, text): i for i, (task, text) in enumerate(items)}
        for future in as_completed(futures):
            yield futures[future], future.result()

    def evaluate_many(self, items: Sequence[Item], backend: str = "triton",
                      profile: str = "quick") -> list[EvalResult]:
        """The results of all items, in input order."""
        results: list[EvalResult | None] = [None] * len(items)
        for i, result in self.imap(items, backend, profile):
            results[i] = result
        return results  # type: ignore[return-value]

    def close(self) -> None:
        with self._lock:
            if self._executor is not None:
                self._executor.shutdown(wait=True)
                self._executor = None
        self._judges.close()

    def __enter__(self) -> "JudgePool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
