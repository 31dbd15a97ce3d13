"""A SkyRL-style multi-turn text environment over :class:`~kernelgym.envs.kernel_env.KernelEnv`.

SkyRL-Gym drives a text environment as::

    env = KernelTextEnv(env_config, extras)        # extras: one dataset row's fields
    prompt, metadata = env.init(prompt)             # prompt: the chat messages of the row
    out = env.step(action)                          # action: the model's answer text
    out["observations"], out["reward"], out["done"], out["metadata"]

The task id comes from ``extras["reward_spec"]["ground_truth"]``, ``extras["task_id"]`` or
``extras["extra_info"]["task_id"]``. Settings come from ``env_config`` (a dict or any mapping, e.g. an OmegaConf
DictConfig) and may be overridden per row in ``extras``: ``tasks``, ``backend``, ``max_turns`` (default 1),
``reward``, ``profile``, ``device``, ``evaluator``. After an attempt that does not end the episode the observation
is one user message with the feedback (:func:`kernelgym.data.chat.feedback_message`). The class does not need
``skyrl_gym`` installed; :func:`register` registers it with SkyRL-Gym when that is installed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, Mapping

from kernelgym.data.chat import feedback_message, start
from kernelgym.envs.kernel_env import KernelEnv
from kernelgym.tasks import TaskSet, load_tasks

ENV_ID = "kernelgym"
_SETTINGS = ("tasks", "backend", "max_turns", "reward", "profile", "device", "evaluator")


@lru_cache(maxsize=8)
def _load(path: str | None) -> TaskSet:
    return load_tasks(path)


def _task_id(extras: Mapping) -> str | None:
    found = ((extras.get("reward_spec") or {}).get("ground_truth"), extras.get("task_id"),
             (extras.get("extra_info") or {}).get("task_id"))
    return next((str(value) for value in found if value), None)


class KernelTextEnv:
    """One episode of one kernelgym task as a SkyRL text environment (see the module docstring)."""

    def __init__(self, env_config: Mapping | None = None, extras: Mapping | None = None):
        extras = dict(extras or {})
        config = {k: v for k, v in dict(env_config or {}).items() if k in _SETTINGS}
        config.update({k: extras[k] for k in _SETTINGS if k in extras})
        self.task_id = _task_id(extras)
        if self.task_id is None:
            raise ValueError("no task id: set extras['reward_spec']['ground_truth'] or extras['task_id']")
        tasks = config.get("tasks")
        self.max_turns = int(config.get("max_turns", 1))
        self.env = KernelEnv(tasks=tasks if isinstance(tasks, TaskSet) else _load(tasks), task_ids=[self.task_id],
                             backend=config.get("backend", "triton"), max_turns=self.max_turns,
                             reward=config.get("reward", "speedup"), profile=config.get("profile", "quick"),
                             device=config.get("device"), evaluator=config.get("evaluator"))
        self.turns = 0

    def init(self, prompt: list[dict] | str | None = None) -> tuple[list[dict], dict]:
        """Start the episode; returns the prompt (the task's own prompt when ``prompt`` is empty) and metadata."""
        obs, info = self.env.reset(options={"task_id": self.task_id})
        self.turns = 0
        if not prompt:
            prompt = start(obs["prompt"])
        elif isinstance(prompt, str):
            prompt = start(prompt)
        return prompt, {"task_id": self.task_id, "task_set": info["task_set"], "task": info["task"]}

    def step(self, action: str) -> dict[str, Any]:
        """Evaluate one answer: ``{"observations", "reward", "done", "metadata"}``."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.turns += 1
        done = bool(terminated or truncated)
        observations = [] if done else [{"role": "user", "content": feedback_message(
            obs["feedback"], self.turns + 1, self.max_turns)}]
        return {"observations": observations, "reward": float(reward), "done": done,
                "metadata": {"task_id": self.task_id, "task_set": info["task_set"], "turn": self.turns,
                             "result": info["result"]}}

    def get_metrics(self) -> dict[str, Any]:
        """Episode metrics for logging: turns, whether some attempt was correct, the best measured speedup."""
        return {"turns": self.turns, "correct": any(r.correct for r in self.env.history),
                "best_speedup": self.env.best_speedup}

    def close(self) -> None:
        self.env.close()


def register(env_id: str = ENV_ID) -> bool:
    """Register :class:`KernelTextEnv` with SkyRL-Gym under ``env_id``; False when skyrl_gym is not installed."""
    try:
        from skyrl_gym.envs.registration import register as skyrl_register
    except ImportError:
        return False
    skyrl_register(id=env_id, entry_point="kernelgym.integrations.skyrl:KernelTextEnv")
    return True
