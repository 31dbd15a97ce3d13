"""veRL multi-turn: an agent loop (veRL's ``verl.experimental.agent_loop``, 0.9.x) in which the judge's feedback on
an attempt is the next user turn. Needs ``verl``.

veRL's AgentLoopWorker runs one agent loop per sample, chosen by the dataset's ``agent_name`` column, from the
loops listed in ``actor_rollout_ref.rollout.agent.agent_loop_config_path``. This module ships that list
(:data:`AGENT_LOOP_CONFIG`, one entry: ``kernelgym_agent``)::

    actor_rollout_ref.rollout.agent.agent_loop_config_path=$(python -c \\
        "import kernelgym.integrations.verl_agent as m; print(m.AGENT_LOOP_CONFIG)")
    actor_rollout_ref.rollout.agent.default_agent_loop=kernelgym_agent   # or an agent_name column
    actor_rollout_ref.rollout.multi_turn.max_assistant_turns=3           # attempts per episode

Each dataset row needs ``raw_prompt`` (chat messages; veRL's RLHFDataset keeps them with
``data.return_raw_chat=True``) and the task id in ``reward_model.ground_truth`` (or ``extra_info.task_id``;
``extra_info.max_turns`` overrides the attempts for that row). An episode: generate, evaluate, and unless the
attempt is the last or correct and reaching the target speedup (``KERNELGYM_TARGET_SPEEDUP``, default 1.0, or
``extra_info.target_speedup``; where speed is not measured, on the CPU, any correct attempt:
:func:`kernelgym.envs.kernel_env.reaches_goal`, KernelEnv's rule), append the feedback
(:func:`kernelgym.data.chat.feedback_message`) as a user message and generate again. The feedback's tokens get response mask 0 (no loss on them). The episode's reward
(``reward_score``, so veRL's reward manager is not called for it) is the best of its attempts' rewards
(``KERNELGYM_EPISODE_REWARD=last|sum`` to change; ``sum`` adds the attempts' improvements on the best so far,
:func:`kernelgym.rewards.episode.episode_reward`, so wrong answers that a reward pays for add nothing);
``extra_fields["turn_scores"]`` has each attempt's own reward (``reward_fn(result, [])``, KernelEnv's
``attempt_reward``) and ``reward_extra_info`` (logged by veRL) ``correct``, ``attempts`` and ``best_speedup``.

The judge's settings come from the ``KERNELGYM_*`` environment variables, as for ``compute_score``
(:mod:`kernelgym.integrations.verl`), and all loops of a worker process share its scorer.
"""

from __future__ import annotations

import math
import os
import time
from pathlib import Path
from typing import Any
from uuid import uuid4

from verl.experimental.agent_loop.agent_loop import AgentLoopBase, AgentLoopOutput, register

from kernelgym.data.chat import feedback_message
from kernelgym.envs.kernel_env import reaches_goal
from kernelgym.envs.prompt import render_feedback
from kernelgym.integrations.verl import default_scorer
from kernelgym.rewards.episode import episode_reward
from kernelgym.scoring.metrics import measured_speedup

AGENT_NAME = "kernelgym_agent"
#: veRL's ``agent_loop_config_path`` for this loop.
AGENT_LOOP_CONFIG = Path(__file__).with_name("verl_agent_loop.yaml")
DEFAULT_MAX_TURNS = 3


def _task_id(kwargs: dict) -> str:
    ground_truth = (kwargs.get("reward_model") or {}).get("ground_truth")
    task_id = ground_truth or (kwargs.get("extra_info") or {}).get("task_id")
    if not task_id:
        raise ValueError("no task id: set reward_model.ground_truth (or extra_info.task_id) in the dataset")
    return str(task_id)


def _target(value: Any, where: str) -> float:
    """A target speedup read from ``where``: a number, not nan (no speedup reaches it)."""
    try:
        target = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{where} must be a number, got {value!r}") from None
    if math.isnan(target):
        raise ValueError(f"{where} must be a number, got nan")
    return target


@register(AGENT_NAME)
class KernelAgentLoop(AgentLoopBase):
    """Multi-turn kernel refinement as a veRL agent loop (see the module docstring)."""

    def __init__(self, *args: Any, scorer: Any = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.scorer = scorer or default_scorer()
        self.max_turns = int(self.rollout_config.multi_turn.max_assistant_turns or DEFAULT_MAX_TURNS)
        self.response_length = self.rollout_config.response_length
        self.episode_reward = os.environ.get("KERNELGYM_EPISODE_REWARD", "best")
        episode_reward([], self.episode_reward)  # an unknown name fails here, not at the end of every episode
        self.target_speedup = _target(os.environ.get("KERNELGYM_TARGET_SPEEDUP") or 1.0, "KERNELGYM_TARGET_SPEEDUP")

    async def run(self, sampling_params: dict[str, Any], **kwargs: Any) -> AgentLoopOutput:
        messages = list(kwargs["raw_prompt"])
        task_id = _task_id(kwargs)
        extra_info = kwargs.get("extra_info") or {}
        max_turns = int(extra_info.get("max_turns") or self.max_turns)
        target = self.target_speedup if extra_info.get("target_speedup") is None else \
            _target(extra_info["target_speedup"], "extra_info.target_speedup")
        request_id = uuid4().hex
        timing = {"generate_sequences": 0.0, "tool_calls": 0.0}

        runtime_ids = await self.ct_build_initial_tokens(messages)
        response_mask: list[int] = []
        logprobs: list[float] = []
        results, rewards = [], []
        for turn in range(max_turns):
            start = time.perf_counter()
            output = await self.server_manager.generate(request_id=request_id, prompt_ids=runtime_ids,
                                                        sampling_params=sampling_params)
            timing["generate_sequences"] += time.perf_counter() - start
            merged, response_mask, merged_logprobs = await self.ct_merge_assistant_token(
                runtime_ids, output.token_ids, response_mask, logprobs if (logprobs or output.log_probs) else None,
                assistant_logprobs=output.log_probs or None)
            runtime_ids, logprobs = merged.token_ids, merged_logprobs or []
            text = self.tokenizer.decode(output.token_ids, skip_special_tokens=True)

            start = time.perf_counter()
            result = (await self.loop.run_in_executor(None, self.scorer.evaluate_many, [task_id], [text]))[0]
            timing["tool_calls"] += time.perf_counter() - start
            rewards.append(float(self.scorer.reward_fn(result, [])))  # the attempt's own reward
            results.append(result)
            messages.append({"role": "assistant", "content": text})
            if reaches_goal(result, target) or turn + 1 == max_turns or len(response_mask) >= self.response_length:
                break
            previous = list(messages)
            messages.append({"role": "user", "content": feedback_message(render_feedback(result.to_dict()),
                                                                         turn + 2, max_turns)})
            merged, mask, merged_logprobs = await self.ct_merge_context_msg(previous, messages, runtime_ids,
                                                                            response_mask, logprobs or None)
            if len(mask) >= self.response_length:  # no room left for another attempt
                break
            runtime_ids, response_mask, logprobs = merged.token_ids, mask, merged_logprobs or []

        n = len(response_mask)
        prompt_ids, response_ids = runtime_ids[:len(runtime_ids) - n], runtime_ids[len(runtime_ids) - n:]
        score = episode_reward(rewards, self.episode_reward)
        output = AgentLoopOutput(
            prompt_ids=prompt_ids,
            response_ids=response_ids[:self.response_length],
            response_mask=response_mask[:self.response_length],
            response_logprobs=logprobs[:self.response_length] if logprobs else None,
            reward_score=float(score),
            num_turns=len(messages) - len(kwargs["raw_prompt"]) + 1,
            metrics=timing,
            extra_fields={"turn_scores": rewards, "tool_rewards": [],
                          "reward_extra_info": {"correct": float(any(r.correct for r in results)),
                                                "attempts": len(results),
                                                # measured only (not on a degenerate task, finite)
                                                "best_speedup": max((s for s in (measured_speedup(r.to_dict())
                                                                                 for r in results)
                                                                     if s is not None), default=0.0)},
                          "kernelgym_status": [r.status for r in results]})
        return output
