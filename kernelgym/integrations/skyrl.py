"""SkyRL: a multi-turn ``skyrl_gym`` text environment over :class:`~kernelgym.envs.kernel_env.KernelEnv`.

Importing this module registers the environment with SkyRL-Gym as ``"kernelgym"`` (when ``skyrl_gym`` is
installed), so SkyRL's generator makes it as it makes its own environments::

    import kernelgym.integrations.skyrl                     # in the process that runs the generator
    env = skyrl_gym.make("kernelgym", env_config=cfg, extras=row)   # row: one dataset row's fields
    prompt, metadata = env.init(row["prompt"])             # chat messages; the task's own prompt if empty
    out = env.step(llm_text)                               # BaseTextEnvStepOutput
    out["observations"], out["reward"], out["done"], out["metadata"]
    env.get_metrics(); KernelTextEnv.aggregate_metrics([...])     # per episode, then over episodes

:class:`KernelTextEnv` subclasses ``skyrl_gym.envs.base_text_env.BaseTextEnv`` (``skyrl_gym.make`` refuses any
other class). After an attempt that does not end the episode, the observation is one user message with the judge's
feedback (:func:`kernelgym.data.chat.feedback_message`); the episode ends when an attempt is correct (and fast
enough, ``target_speedup``) or after ``max_turns`` attempts. Each step's reward is KernelEnv's: the attempt's
improvement on the best attempt so far (a negative attempt reward in full), so the trajectory's summed reward is
its best attempt's reward (plus any negative ones) however many attempts it made (:mod:`kernelgym.rewards.episode`).

The task id comes from ``extras["reward_spec"]["ground_truth"]``, ``extras["task_id"]`` or
``extras["extra_info"]["task_id"]``. Settings come, first found first, from ``extras`` (one row), ``env_config`` (a
mapping, an OmegaConf DictConfig or an object with attributes), then the ``KERNELGYM_*`` environment variables
(:data:`kernelgym.integrations.scorer.ENVIRON`): ``tasks``, ``backend``, ``max_turns`` (SkyRL's generator sets
``extras["max_turns"]`` from ``generator.max_turns``), ``reward``, ``profile``, ``device``, ``target_speedup``,
``evaluator`` (default: one process-wide :func:`~kernelgym.integrations.scorer.shared_pool` per device, so the
environments SkyRL makes per trajectory share their judges), ``max_workers`` (that pool's size).

Without ``skyrl_gym`` the class still works, on a stand-in base class with the same methods.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from typing import Any, Mapping

from kernelgym.data.chat import feedback_message, start
from kernelgym.envs.kernel_env import KernelEnv
from kernelgym.integrations.scorer import environ_settings, shared_pool
from kernelgym.tasks import TaskSet, load_tasks

try:
    from skyrl_gym.envs.base_text_env import BaseTextEnv as _Base
    from skyrl_gym.envs.base_text_env import BaseTextEnvStepOutput as _StepOutput

    HAVE_SKYRL_GYM = True
except ImportError:  # the same surface, so the class works (and is tested) without skyrl_gym
    HAVE_SKYRL_GYM = False
    _StepOutput = dict

    class _Base:  # type: ignore[no-redef]
        def __init__(self):
            self.turns = 0
            self.max_turns = 1
            self.tool_groups: list = []
            self.tool_to_toolgroup: dict = {}

        def close(self) -> None:
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc) -> bool:
            self.close()
            return False

ENV_ID = "kernelgym"
ENTRY_POINT = "kernelgym.integrations.skyrl:KernelTextEnv"
_SETTINGS = ("tasks", "backend", "max_turns", "reward", "profile", "device", "evaluator", "target_speedup",
             "max_workers", "torch_policy")


@lru_cache(maxsize=8)
def _load(path: str | None) -> TaskSet:
    return load_tasks(path)


def _task_id(extras: Mapping) -> str | None:
    found = ((extras.get("reward_spec") or {}).get("ground_truth"), extras.get("task_id"),
             (extras.get("extra_info") or {}).get("task_id"))
    return next((str(value) for value in found if value), None)


def _as_dict(config: Any) -> dict:
    """A plain dict of the settings in ``config``: a mapping, a dataclass or an object with attributes."""
    if config is None:
        return {}
    if isinstance(config, Mapping) or hasattr(config, "keys"):
        return {k: config[k] for k in config.keys() if k in _SETTINGS}
    if dataclasses.is_dataclass(config):
        return {f.name: getattr(config, f.name) for f in dataclasses.fields(config) if f.name in _SETTINGS}
    return {k: getattr(config, k) for k in _SETTINGS if hasattr(config, k)}


class KernelTextEnv(_Base):
    """One episode of one kernelgym task as a SkyRL-Gym text environment (see the module docstring)."""

    def __init__(self, env_config: Any = None, extras: Mapping | None = None):
        super().__init__()
        extras = dict(extras or {})
        self.task_id = _task_id(extras)
        if self.task_id is None:
            raise ValueError("no task id: set extras['reward_spec']['ground_truth'] or extras['task_id']")
        settings = {k: v for k, v in environ_settings().items() if v is not None}
        settings.update({k: v for k, v in _as_dict(env_config).items() if v is not None})
        settings.update({k: extras[k] for k in _SETTINGS if extras.get(k) is not None})
        tasks = settings.get("tasks")
        self.max_turns = int(settings.get("max_turns", 1))
        evaluator = settings.get("evaluator")
        if evaluator is None:
            max_workers = settings.get("max_workers")
            evaluator = shared_pool(settings.get("device"), int(max_workers) if max_workers else None)
        self.env = KernelEnv(tasks=tasks if isinstance(tasks, TaskSet) else _load(tasks), task_ids=[self.task_id],
                             backend=settings.get("backend", "triton"), max_turns=self.max_turns,
                             reward=settings.get("reward", "speedup"), profile=settings.get("profile", "quick"),
                             device=settings.get("device"), evaluator=evaluator,
                             target_speedup=float(settings.get("target_speedup", 1.0)),
                             torch_policy=settings.get("torch_policy", "partial"))
        self.turns = 0
        self.rewards: list[float] = []

    def init(self, prompt: list[dict] | str | None = None) -> tuple[list[dict], dict]:
        """Start the episode; returns the prompt (the task's own prompt when ``prompt`` is empty) and metadata."""
        obs, info = self.env.reset(options={"task_id": self.task_id})
        self.turns = 0
        self.rewards = []
        if not prompt:
            prompt = start(obs["prompt"])
        elif isinstance(prompt, str):
            prompt = start(prompt)
        return prompt, {"task_id": self.task_id, "task_set": info["task_set"], "task": info["task"]}

    def step(self, action: str) -> _StepOutput:
        """Evaluate one answer: ``{"observations", "reward", "done", "metadata"}``."""
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.turns += 1
        self.rewards.append(float(info["attempt_reward"]))
        done = bool(terminated or truncated)
        observations = [] if done else [{"role": "user", "content": feedback_message(
            obs["feedback"], self.turns + 1, self.max_turns)}]
        return _StepOutput(observations=observations, reward=float(reward), done=done,
                           metadata={"task_id": self.task_id, "task_set": info["task_set"], "turn": self.turns,
                                     "result": info["result"]})

    def get_metrics(self) -> dict[str, Any]:
        """This episode's metrics (SkyRL's generator calls it when the episode ends): ``turns``, ``correct`` (some
        attempt was correct, 0/1), ``best_speedup`` (measured, correct attempts; 0 when none), ``best_reward``,
        ``final_reward`` (the best and the last attempt's own reward, ``info["attempt_reward"]``)."""
        history = self.env.history
        return {"turns": self.turns,
                "correct": float(any(r.correct for r in history)),
                "best_speedup": float(self.env.best_speedup),
                "best_reward": max(self.rewards, default=0.0),
                "final_reward": self.rewards[-1] if self.rewards else 0.0}

    @staticmethod
    def aggregate_metrics(metrics: list[dict[str, Any]]) -> dict[str, Any]:
        """Over episodes (SkyRL's ``aggregate_for_environment``): the mean of each metric of :meth:`get_metrics`
        (so ``correct`` is the share of episodes with a correct attempt) and ``episodes``, their number."""
        if not metrics:
            return {}
        keys = [k for k, v in metrics[0].items() if isinstance(v, (int, float))]
        out = {k: sum(float(m.get(k, 0.0)) for m in metrics) / len(metrics) for k in keys}
        out["episodes"] = len(metrics)
        return out

    def close(self) -> None:
        self.env.close()


def register(env_id: str = ENV_ID) -> bool:
    """Register :class:`KernelTextEnv` with SkyRL-Gym under ``env_id`` (again: no-op); False without skyrl_gym."""
    try:
        from skyrl_gym.envs.registration import register as skyrl_register
        from skyrl_gym.envs.registration import registry
    except ImportError:
        return False
    if env_id in registry:
        if registry[env_id].entry_point not in (ENTRY_POINT, KernelTextEnv):
            raise ValueError(f"SkyRL-Gym already has an environment {env_id!r}: {registry[env_id].entry_point}")
        return True
    skyrl_register(id=env_id, entry_point=ENTRY_POINT)
    return True


register()
