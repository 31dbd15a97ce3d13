"""TRL (GRPO): reward functions for ``reward_funcs=`` and a multi-turn ``rollout_func=``.

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

Multi-turn refinement (the model sees the judge's feedback and answers again) goes through GRPOTrainer's
``rollout_func`` hook (experimental in TRL 1.x): :func:`make_rollout_func` returns the rollout function and the
reward function that reads the episode's reward from it::

    rollout = make_rollout_func(dataset, max_turns=3, backend="triton")
    trainer = GRPOTrainer(model=..., reward_funcs=[rollout.reward_func], rollout_func=rollout,
                          train_dataset=dataset, args=GRPOConfig(...))

No import of ``trl`` is needed.
"""

from __future__ import annotations

import asyncio
import math
from typing import Any, Callable, Sequence

from kernelgym.data.chat import feedback_message, last_assistant_text, start
from kernelgym.envs.prompt import render_feedback
from kernelgym.envs.kernel_env import reaches_goal
from kernelgym.integrations.scorer import Scorer, scorer_from
from kernelgym.rewards.episode import EPISODE_REWARDS, episode_reward


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
    scorer = scorer_from(scorer, scorer_kwargs)

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


# -- multi-turn: GRPOTrainer(rollout_func=...) ------------------------------------------------------------------
def _prompt_key(prompt: Any) -> str:
    """What identifies a dataset prompt: its text (a string prompt) or its last user message's text."""
    if isinstance(prompt, str):
        return prompt
    users = [m for m in prompt if isinstance(m, dict) and m.get("role") == "user"]
    return last_assistant_text(users[-1:]) if users else last_assistant_text(prompt)


class KernelRollout:
    """GRPOTrainer's ``rollout_func``: each prompt is one episode of up to ``max_turns`` attempts, the judge's
    feedback on an attempt being the next user turn (:func:`kernelgym.data.chat.feedback_message`). Made by
    :func:`make_rollout_func`.

    Called as TRL calls it, ``rollout(prompts, trainer)``, it returns ``prompt_ids`` (the first prompt),
    ``completion_ids`` (every attempt and the feedback between them, in the chat template's rendering),
    ``env_mask`` (1 on the model's tokens, 0 on the feedback's, so the loss skips the feedback), ``logprobs``
    (vLLM's, else None) and, forwarded by TRL to the reward functions, ``kernelgym_reward`` (the episode's reward:
    ``episode_reward`` of the attempts' rewards), ``kernelgym_turns``, ``kernelgym_correct`` and
    ``kernelgym_status`` (the last attempt's). :attr:`reward_func` passes ``kernelgym_reward`` on as the reward.

    Generation uses the trainer's vLLM when it has one (``use_vllm``; not tested here), else the trainer's model
    with ``model.generate`` and the trainer's generation config, a turn of all live episodes at a time.
    The episode ends at a correct attempt that reaches ``target_speedup`` (where speed is not measured, on the CPU,
    at any correct attempt: :func:`kernelgym.envs.kernel_env.reaches_goal`, KernelEnv's rule) or after
    ``max_turns`` attempts. Each attempt's reward is its own (``reward_fn(result, [])``, KernelEnv's
    ``attempt_reward``): a bonus for beating the episode's earlier attempts would pay for a slow first attempt.
    """

    def __init__(self, task_ids_by_prompt: dict[str, str], scorer: Scorer, max_turns: int = 3,
                 episode_reward: str = "best", target_speedup: float = 1.0):
        if int(max_turns) < 1:
            raise ValueError("max_turns must be at least 1")
        target = float(target_speedup)
        if math.isnan(target):  # no speedup reaches nan: a correct kernel on a GPU would never end the episode
            raise ValueError("target_speedup must be a number, got nan")
        self.target_speedup = target
        if episode_reward not in EPISODE_REWARDS:
            raise ValueError(f"episode_reward must be 'best', 'last' or 'sum', got {episode_reward!r}")
        self.task_ids_by_prompt = task_ids_by_prompt
        self.scorer = scorer
        self.max_turns = int(max_turns)
        self.episode_reward = episode_reward
        self.last_episodes: list[dict] = []

        def reward_func(prompts=None, completions=None, kernelgym_reward=None, **kwargs) -> list[float]:
            if kernelgym_reward is None:
                raise ValueError("no kernelgym_reward column: pass the KernelRollout as GRPOTrainer's rollout_func")
            return [float(r) for r in kernelgym_reward]

        reward_func.__name__ = reward_func.__qualname__ = "kernelgym_episode_reward"
        self.reward_func = reward_func

    def task_id(self, prompt: Any) -> str:
        key = _prompt_key(prompt)
        if key not in self.task_ids_by_prompt:
            raise ValueError(f"prompt not in the dataset given to make_rollout_func: {key[:80]!r}")
        return self.task_ids_by_prompt[key]

    # -- TRL's hook -----------------------------------------------------------------------------------------
    def __call__(self, prompts: list, trainer: Any) -> dict[str, list]:
        tokenizer = getattr(trainer, "_tokenizer", None) or trainer.processing_class
        episodes = [{"task_id": self.task_id(p), "messages": start(p) if isinstance(p, str) else list(p),
                     "completion_ids": [], "env_mask": [], "logprobs": [], "rewards": [], "results": []}
                    for p in prompts]
        prompt_ids = [self._render(tokenizer, e["messages"], True) for e in episodes]
        contexts = [list(ids) for ids in prompt_ids]
        live = list(range(len(episodes)))
        use_vllm = bool(getattr(trainer, "use_vllm", False))
        for turn in range(self.max_turns):
            if not live and not use_vllm:
                break
            new_ids, new_logprobs = self._generate(trainer, tokenizer, [contexts[i] for i in live])
            texts = tokenizer.batch_decode(new_ids, skip_special_tokens=True)
            results = self.scorer.evaluate_many([episodes[i]["task_id"] for i in live], texts)
            still_live = []
            for i, ids, logprobs, text, result in zip(live, new_ids, new_logprobs, texts, results):
                e = episodes[i]
                e["rewards"].append(float(self.scorer.reward_fn(result, [])))  # the attempt's own reward
                e["results"].append(result)
                e["completion_ids"] += ids
                e["env_mask"] += [1] * len(ids)
                e["logprobs"] += logprobs if logprobs is not None else [0.0] * len(ids)
                e["messages"].append({"role": "assistant", "content": text})
                contexts[i] += ids
                if reaches_goal(result, self.target_speedup) or turn + 1 == self.max_turns:
                    continue
                feedback = {"role": "user", "content": feedback_message(render_feedback(result.to_dict()), turn + 2,
                                                                        self.max_turns)}
                e["messages"].append(feedback)
                observation = self._observation_ids(tokenizer, feedback)
                e["completion_ids"] += observation
                e["env_mask"] += [0] * len(observation)
                e["logprobs"] += [0.0] * len(observation)
                contexts[i] += observation
                still_live.append(i)
            live = still_live
        self.last_episodes = episodes
        return {"prompt_ids": prompt_ids,
                "completion_ids": [e["completion_ids"] for e in episodes],
                "env_mask": [e["env_mask"] for e in episodes],
                "logprobs": [e["logprobs"] for e in episodes] if use_vllm else None,
                "kernelgym_reward": [self._episode_reward(e["rewards"]) for e in episodes],
                "kernelgym_turns": [len(e["results"]) for e in episodes],
                "kernelgym_correct": [any(r.correct for r in e["results"]) for e in episodes],
                "kernelgym_status": [e["results"][-1].status for e in episodes]}

    # -- helpers --------------------------------------------------------------------------------------------
    def _episode_reward(self, rewards: list[float]) -> float:
        return episode_reward(rewards, self.episode_reward)

    _BASE = [{"role": "user", "content": "I am a user."}, {"role": "assistant", "content": "I am the model."}]

    @classmethod
    def _observation_ids(cls, tokenizer: Any, message: dict) -> list[int]:
        """The tokens that follow a generated turn (which ends at the end-of-turn token) when ``message`` is the next
        turn, through the next generation prompt: rendered after a fixed two-turn conversation and cut at its last
        end-of-turn token (SkyRL's "fixed base" way; it needs no re-rendering of the model's own tokens)."""
        base = cls._render(tokenizer, cls._BASE, False)
        eos = tokenizer.eos_token_id
        if eos in base:
            base = base[:len(base) - base[::-1].index(eos)]
        full = cls._render(tokenizer, cls._BASE + [message], True)
        return full[len(base):]

    @staticmethod
    def _render(tokenizer: Any, messages: list[dict], generation_prompt: bool) -> list[int]:
        ids = tokenizer.apply_chat_template(messages, add_generation_prompt=generation_prompt, tokenize=True,
                                            return_dict=False)
        return list(ids["input_ids"] if isinstance(ids, dict) else ids)

    @staticmethod
    def _generate(trainer: Any, tokenizer: Any, contexts: list[list[int]]) -> tuple[list[list[int]], list]:
        """One completion per context: token ids (up to and including the end-of-turn token) and their logprobs
        (vLLM's, else None each)."""
        if getattr(trainer, "use_vllm", False):
            _, completion_ids, logprobs, _ = trainer.vllm_generation.generate(prompts=contexts, images=None,
                                                                             num_generations=1)
            return [list(c) for c in completion_ids], [[lp[0] for lp in seq] for seq in logprobs]
        if not contexts:
            return [], []
        import torch

        model = trainer.accelerator.unwrap_model(trainer.model)
        pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
        width = max(len(c) for c in contexts)
        input_ids = torch.tensor([[pad] * (width - len(c)) + c for c in contexts], device=model.device)
        attention_mask = torch.tensor([[0] * (width - len(c)) + [1] * len(c) for c in contexts], device=model.device)
        was_training = model.training
        model.eval()
        try:
            with torch.no_grad():
                out = model.generate(input_ids=input_ids, attention_mask=attention_mask,
                                     generation_config=trainer.generation_config)
        finally:
            model.train(was_training)
        eos = set(getattr(trainer, "eos_token_ids", None) or [tokenizer.eos_token_id])
        completions = []
        for row in out[:, width:].tolist():
            ids = []
            for token in row:
                ids.append(token)
                if token in eos:
                    break
            completions.append(ids)
        return completions, [None] * len(completions)


def make_rollout_func(dataset: Any, scorer: Scorer | None = None, max_turns: int = 3, episode_reward: str = "best",
                      task_id_key: str = "task_id", target_speedup: float = 1.0,
                      **scorer_kwargs: Any) -> KernelRollout:
    """A multi-turn rollout for ``GRPOTrainer(rollout_func=..., reward_funcs=[rollout.reward_func])``.

    Args:
        dataset: the training rows (a ``datasets.Dataset`` or a list of dicts) with ``prompt`` and ``task_id_key``
            columns: TRL hands ``rollout_func`` the prompts only, so each prompt's task id is looked up by its text
            (a string prompt, or the last user message's content); pass every dataset the trainer will use.
        scorer: a shared :class:`Scorer`; by default one is built from ``scorer_kwargs`` (tasks, backend, profile,
            reward, device, max_workers, evaluator ...).
        max_turns: attempts per episode; the episode ends earlier at a correct attempt reaching
            ``target_speedup`` (any correct one where speed is not measured, on the CPU), as KernelEnv's does.
        episode_reward: the episode's reward from its attempts' rewards: ``"best"`` (default), ``"last"``, ``"sum"``
            (of the attempts' improvements on the best so far and their negative rewards,
            :func:`kernelgym.rewards.episode.episode_reward`: failing first never earns more than answering right
            at once).
    """
    scorer = scorer_from(scorer, scorer_kwargs)
    index: dict[str, str] = {}
    for row in dataset:
        if task_id_key not in row:
            raise ValueError(f"the dataset needs a {task_id_key!r} column (the kernelgym task id of each prompt)")
        key = _prompt_key(row["prompt"])
        if index.get(key, row[task_id_key]) != row[task_id_key]:
            raise ValueError(f"one prompt for two task ids ({index[key]}, {row[task_id_key]}): {key[:80]!r}")
        index[key] = str(row[task_id_key])
    return KernelRollout(index, scorer, max_turns=max_turns, episode_reward=episode_reward,
                         target_speedup=target_speedup)
