"""The scorer every trainer adapter shares: (task id, completion text) pairs → EvalResults → rewards."""

from __future__ import annotations

import atexit
import os
import threading
from pathlib import Path
from typing import Any, Sequence

from kernelgym.judge import policy
from kernelgym.judge.result import EvalResult
from kernelgym.evaluators.judge_pool import JudgePool
from kernelgym.rewards import get_reward
from kernelgym.tasks import TaskSet, load_tasks


#: The environment variables every adapter reads for the settings its trainer's config cannot carry, with defaults.
ENVIRON = {"tasks": ("KERNELGYM_TASKS", None), "backend": ("KERNELGYM_BACKEND", "triton"),
           "profile": ("KERNELGYM_PROFILE", "quick"), "reward": ("KERNELGYM_REWARD", "speedup"),
           "device": ("KERNELGYM_DEVICE", None), "torch_policy": ("KERNELGYM_TORCH_POLICY", "partial")}


def environ_settings() -> dict[str, Any]:
    """``tasks``, ``backend``, ``profile``, ``reward``, ``device``, ``torch_policy`` from ``KERNELGYM_*`` variables
    (see ENVIRON)."""
    return {key: os.environ.get(name) or default for key, (name, default) in ENVIRON.items()}


_pools: dict[str | None, JudgePool] = {}
_pools_lock = threading.Lock()


def shared_pool(device: str | None = None, max_workers: int | None = None) -> JudgePool:
    """One process-wide :class:`~kernelgym.evaluators.judge_pool.JudgePool` per device, made on first use and closed at exit.

    The environments a trainer makes per trajectory (SkyRL, the veRL agent loop) evaluate on it instead of each
    starting its own judge and spare worker; ``max_workers`` counts only when the pool is made."""
    with _pools_lock:
        pool = _pools.get(device)
        if pool is None:
            pool = _pools[device] = JudgePool(device=device, max_workers=max_workers)
            if len(_pools) == 1:
                atexit.register(_close_pools)
        return pool


def _close_pools() -> None:
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.close()


class Scorer:
    """Scores completions for tasks, a batch at a time, concurrently (see :class:`~kernelgym.evaluators.judge_pool.JudgePool`).

    Args:
        tasks: a TaskSet or a path for :func:`~kernelgym.tasks.load_tasks` (default: the bundled suite).
        backend, profile: how candidates are evaluated (``"triton"`` or ``"cuda"``; ``"quick"``, ``"full"`` or an
            :class:`~kernelgym.judge.profiles.EvalProfile`); anything else is a ValueError here.
        torch_policy: how much of the forward's work torch may do (:mod:`kernelgym.judge.policy`; default
            ``"partial"``); an unknown value is a ValueError here.
        reward: a reward name or callable ``(result, history) -> float`` (see :mod:`kernelgym.rewards`).
        device, cache_dir, max_workers: for the local Judges (one per thread).
        evaluator: evaluate with this instead (its ``evaluate_many`` when it has one).

    A task id that is not in ``tasks`` raises :class:`~kernelgym.tasks.TaskError` (a data error, not a bad
    completion); anything in a completion's text only ever lowers its reward.
    """

    def __init__(self, tasks: TaskSet | str | Path | None = None, backend: str = "triton", profile: str = "quick",
                 reward: Any = "speedup", device: str | None = None, cache_dir: str | Path | None = None,
                 max_workers: int | None = None, evaluator: Any = None, torch_policy: str = policy.DEFAULT):
        from kernelgym.judge.backends import check_backend
        from kernelgym.judge.profiles import get_profile

        check_backend(backend)  # the judge scored every completion 0 (compile_error) instead
        get_profile(profile)  # an unknown profile fails here, not at the first batch
        self._tasks_spec = tasks
        self.torch_policy = policy.check(torch_policy)
        self._tasks: TaskSet | None = tasks if isinstance(tasks, TaskSet) else None
        self.backend = backend
        self.profile = profile
        self.reward_fn = get_reward(reward)
        self.pool = JudgePool(device=device, cache_dir=cache_dir, max_workers=max_workers, evaluator=evaluator)

    @property
    def tasks(self) -> TaskSet:
        if self._tasks is None:
            self._tasks = load_tasks(self._tasks_spec)
        return self._tasks

    def evaluate_many(self, task_ids: Sequence[str], texts: Sequence[str]) -> list[EvalResult]:
        """The EvalResult of each (task id, text) pair, in order."""
        if len(task_ids) != len(texts):
            raise ValueError(f"{len(task_ids)} task ids for {len(texts)} completions")
        items = [(self.tasks.get(str(t)), str(x)) for t, x in zip(task_ids, texts)]
        return self.pool.evaluate_many(items, backend=self.backend, profile=self.profile,
                                       torch_policy=self.torch_policy)

    def rewards(self, results: Sequence[EvalResult]) -> list[float]:
        return [float(self.reward_fn(r, [])) for r in results]

    def score_many(self, task_ids: Sequence[str], texts: Sequence[str]) -> list[float]:
        """The reward of each (task id, text) pair, in order."""
        return self.rewards(self.evaluate_many(task_ids, texts))

    def score(self, task_id: str, text: str) -> float:
        return self.score_many([task_id], [text])[0]

    def close(self) -> None:
        self.pool.close()


def scorer_from(scorer: Any, scorer_kwargs: dict) -> "Scorer":
    """The :class:`Scorer` an adapter's factory was given, or one built from ``scorer_kwargs``.

    A ``scorer`` that is not a Scorer (``make_reward_func("speedup")``: the reward name given as the first,
    positional argument) is a TypeError here, not an AttributeError at the trainer's first batch; a ``scorer`` given
    with Scorer settings too (``make_reward_func(scorer, backend="cuda")``) is a TypeError, since the settings
    would be silently ignored."""
    if scorer is None:
        return Scorer(**scorer_kwargs)
    if not isinstance(scorer, Scorer):
        raise TypeError(f"scorer must be a kernelgym.integrations.scorer.Scorer, got {type(scorer).__name__} "
                        f"{scorer!r:.60}; pass settings by keyword (reward=..., backend=...)")
    if scorer_kwargs:
        raise TypeError(f"a scorer was given, so {', '.join(sorted(scorer_kwargs))} would be ignored: set them on "
                        "the Scorer, or leave scorer out")
    return scorer
