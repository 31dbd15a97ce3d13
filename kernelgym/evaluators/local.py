"""Evaluations on this machine: :class:`LocalEvaluator` (a thread pool, one Judge per thread), :class:`ThreadJudges`,
and :func:`as_evaluator`, which checks that an object is an Evaluator (:mod:`kernelgym.evaluators.base`).
"""

from __future__ import annotations

import threading
import time
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Iterable

from kernelgym.evaluators.base import Evaluator, Item, batch_plans, default_workers
from kernelgym.evaluators.dispatch import MemoryAwareQueue, device_memory
from kernelgym.judge import policy
from kernelgym.judge.result import EvalResult
from kernelgym.tasks import Task

__all__ = ["LocalEvaluator", "ThreadJudges", "as_evaluator"]

#: how often closing with ``abort`` kills the workers in flight again (one may have started since the last pass)
ABORT_POLL_S = 0.1


class ThreadJudges:
    """One :class:`~kernelgym.judge.runner.Judge` per thread (a Judge evaluates one candidate at a time), made on
    first use with ``judge_kwargs``; on a GPU each asks for :data:`~kernelgym.judge.launch.POOL_SPARES` workers
    started ahead, on the CPU one (there the cores, not the start-up, bound a pool), unless the kwargs say otherwise.
    The judges share their spares (one :class:`~kernelgym.judge.launch.SpareWorkers`): whichever judge needs a
    worker takes the oldest spare of them all. :meth:`close` stops every spare. Thread-safe."""

    def __init__(self, **judge_kwargs):
        from kernelgym.judge.launch import POOL_SPARES, SpareWorkers

        spares = 1 if judge_kwargs.get("device") == "cpu" else POOL_SPARES
        self.judge_kwargs = {"prestart_workers": spares, "spare_workers": SpareWorkers(), **judge_kwargs}
        self._local = threading.local()
        self._lock = threading.Lock()
        self._made: list = []
        self._slots: dict[int, Any] = {}
        self._slot_lock = threading.Lock()

    def get(self, slot: int | None = None):
        """The calling thread's judge, or with ``slot`` the judge of that slot number (for callers that hand out
        slots themselves, one holder at a time: :class:`~kernelgym.evaluators.dispatch.SlotGate`)."""
        if slot is None:
            judge = getattr(self._local, "judge", None)
            if judge is None:
                judge = self._local.judge = self._make()
            return judge
        with self._slot_lock:  # made once per slot, however many threads ask for it at once
            if slot not in self._slots:
                self._slots[slot] = self._make()
            return self._slots[slot]

    def _make(self):
        from kernelgym.judge.runner import Judge

        judge = Judge(**self.judge_kwargs)
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
        self._queue = MemoryAwareQueue(**(device_memory(self.device) if judge is None else {"capacity": None}))
        self._lock = threading.Lock()
        self._in_flight = 0  # evaluations running on the pool's threads (:meth:`close` with ``abort``)
        self._aborted = False  # closed with ``abort``: no more work
        self._hardware_json: str | None = None

    # -- the Evaluator protocol -------------------------------------------------------------------------
    def submit(self, task: Task, text: str, *, backend: str = "triton", profile: Any = "quick",
               torch_policy: str = policy.DEFAULT) -> "Future[EvalResult]":
        """Queue one evaluation on a judge thread (:mod:`kernelgym.evaluators.dispatch` says which queued one a free
        thread starts)."""
        policy.check(torch_policy)
        return self._enqueue(task, text, backend, profile, torch_policy)

    def evaluate_many(self, items: Iterable[Item], *, backend: str = "triton", profile: Any = "quick",
                      torch_policy: str = policy.DEFAULT) -> list[EvalResult]:
        """Evaluate ``(task, text)`` pairs concurrently; the results in input order. Candidates of a task that
        appears more than once share a :class:`~kernelgym.judge.batch.BatchPlan` (the reference is paid once)."""
        items = list(items)
        policy.check(torch_policy)
        plans = batch_plans(task for task, _ in items)
        futures = [self._enqueue(task, text, backend, profile, torch_policy, plans.get(task.key))
                   for task, text in items]
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

    def close(self, abort: bool = False) -> None:
        """End the threads and stop the spare workers of the judges made here (a Judge given is left open).
        Evaluations queued and not started are cancelled (their futures report it); those running finish first, or
        with ``abort`` (what ``with`` does when its block raises, e.g. on Ctrl-C) are ended at once: their
        workers are killed (:meth:`~kernelgym.judge.runner.Judge.abort`) until no evaluation runs, so closing takes
        seconds, not the rest of the batch; after that the evaluator refuses new work (RuntimeError)."""
        with self._lock:
            executor, self._executor = self._executor, None
            self._aborted = self._aborted or abort
        for future, _ in self._queue.drain():
            future.cancel()
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
            while abort and self._running():
                for judge in self.judges():
                    judge.abort()
                time.sleep(ABORT_POLL_S)
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

    def __exit__(self, exc_type, *exc) -> None:
        self.close(abort=exc_type is not None)

    def _running(self) -> int:
        """Evaluations running on the pool's threads now."""
        with self._lock:
            return self._in_flight

    def _pool(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._aborted:
                raise RuntimeError("this LocalEvaluator was closed with abort=True: make a new one")
            if self._executor is None:
                self._executor = ThreadPoolExecutor(self.max_workers, thread_name_prefix="kernelgym-judge")
            return self._executor

    def _enqueue(self, task: Task, text: str, backend: str, profile: Any, torch_policy: str,
                 batch=None) -> "Future[EvalResult]":
        """Queue one evaluation and one turn of a pool thread to start the next queued one (:meth:`_run_next`)."""
        pool = self._pool()
        future: Future = Future()
        self._queue.put((future, (task, text, backend, profile, torch_policy, batch)))
        pool.submit(self._run_next)
        return future

    def _run_next(self) -> None:
        """On a pool thread: start the evaluation the queue gives (none when closing drained it) and settle its
        future. Where the thread's judge cannot be made (no sandbox here, a bad cache folder), the evaluation the
        queue gives fails with that error: every queued future is settled, none waits for ever."""
        judge, failure = self._judge, None
        if judge is None:
            try:
                judge = self._judges.get()  # made outside the queue's lock
            except BaseException as exc:  # noqa: BLE001 - the future taken below reports it
                failure = exc
        taken = self._queue.take(lambda item: 0 if judge is None else judge.memory_need(item[1][0]))
        if taken is None:
            return
        (future, args), need = taken
        try:
            if not future.set_running_or_notify_cancel():  # its caller cancelled it while queued
                return
            if failure is not None:
                future.set_exception(failure)
                return
            try:
                result = self._evaluate(*args)
            except BaseException as exc:  # noqa: BLE001 - the caller's future reports it
                future.set_exception(exc)
            else:
                future.set_result(result)
        finally:
            self._queue.done(need)

    def _evaluate(self, task: Task, text: str, backend: str, profile: Any, torch_policy: str,
                  batch=None) -> EvalResult:
        with self._lock:
            self._in_flight += 1
        try:
            if self._judge is not None:
                with _judge_lock(self._judge):
                    return self._judge.evaluate(task, text, backend=backend, profile=profile,
                                                torch_policy=torch_policy, batch=batch)
            return self._judges.get().evaluate(task, text, backend=backend, profile=profile,
                                               torch_policy=torch_policy, batch=batch)
        finally:
            with self._lock:
                self._in_flight -= 1


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
