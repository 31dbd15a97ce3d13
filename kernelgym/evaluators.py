"""Evaluators: where candidates are evaluated, behind one small interface.

An :class:`Evaluator` turns ``(task, text)`` pairs into :class:`~kernelgym.judge.result.EvalResult` objects (the one
vocabulary between layers: no dicts cross this interface). Every layer that evaluates takes any Evaluator:
:class:`~kernelgym.envs.kernel_env.KernelEnv` (``gym.make(id, evaluator=...)``),
:class:`~kernelgym.distributed.vector.KernelVectorEnv`, :class:`~kernelgym.parallel.JudgePool` (``kernelgym eval``,
the trainer adapters) and :func:`kernelgym.data.collect.collect`.

==================================================  ================================================================
evaluator                                           where the candidates run
==================================================  ================================================================
:class:`LocalEvaluator`                             this machine: a thread pool, one :class:`~kernelgym.judge.runner.
                                                    Judge` per thread (each evaluation its own worker process)
:class:`~kernelgym.distributed.pool.RayEvalPool`    a Ray cluster: one actor per GPU
==================================================  ================================================================

The protocol (every method takes keyword-only settings; ``torch_policy`` is ``"strict"``, ``"partial"`` (default) or
``"off"``, :mod:`kernelgym.judge.policy`; an invalid value raises ValueError in the call, not in the future):

* ``submit(task, text, *, backend, profile, torch_policy) -> concurrent.futures.Future[EvalResult]``: queue one
  evaluation (may block for backpressure);
* ``evaluate_many(items, *, backend, profile, torch_policy) -> list[EvalResult]``: ``items`` are ``(task, text)``
  pairs; the results come back in input order;
* ``hardware_json() -> str | None``: the hardware spec of the machine that runs the candidates, as JSON text (what
  the policy is shown), or ``None`` when unknown (callers then describe their own device);
* ``close()``: stop the evaluator's threads, workers and actors.

:func:`as_evaluator` is the one check: it returns an Evaluator as is, wraps a plain ``Judge`` in a one-at-a-time
:class:`LocalEvaluator` (the Judge stays the caller's) and raises TypeError naming this protocol for anything else.
"""

from __future__ import annotations

import os
import threading
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterable, Protocol, runtime_checkable

from kernelgym.judge import policy
from kernelgym.judge.result import EvalResult
from kernelgym.tasks import Task

Item = tuple[Task, str]

__all__ = ["Evaluator", "LocalEvaluator", "ThreadJudges", "as_evaluator", "default_workers"]


@runtime_checkable
class Evaluator(Protocol):
    """Turns ``(task, text)`` into EvalResults (see the module docstring for the contract of each method)."""

    def submit(self, task: Task, text: str, *, backend: str = "triton", profile: Any = "quick",
               torch_policy: str = policy.DEFAULT) -> "Future[EvalResult]": ...

    def evaluate_many(self, items: Iterable[Item], *, backend: str = "triton", profile: Any = "quick",
                      torch_policy: str = policy.DEFAULT) -> list[EvalResult]: ...

    def hardware_json(self) -> str | None: ...

    def close(self) -> None: ...


def as_evaluator(obj: Any) -> Evaluator:
    """``obj`` itself when it is an :class:`Evaluator`; a plain Judge wrapped in ``LocalEvaluator(judge=obj)``;
    else TypeError naming the protocol."""
    if isinstance(obj, Evaluator):
        return obj
    from kernelgym.judge.runner import Judge

    if isinstance(obj, Judge):
        return LocalEvaluator(judge=obj)
    raise TypeError(f"{type(obj).__name__} is not a kernelgym.evaluators.Evaluator (needed: submit(task, text, *, "
                    "backend, profile, torch_policy) -> Future[EvalResult], evaluate_many(items, ...) -> "
                    "list[EvalResult], hardware_json(), close()); use LocalEvaluator, RayEvalPool or a Judge")


def default_workers() -> int:
    """Evaluations at once by default: the CPU count, at most 8."""
    return max(1, min(8, os.cpu_count() or 1))


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


_JUDGE_LOCKS: "weakref.WeakKeyDictionary[Any, threading.Lock]" = weakref.WeakKeyDictionary()
_JUDGE_LOCKS_GUARD = threading.Lock()


def _judge_lock(judge) -> threading.Lock:
    """One lock per caller-owned Judge, so wrappers of the same Judge never evaluate on it at once."""
    with _JUDGE_LOCKS_GUARD:
        lock = _JUDGE_LOCKS.get(judge)
        if lock is None:
            lock = _JUDGE_LOCKS[judge] = threading.Lock()
        return lock


class LocalEvaluator:
    """Evaluations on this machine: a thread pool with one Judge per thread (an :class:`Evaluator`). Thread-safe;
    :meth:`close` (or ``with``) ends the threads and stops the judges' spare workers.

    Args:
        device: ``"cpu"`` or ``"cuda[:i]"`` (default: the GPU when there is one).
        cache_dir: the judges' baseline and build cache (default ``~/.cache/kernelgym``).
        max_workers: evaluations at once (default :func:`default_workers`).
        judge: evaluate with this one Judge instead, one candidate at a time (it stays the caller's:
            :meth:`close` leaves it open). What :func:`as_evaluator` does with a plain Judge.
        **judge_kwargs: for each thread's Judge (``prestart_workers`` is on unless given, ``sandbox``, ...).
    """

    def __init__(self, device: str | None = None, cache_dir: str | Path | None = None,
                 max_workers: int | None = None, *, judge: Any = None, **judge_kwargs):
        self._judge = judge
        if judge is not None:
            self.device = judge.device
            self.max_workers = 1
            self._judges: ThreadJudges | None = None
        else:
            from kernelgym.judge.runner import default_device

            self.device = device or default_device()
            self.max_workers = max_workers or default_workers()
            self._judges = ThreadJudges(device=self.device, cache_dir=cache_dir, **judge_kwargs)
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._hardware_json: str | None = None

    # -- the Evaluator protocol -------------------------------------------------------------------------
    def submit(self, task: Task, text: str, *, backend: str = "triton", profile: Any = "quick",
               torch_policy: str = policy.DEFAULT) -> "Future[EvalResult]":
        """Queue one evaluation on a judge thread."""
        policy.check(torch_policy)
        return self._pool().submit(self._evaluate, task, text, backend, profile, torch_policy)

    def evaluate_many(self, items: Iterable[Item], *, backend: str = "triton", profile: Any = "quick",
                      torch_policy: str = policy.DEFAULT) -> list[EvalResult]:
        """Evaluate ``(task, text)`` pairs concurrently; the results in input order. Candidates of a task that
        appears more than once share a :class:`~kernelgym.judge.batch.BatchPlan` (the reference is paid once)."""
        items = list(items)
        policy.check(torch_policy)
        plans = batch_plans(task for task, _ in items)
        futures = [self._pool().submit(self._evaluate, task, text, backend, profile, torch_policy,
                                       plans.get(task_key(task))) for task, text in items]
        return [f.result() for f in futures]

    def hardware_json(self) -> str:
        """The hardware spec of this evaluator's device, as JSON text."""
        if self._hardware_json is None:
            if self._judge is not None:
                self._hardware_json = self._judge.hardware_json()
            else:
                from kernelgym.hardware import detect

                self._hardware_json = detect(self.device).to_json()
        return self._hardware_json

    def close(self) -> None:
        """End the threads and stop the spare workers of the judges made here (a Judge given is left open)."""
        with self._lock:
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)
        if self._judges is not None:
            self._judges.close()

    # -- helpers ----------------------------------------------------------------------------------------
    def judges(self) -> list:
        """The judges evaluating here so far."""
        return [self._judge] if self._judge is not None else self._judges.all()

    def idle_worker_pids(self) -> list[int]:
        """Process groups of the judges' workers started ahead that have run no candidate code."""
        return [pid for judge in self.judges() for pid in judge.idle_worker_pids()]

    def __enter__(self) -> "LocalEvaluator":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.max_workers, thread_name_prefix="kernelgym-judge")
            return self._executor

    def _evaluate(self, task: Task, text: str, backend: str, profile: Any, torch_policy: str,
                  batch=None) -> EvalResult:
        if self._judge is not None:
            with _judge_lock(self._judge):
                return self._judge.evaluate(task, text, backend=backend, profile=profile, torch_policy=torch_policy,
                                            batch=batch)
        return self._judges.get().evaluate(task, text, backend=backend, profile=profile, torch_policy=torch_policy,
                                           batch=batch)


def task_key(task: Task) -> str:
    return f"{task.id}:{task.digest}"


def repeated_task_keys(tasks: Iterable[Task]) -> set[str]:
    """The :func:`task_key` of every task that occurs more than once in ``tasks``."""
    seen: set[str] = set()
    repeated: set[str] = set()
    for task in tasks:
        key = task_key(task)
        (repeated if key in seen else seen).add(key)
    return repeated


def batch_plans(tasks: Iterable[Task]) -> dict:
    """One :class:`~kernelgym.judge.batch.BatchPlan` per task that occurs more than once in ``tasks``, by
    :func:`task_key` (a task evaluated once gains nothing from a plan)."""
    from kernelgym.judge.batch import BatchPlan

    tasks = list(tasks)
    repeated = repeated_task_keys(tasks)
    return {task_key(t): BatchPlan(t) for t in tasks if task_key(t) in repeated}
