"""KernelVectorEnv: many KernelEnv episodes stepped together, their evaluations running concurrently on a pool.

A Gymnasium :class:`~gymnasium.vector.VectorEnv` (observations batched with ``batch_space``: text fields become
tuples of strings, numbers become arrays). It holds no shared memory, so text observations are never corrupted
(Gymnasium's ``AsyncVectorEnv`` with ``shared_memory=True`` cannot carry text).

Autoreset mode: **next-step** (Gymnasium's default). When sub-env ``i`` terminates or truncates at step ``t``, the
next ``step`` ignores ``actions[i]``, resets sub-env ``i`` and returns its first observation with reward 0 and
``terminated = truncated = False``.

A sub-env whose step raises (its evaluator failed, a reward callable raised, ...) does not lose the others' work:
every sub-env's step is waited for and kept, the failing one's result is a **truncated** step (reward 0,
``terminated=False``, ``truncated=True``, its last observation; its info holds ``"error"`` (``"TypeName:
message"``), ``"error_type"`` and ``"judge_fault": True``: drop the sample) and it is reset on the next step
(next-step autoreset, as any ended episode). Then, with ``on_error="raise"`` (the default, as Gymnasium's
``AsyncVectorEnv`` raises a sub-env's exception) the step raises :class:`VectorStepError`, whose ``results`` hold
the whole step's ``(obs, rewards, terminated, truncated, infos)`` and ``errors`` the exception of each failing
sub-env (the first is its ``__cause__``); the vector env stays usable. With ``on_error="truncate"`` the step returns
those results and logs a warning. A failing autoreset is reported the same way (truncated, retried next step).
"""

from __future__ import annotations

import concurrent.futures as cf
import logging
from typing import Any

import numpy as np
from gymnasium.vector import VectorEnv
from gymnasium.vector.utils import batch_space, concatenate, create_empty_array

from kernelgym.envs.kernel_env import KernelEnv
from kernelgym.evaluators import as_evaluator
from kernelgym.validation import positive_int

log = logging.getLogger(__name__)

#: what a step does when a sub-env's step raises (module docstring)
ON_ERROR = ("raise", "truncate")


class VectorStepError(RuntimeError):
    """One or more sub-envs' steps raised. ``results``: the step's ``(obs, rewards, terminated, truncated, infos)``
    with every sub-env's result (each failing one a truncated step with ``"error"`` in its info), ``errors``:
    ``{index: exception}``. The vector env has kept its state: the next ``step`` resets the failing sub-envs."""

    def __init__(self, errors: dict[int, BaseException], results: tuple):
        self.errors = errors
        self.results = results
        first = next(iter(errors.items()))
        super().__init__(f"{len(errors)} of {len(results[1])} sub-envs failed in this step (sub-env {first[0]}: "
                         f"{type(first[1]).__name__}: {first[1]}); the others' results are in .results")


class KernelVectorEnv(VectorEnv):
    """``num_envs`` :class:`KernelEnv` copies sharing one :class:`~kernelgym.evaluators.Evaluator` (a
    :class:`RayEvalPool`, a :class:`~kernelgym.evaluators.LocalEvaluator`; a plain Judge is wrapped, anything else is
    a TypeError); a step submits every sub-env's candidate at once and waits for all verdicts. ``env_kwargs`` go to
    each :class:`KernelEnv` (``torch_policy="strict"``, ``reward=...``, ...).

    ``reset(seed=...)`` takes one int (a numpy integer too; sub-env ``i`` gets ``seed + i``) or a list, tuple or
    array of ``num_envs`` seeds (anything else is a TypeError); ``step``
    takes a sequence of ``num_envs`` actions (a lone string is a TypeError, another length a ValueError); ``step``
    before ``reset`` is a RuntimeError. ``num_envs`` and ``max_parallel`` (threads stepping sub-envs at once, default
    ``num_envs``) must be positive ints (TypeError or ValueError). ``on_error``: ``"raise"`` (default) or
    ``"truncate"``, what a step does when a sub-env's step raises (the module docstring; :class:`VectorStepError`).

    ``levels=[2]`` selects every task whose level is 2, the extra set's ``X/`` tasks of level 2 among them; for
    ``KernelGym-L2-v0``'s tasks (``L2/...`` only) pass its selection, ``levels=[2], pattern="L2/*"``."""

    metadata = {"autoreset_mode": "next_step"}

    def __init__(self, num_envs: int, evaluator: Any, max_parallel: int | None = None, on_error: str = "raise",
                 **env_kwargs):
        self.num_envs = positive_int("num_envs", num_envs)
        if max_parallel is not None:
            max_parallel = positive_int("max_parallel", max_parallel)
        if on_error not in ON_ERROR:
            raise ValueError(f"on_error must be one of {', '.join(ON_ERROR)}, got {on_error!r}")
        self.on_error = on_error
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
        if any(env.task is None for env in self.envs):
            raise RuntimeError("call reset() before step()")
        futures = {}
        for i, (env, action) in enumerate(zip(self.envs, actions)):
            if not self._needs_reset[i]:
                futures[i] = self._executor.submit(env.step, action)
        obs, infos = [None] * self.num_envs, [None] * self.num_envs
        rewards = np.zeros(self.num_envs, dtype=np.float64)
        terms = np.zeros(self.num_envs, dtype=bool)
        truncs = np.zeros(self.num_envs, dtype=bool)
        errors: dict[int, BaseException] = {}
        for i, env in enumerate(self.envs):  # every sub-env's outcome is kept, whichever of them raised
            try:
                if i not in futures:
                    obs[i], infos[i] = env.reset()
                    self._needs_reset[i] = False
                    continue
                obs[i], rewards[i], terms[i], truncs[i], infos[i] = futures[i].result()
                self._needs_reset[i] = terms[i] or truncs[i]
            except Exception as exc:  # noqa: BLE001 - reported in the sub-env's info and raised below if asked
                errors[i] = exc
                obs[i], infos[i] = self._failed(env, exc)
                rewards[i], terms[i], truncs[i] = 0.0, False, True
                self._needs_reset[i] = True  # reset on the next step, as an ended episode
        results = (self._batch(obs), rewards, terms, truncs, {"per_env": infos})
        if errors:
            if self.on_error == "raise":
                raise VectorStepError(errors, results) from next(iter(errors.values()))
            for i, exc in errors.items():
                log.warning("sub-env %d failed in a step (truncated, reset on the next one): %s: %s", i,
                            type(exc).__name__, exc)
        return results

    @staticmethod
    def _failed(env: KernelEnv, exc: BaseException) -> tuple[dict, dict]:
        """The observation and info of a sub-env whose step or reset raised ``exc``: its last observation (a blank
        one naming the error if even that fails) and an info saying what happened."""
        error = f"{type(exc).__name__}: {exc}"
        try:
            observation = env._observation()
        except Exception:  # noqa: BLE001 - e.g. the evaluator that failed is needed for the hardware text
            observation = {"task_id": env.task.id if env.task is not None else "", "reference": "", "hardware": "",
                           "feedback": error[:4096], "prompt": "", "turn": min(len(env.history), env.max_turns),
                           "best_speedup": np.array([env.best_speedup], dtype=np.float32)}
        info = {"error": error, "error_type": type(exc).__name__, "judge_fault": True,
                "task_id": env.task.id if env.task is not None else None,
                "task_set": env.task.task_set if env.task is not None else None, "turn": len(env.history)}
        return observation, info

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


