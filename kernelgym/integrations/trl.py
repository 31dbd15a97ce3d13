"""TRL (GRPO) reward functions.

TRL calls a reward function as ``reward_func(prompts=..., completions=..., completion_ids=..., **kwargs)`` where
``kwargs`` holds the dataset's other columns, one value per completion (here ``task_id``), plus extras such as
``trainer_state``. A completion is a string (standard format) or a list of chat messages
(``[{"role": "assistant", "content": ...}]``, conversational format). It must return one float per completion.

    from trl import GRPOTrainer
    from kernelgym.integrations.trl import make_reward_func

    reward = make_reward_func(backend="triton", reward="speedup")      # dataset needs a task_id column
    trainer = GRPOTrainer(model=..., reward_funcs=[reward], train_dataset=dataset, ...)

The batch is evaluated concurrently (one Judge per thread, or an ``evaluator``'s ``evaluate_many``).
:func:`make_async_reward_func` returns a coroutine function for trainers that await async reward functions.
No import of ``trl`` is needed.
"""

from __future__ import annotations

import asyncio
from typing import Any, Callable, Sequence

from kernelgym.data.chat import last_assistant_text
from kernelgym.integrations.scoring import Scorer


def _batch(completions: Sequence[Any] | None, kwargs: dict, task_id_key: str) -> tuple[list[str], list[str]]:
    if completions is None:
        raise ValueError("the reward function needs completions")
    if task_id_key not in kwargs:
        raise ValueError(f"the dataset needs a {task_id_key!r} column (the kernelgym task id of each prompt)")
    ids = kwargs[task_id_key]
    ids = [ids] * len(completions) if isinstance(ids, str) else list(ids)
    return ids, [last_assistant_text(c) for c in completions]


def make_reward_func(scorer: Scorer | None = None, task_id_key: str = "task_id", name: str = "kernelgym_reward",
                     **scorer_kwargs: Any) -> Callable[..., list[float]]:
    """A TRL reward function ``reward_func(prompts=None, completions=None, **kwargs) -> list[float]``.

    Args:
        scorer: a shared :class:`Scorer`; by default one is built from ``scorer_kwargs`` (tasks, backend,
            profile, reward, device, max_workers, evaluator ...).
        task_id_key: the dataset column holding each prompt's task id.
        name: the function's ``__name__`` (TRL logs rewards under it).

    The function's ``last_results`` attribute holds the EvalResults of the latest batch (for logging).
    """
    scorer = scorer or Scorer(**scorer_kwargs)

    def reward_func(prompts=None, completions=None, **kwargs) -> list[float]:
        ids, texts = _batch(completions, kwargs, task_id_key)
        results = scorer.evaluate_many(ids, texts)
        reward_func.last_results = results
        return scorer.rewards(results)

    reward_func.__name__ = reward_func.__qualname__ = name
    reward_func.last_results = []
    reward_func.scorer = scorer
    return reward_func


def make_async_reward_func(scorer: Scorer | None = None, task_id_key: str = "task_id",
                           name: str = "kernelgym_reward", **scorer_kwargs: Any):
    """The same reward as :func:`make_reward_func`, as a coroutine function: the batch is evaluated in a worker
    thread so the event loop stays free."""
    sync = make_reward_func(scorer, task_id_key, name, **scorer_kwargs)

    async def reward_func(prompts=None, completions=None, **kwargs) -> list[float]:
        rewards = await asyncio.to_thread(sync, prompts=prompts, completions=completions, **kwargs)
        reward_func.last_results = sync.last_results
        return rewards

    reward_func.__name__ = reward_func.__qualname__ = name
    reward_func.last_results = []
    reward_func.scorer = sync.scorer
    return reward_func
