"""veRL reward: ``compute_score(data_source, solution_str, ground_truth, extra_info=None) -> float``.

``ground_truth`` is the kernelgym task id (put it in the dataset's ``reward_model.ground_truth``). veRL 0.9's
trainer builds a reward loop (``RewardLoopManager`` -> ``RewardLoopWorker`` -> the ``naive`` reward manager) that
calls ``compute_score`` once per response, with keyword arguments, from ``reward.custom_reward_function``::

    reward.custom_reward_function.path=pkg://kernelgym.integrations.verl   # or this file's path
    reward.custom_reward_function.name=compute_score

(``custom_reward_function.path`` at the top level is veRL's legacy spelling, moved there by the trainer.) For
multi-turn episodes, where the judge's feedback is the next user turn, see :mod:`kernelgym.integrations.verl_agent`.

The module-level scorer is configured from the environment, read once: ``KERNELGYM_TASKS`` (task path, default
the bundled suite), ``KERNELGYM_BACKEND`` (``triton``), ``KERNELGYM_PROFILE`` (``quick``), ``KERNELGYM_REWARD``
(``speedup``), ``KERNELGYM_DEVICE`` (default: the GPU if present). For other settings build your own with
:func:`make_compute_score`. No import of ``verl`` is needed. ``compute_score_batch`` serves the batch reward
manager of veRL before 0.9 (0.9's trainer no longer builds it).
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from kernelgym.integrations.scorer import Scorer, environ_settings, scorer_from

_default: Scorer | None = None
_lock = threading.Lock()


def default_scorer() -> Scorer:
    """The process-wide scorer configured from ``KERNELGYM_*`` environment variables (built on first use)."""
    global _default
    with _lock:
        if _default is None:
            _default = Scorer(**environ_settings())
        return _default


def make_compute_score(scorer: Scorer | None = None, **scorer_kwargs: Any) -> Callable[..., float]:
    """A ``compute_score`` bound to ``scorer`` (or to a new :class:`Scorer` built from ``scorer_kwargs``)."""
    scorer = scorer_from(scorer, scorer_kwargs)

    def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None,
                      **kwargs: Any) -> float:
        return scorer.score(task_id_of(ground_truth, extra_info), solution_str)

    return compute_score


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None,
                  **kwargs: Any) -> float:
    """The reward of ``solution_str`` (the model's response text) for task ``ground_truth`` (else
    ``extra_info["task_id"]``, as the agent loop reads it)."""
    return default_scorer().score(task_id_of(ground_truth, extra_info), solution_str)


def compute_score_batch(data_sources: list[str], solution_strs: list[str], ground_truths: list[str],
                        extra_infos: list[dict] | None = None, **kwargs: Any) -> list[float]:
    """Batch form (the batch reward manager of veRL before 0.9): a whole batch's rewards, evaluated concurrently."""
    infos = list(extra_infos) if extra_infos is not None else [None] * len(ground_truths)
    if len(infos) != len(ground_truths):
        raise ValueError(f"{len(infos)} extra_infos for {len(ground_truths)} ground truths")
    return default_scorer().score_many([task_id_of(g, i) for g, i in zip(ground_truths, infos)],
                                       list(solution_strs))


def task_id_of(ground_truth: Any, extra_info: Any = None) -> str:
    """The task id of a row: ``reward_model.ground_truth``, else ``extra_info["task_id"]`` (where the veRL agent loop
    also looks); a row with neither is a ValueError naming both (it was scored as the unknown task ``'None'``)."""
    task_id = ground_truth
    if task_id is None or task_id == "":
        task_id = extra_info.get("task_id") if isinstance(extra_info, dict) else None
    if task_id is None or task_id == "":
        raise ValueError("no task id: set reward_model.ground_truth (or extra_info.task_id) in the dataset to the "
                         "kernelgym task id of each prompt")
    return str(task_id)
