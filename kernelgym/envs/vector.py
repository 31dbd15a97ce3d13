"""KernelVectorEnv: many KernelEnv episodes stepped together, their evaluations running concurrently on a pool.

A Gymnasium :class:`~gymnasium.vector.VectorEnv` (observations batched with ``batch_space``: text fields become
tuples of strings, numbers become arrays). It holds no shared memory, so text observations are never corrupted
(Gymnasium's ``AsyncVectorEnv`` with ``shared_memory=True`` cannot carry text).

Autoreset mode: **next-step** (Gymnasium's default). When sub-env ``i`` terminates or truncates at step ``t``, the
next ``step`` ignores ``actions[i]``, resets sub-env ``i`` and returns its first observation with reward 0 and
``terminated = truncated = False``.
"""

from __future__ import annotations

import concurrent.futures as cf
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from kernelgym.envs.kernel_env import KernelEnv
from kernelgym.evaluators import as_evaluator


class KernelVectorEnv(VectorEnv):
    """``num_envs`` :class:`KernelEnv` copies sharing one :class:`~kernelgym.evaluators.Evaluator` (a
    :class:`RayEvalPool`, a :class:`~kernelgym.evaluators.LocalEvaluator`; a plain Judge is wrapped, anything else is
    a TypeError); a step submits every sub-env's candidate at once and waits for all verdicts. ``env_kwargs`` go to
    each :class:`KernelEnv` (``torch_policy="strict"``, ``reward=...``, ...).

    ``reset(seed=...)`` takes one int (a numpy integer too; sub-env ``i`` gets ``seed + i``) or a list, tuple or
    array of ``num_envs`` seeds (anything else is a TypeError); ``step``
    takes a sequence of ``num_envs`` actions (a lone string is a TypeError, another length a ValueError)."""

    metadata = {"autoreset_mode": "next_step"}

    def __init__(self, num_envs: int, evaluator: Any, max_parallel: int | None = None, **env_kwargs):
        if int(num_envs) < 1:
            raise ValueError(f"num_envs must be at least 1, got {num_envs!r}")
        self.num_envs = int(num_envs)
        shared = as_evaluator(evaluator)
        self._owned_evaluator = shared if shared is not evaluator else None  # a Judge's wrapper
        self.envs = [KernelEnv(evaluator=shared, **env_kwargs) for _ in range(self.num_envs)]
        self.single_observation_space = self.envs[0].observation_space
        self.single_action_space = self.envs[0].action_space
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        try:  # Gymnasium >= 1.1 names the mode with an enum
            from gymnasium.vector import AutoresetMode

            self.metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP}
        except ImportError:  # pragma: no cover - Gymnasium 1.0
            pass
        self._executor = cf.ThreadPoolExecutor(max_workers=max_parallel or self.num_envs)
        self._needs_reset = np.zeros(self.num_envs, dtype=bool)

    def reset(self, *, seed: int | list[int] | None = None, options: dict | None = None):
        seeds = self._seeds(seed)
        obs, infos = [], []
        for env, s in zip(self.envs, seeds):
            o, info = env.reset(seed=s, options=options)
            obs.append(o)
            infos.append(info)
        self._needs_reset[:] = False
        return self._batch(obs), {"per_env": infos}

    def step(self, actions):
        if isinstance(actions, (str, bytes)):  # list("ab") would step two sub-envs with "a" and "b"
            raise TypeError(f"actions must be a sequence of {self.num_envs} strings, one per sub-env, not one "
                            f"{type(actions).__name__}")
        actions = list(actions)
        if len(actions) != self.num_envs:
            raise ValueError(f"expected {self.num_envs} actions, got {len(actions)}")
        futures = {}
        for i, (env, action) in enumerate(zip(self.envs, actions)):
            if not self._needs_reset[i]:
                futures[i] = self._executor.submit(env.step, action)
        obs, infos = [None] * self.num_envs, [None] * self.num_envs
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terms = np.zeros(self.num_envs, dtype=bool)
        truncs = np.zeros(self.num_envs, dtype=bool)
        for i, env in enumerate(self.envs):
            if self._needs_reset[i]:
                obs[i], infos[i] = env.reset()
                self._needs_reset[i] = False
                continue
            obs[i], rewards[i], terms[i], truncs[i], infos[i] = futures[i].result()
            self._needs_reset[i] = terms[i] or truncs[i]
        return self._batch(obs), rewards, terms, truncs, {"per_env": infos}

    def close_extras(self, **kwargs) -> None:
        if getattr(self, "_executor", None) is not None:  # absent when __init__ failed
            self._executor.shutdown(wait=True)
        if getattr(self, "_owned_evaluator", None) is not None:
            self._owned_evaluator.close()

    def _seeds(self, seed) -> list[int | None]:
        """One seed per sub-env from ``seed``: ``None``, one int (numpy's too; sub-env ``i`` gets ``seed + i``) or a
        sequence (a list, a tuple, a numpy array) of ``num_envs`` ints or ``None``. Anything else is a TypeError
        naming what is accepted (``seed="0"`` raised "can only concatenate str (not "int") to str", a numpy array
        was added to elementwise and each sub-env got an array)."""
        def one(value, where: str) -> int | None:
            if value is None:
                return None
            if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)):
                return int(value)
            raise TypeError(f"{where} must be an int or None, got {type(value).__name__} {value!r:.40}")

        if seed is None or isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
            first = one(seed, "seed")
            return [None if first is None else first + i for i in range(self.num_envs)]
        if isinstance(seed, (str, bytes)) or not isinstance(seed, (list, tuple, np.ndarray)):
            raise TypeError(f"seed must be an int, None or a sequence of {self.num_envs} ints (one per sub-env), got "
                            f"{type(seed).__name__} {seed!r:.40}")
        seeds = [one(s, f"seed[{i}]") for i, s in enumerate(np.asarray(seed, dtype=object).ravel().tolist()
                                                            if isinstance(seed, np.ndarray) else seed)]
        if len(seeds) != self.num_envs:  # zip would reset only the first sub-envs
            raise ValueError(f"expected {self.num_envs} seeds (one per sub-env) or one int, got {len(seeds)}")
        return seeds

    def _batch(self, observations: list[dict]):
        out = create_empty_array(self.single_observation_space, self.num_envs)
        return concatenate(self.single_observation_space, observations, out)
