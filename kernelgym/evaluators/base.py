"""The Evaluator protocol and the batch helpers every evaluator shares.

An :class:`Evaluator` turns ``(task, text)`` pairs into :class:`~kernelgym.judge.result.EvalResult` objects (the one
vocabulary between layers: no dicts cross this interface). Every layer that evaluates takes any Evaluator:
:class:`~kernelgym.envs.kernel_env.KernelEnv` (``gym.make(id, evaluator=...)``),
:class:`~kernelgym.envs.vector.KernelVectorEnv`, :class:`~kernelgym.evaluators.judge_pool.JudgePool` (``kernelgym eval``,
the trainer adapters) and :func:`kernelgym.data.collect.collect`.

==================================================  ================================================================
evaluator                                           where the candidates run
==================================================  ================================================================
:class:`~kernelgym.evaluators.local.LocalEvaluator` this machine: a thread pool, one :class:`~kernelgym.judge.runner.
                                                    Judge` per thread (each evaluation its own worker process)
:class:`~kernelgym.evaluators.ray_pool.RayEvalPool` a Ray cluster: one actor per GPU
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

:func:`~kernelgym.evaluators.local.as_evaluator` is the one check: it returns an Evaluator as is, wraps a plain ``Judge`` in a one-at-a-time
:class:`LocalEvaluator` (the Judge stays the caller's) and raises TypeError naming this protocol for anything else.
"""

from __future__ import annotations

import os
from concurrent.futures import Future
from typing import Any, Iterable, Protocol, runtime_checkable

from kernelgym.judge import policy
from kernelgym.judge.result import EvalResult
from kernelgym.tasks import Task

Item = tuple[Task, str]

__all__ = ["Evaluator", "Item", "batch_plans", "default_workers", "repeated_task_keys"]


@runtime_checkable
class Evaluator(Protocol):
    """Turns ``(task, text)`` into EvalResults (see the module docstring for the contract of each method)."""

    def submit(self, task: Task, text: str, *, backend: str = "triton", profile: Any = "quick",
               torch_policy: str = policy.DEFAULT) -> "Future[EvalResult]": ...

    def evaluate_many(self, items: Iterable[Item], *, backend: str = "triton", profile: Any = "quick",
                      torch_policy: str = policy.DEFAULT) -> list[EvalResult]: ...

    def hardware_json(self) -> str | None: ...

    def close(self) -> None: ...


def default_workers() -> int:
    """Evaluations at once by default: the CPU count, at most 8."""
    return max(1, min(8, os.cpu_count() or 1))


def repeated_task_keys(tasks: Iterable[Task]) -> set[str]:
    """The :attr:`Task.key <kernelgym.tasks.Task.key>` of every task that occurs more than once in ``tasks``."""
    seen: set[str] = set()
    repeated: set[str] = set()
    for task in tasks:
        key = task.key
        (repeated if key in seen else seen).add(key)
    return repeated


def batch_plans(tasks: Iterable[Task]) -> dict:
    """One :class:`~kernelgym.judge.batch.BatchPlan` per task that occurs more than once in ``tasks``, by
    :attr:`Task.key <kernelgym.tasks.Task.key>` (a task evaluated once gains nothing from a plan)."""
    from kernelgym.judge.batch import BatchPlan

    tasks = list(tasks)
    repeated = repeated_task_keys(tasks)
    return {t.key: BatchPlan(t) for t in tasks if t.key in repeated}
