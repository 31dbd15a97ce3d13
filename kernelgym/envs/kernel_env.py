"""KernelEnv: one kernel-optimisation task per episode, one candidate program per step."""

from __future__ import annotations

import math
from typing import Any, Iterable

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from kernelgym.envs.prompt import render_feedback, render_prompt
from kernelgym.envs.spaces import AnyText
from kernelgym.evaluators import Evaluator, LocalEvaluator, as_evaluator
from kernelgym.hardware import require_device
from kernelgym.judge import policy
from kernelgym.judge.backends import check_backend
from kernelgym.judge.profiles import get_profile, with_limits
from kernelgym.judge.result import EvalResult
from kernelgym.rewards import get_reward
from kernelgym.rewards.episode import STEP_REWARDS, best_of, improvement
from kernelgym.tasks import KERNELGYM_SET, Task, TaskSet, load_task_set
from kernelgym.tasks.loading import not_kernelbench
from kernelgym.tasks.task import KERNELBENCH_LEVELS, KERNELBENCH_SET, TaskError, one_or_many

MAX_TEXT = 1_000_000
MAX_ACTION = 200_000
#: the observation's ``best_speedup`` bound
MAX_SPEEDUP = 1e6


class KernelEnv(gym.Env):
    """Write a faster kernel for a PyTorch reference program.

    Each episode picks one task (``reset(options={"task_id": ...})``, or at random with the reset seed when
    ``options`` names none or ``task_id`` is ``None``; ``options`` that is not a dict is a TypeError). Each step
    takes the policy's answer (any string: raw LLM text or a Python file defining ``ModelNew``), evaluates it in an
    isolated worker, and returns:

    * **observation** (``Dict``): ``task_id``, ``reference`` (source), ``hardware`` (JSON text), ``feedback`` (the
      last verdict rendered for an LLM, empty after reset), ``prompt`` (a ready-made prompt holding all of that),
      ``turn`` (attempts made so far) and ``best_speedup`` (best speedup of a correct attempt so far, 0 if none).
    * **reward**: the attempt's improvement on the episode's best attempt so far: with ``a = reward_fn(result,
      [])`` (the attempt's own reward, scored without the episode's history, whose improvement is the env's to
      pay; default ``"speedup"``; see :mod:`kernelgym.rewards`) a step earns
      ``max(0, a - best)`` (``best``: the best earlier attempt's, at least 0) and a negative ``a`` (``shaped``'s
      -1 for a rejection) in full, so an episode's return is its best attempt's reward plus every negative one,
      however many attempts it took (:mod:`kernelgym.rewards.episode`; ``step_reward="attempt"`` pays
      ``reward_fn(result, history)`` itself, whose sum grows with the attempts made). ``info["attempt_reward"]``
      is the attempt's own reward.
    * **terminated**: the attempt is correct and reaches ``target_speedup`` (where speed is not measured, on the
      CPU interpreter or on a task flagged ``degenerate_task``, a correct attempt ends the episode).
    * **truncated**: ``max_turns`` attempts were made without terminating.
    * **info**: ``result`` (the EvalResult as a dict, ``kernel_coverage`` and ``torch_policy`` included),
      ``task_id``, ``task_set`` (the set the task belongs to: ``"kernelgym"``, ``"kernelbench"``, a folder's name),
      ``turn``, ``attempt_reward``, ``judge_fault``. After reset: ``task_id``, ``task_set`` and ``task`` (the
      task's metadata).

    ``step`` never raises because of the action's content; it raises only when called on a finished episode or
    before ``reset``.

    Args:
        tasks: a :class:`TaskSet`, a path, or ``None`` for the default source of ``task_set``.
        task_set: which problems a path (or ``None``) stands for: ``"kernelgym"`` (default: the bundled suite, or
            the tasks at the path, see :func:`~kernelgym.tasks.load_tasks`) or ``"kernelbench"`` (KernelBench's own
            problems: a checkout at the path, else ``$KERNELBENCH_PATH``, else the Hugging Face dataset; see
            :func:`~kernelgym.tasks.load_kernelbench`, whose :class:`~kernelgym.tasks.TaskSetUnavailable` says
            how to get them when none is reachable). The registered ids set it. With ``"kernelbench"``, the
            bundled suite (its path, a folder of it, or a :class:`TaskSet` holding its tasks) is refused with a
            :class:`~kernelgym.tasks.TaskError` naming the ``KernelGym-*`` id: they are not KernelBench's problems.
        levels, categories, task_ids, pattern: narrow the task set (see :meth:`TaskSet.select`). ``levels``
            matches each task's level, which the bundled extra set's ``X/`` tasks have too: ``levels=[2]`` serves
            the ``L2/`` tasks and the level-2 ``X/`` ones; ``KernelGym-L2-v0`` adds ``pattern="L2/*"`` (the ``L2/``
            tasks only; every id's selection is in :data:`~kernelgym.envs.registration.ENV_IDS`).
        backend: ``"triton"`` or ``"cuda"``.
        max_turns: attempts per episode.
        reward: a registered reward name (``"speedup"``, ``"fast_p:1.5"``, ``"correct"``, ``"shaped"``) or a callable.
        profile: evaluation profile (``"quick"`` or ``"full"``; anything else: ValueError here).
        profiling_feedback: on a GPU, list the top kernels by GPU time of the candidate's forward and of the
            reference's in the feedback (``EvalResult.top_kernels``, kept in records either way).
        limits: stage time limits in seconds replacing the profile's, by stage name, e.g. ``{"compile": 30,
            "correctness": 20}`` (settable: startup, compile, correctness, timing; an unknown name: ValueError).
        device: evaluation device (default: GPU 0 if present, else CPU).
        evaluator: a :class:`~kernelgym.evaluators.Evaluator` (a :class:`~kernelgym.evaluators.ray_pool.RayEvalPool`, a
            :class:`~kernelgym.evaluators.LocalEvaluator`; a plain Judge is wrapped, anything else is a TypeError);
            default: a one-thread LocalEvaluator on ``device``, closed by :meth:`close`.
        torch_policy: how much of the forward's work torch may do (:mod:`kernelgym.judge.policy`): ``"strict"``,
            ``"partial"`` (default; ``kernel_coverage`` in the result says how much the candidate's own kernels
            carried, see the ``"speedup_coverage"`` reward) or ``"off"``. Anything else: ValueError here.
        target_speedup: the goal that terminates an episode.
        step_reward: ``"improvement"`` (default: each step earns its attempt's gain on the best attempt so far and
            a negative attempt reward in full; the return is the best attempt's reward plus the negative ones) or
            ``"attempt"`` (the reward function gets the episode's earlier results; each step earns its
            attempt's own reward; their sum grows with the number of attempts, so sum them only knowingly: a
            correct but slow kernel resubmitted until ``max_turns`` outearned a fast one that ended the episode).
        prestart_workers: when the env makes its own judge, keep one fresh worker started one evaluation ahead
            (:mod:`kernelgym.judge.launch`); :meth:`close` stops it.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, tasks: TaskSet | str | None = None, levels: Iterable[int] | None = None,
                 categories: Iterable[str] | None = None, task_ids: Iterable[str] | None = None,
                 pattern: str | None = None, backend: str = "triton", max_turns: int = 4,
                 reward: Any = "speedup", profile: str = "quick", device: str | None = None,
                 evaluator: Evaluator | None = None, target_speedup: float = 1.0, render_mode: str | None = None,
                 prestart_workers: bool = True, task_set: str = KERNELGYM_SET, torch_policy: str = policy.DEFAULT,
                 limits: dict[str, float] | None = None, profiling_feedback: bool = True,
                 step_reward: str = "improvement"):
        check_backend(backend)
        self.torch_policy = policy.check(torch_policy)
        if int(max_turns) < 1:
            raise ValueError("max_turns must be at least 1")
        if step_reward not in STEP_REWARDS:
            raise ValueError(f"step_reward must be one of {', '.join(STEP_REWARDS)}, got {step_reward!r}")
        self.step_reward = step_reward
        taskset = tasks if isinstance(tasks, TaskSet) else load_task_set(task_set, tasks, levels)
        if task_set == KERNELBENCH_SET and any(t.task_set == KERNELGYM_SET for t in taskset):
            wanted = list(one_or_many(levels, (int, str)) or KERNELBENCH_LEVELS)
            raise TaskError(not_kernelbench("a TaskSet holding the bundled suite's tasks", wanted))
        selection = {"levels": levels, "categories": categories, "task_ids": task_ids, "pattern": pattern}
        self.tasks = taskset.select(levels=levels, categories=categories, ids=task_ids, pattern=pattern)
        if len(self.tasks) == 0:
            raise ValueError(empty_selection(taskset, selection))
        self.backend = backend
        self.max_turns = int(max_turns)
        self.reward_fn = get_reward(reward)
        self.profile = with_limits(profile, limits)
        get_profile(self.profile)  # an unknown profile fails here, not in every step
        target = float(target_speedup)
        if math.isnan(target):  # no speedup reaches nan: the episode would never end on a correct kernel
            raise ValueError("target_speedup must be a number, got nan")
        self.profiling_feedback = bool(profiling_feedback)
        given = evaluator
        #: how the env's own evaluator is made, so that a pickled copy (an env sent to a Ray worker) makes its own
        self._evaluator_recipe: dict | None = None
        if evaluator is None:
            self._evaluator_recipe = dict(device=require_device(device), max_workers=1,
                                          prestart_workers=prestart_workers)
            evaluator = LocalEvaluator(**self._evaluator_recipe)
        self.evaluator: Evaluator = as_evaluator(evaluator)
        self._owned_evaluator = self.evaluator if self.evaluator is not given else None  # ours, or a Judge's wrapper
        self.device = device or getattr(self.evaluator, "device", None) or "cpu"
        self.target_speedup = target
        self.render_mode = render_mode
        self._hardware_json: str | None = None

        self.observation_space = spaces.Dict({
            "task_id": AnyText(max_length=512, min_length=0),
            "reference": AnyText(max_length=MAX_TEXT, min_length=0),
            "hardware": AnyText(max_length=MAX_TEXT, min_length=0),
            "feedback": AnyText(max_length=MAX_TEXT, min_length=0),
            "prompt": AnyText(max_length=MAX_TEXT, min_length=0),
            "turn": spaces.Discrete(self.max_turns + 1),
            "best_speedup": spaces.Box(0.0, MAX_SPEEDUP, shape=(1,), dtype=np.float32),
        })
        self.action_space = AnyText(max_length=MAX_ACTION, min_length=0)
        self.task: Task | None = None
        self.history: list[EvalResult] = []
        self._best_reward: float | None = None  # the best attempt reward of the episode so far
        self._done = True
        self._feedback = ""

    # -- gym API --------------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"options must be a dict such as {{'task_id': 'L1/15_relu'}}, got "
                            f"{type(options).__name__}")
        if isinstance(seed, np.integer) and not isinstance(seed, np.bool_):
            seed = int(seed)  # a seed from a numpy array (Gymnasium accepts only Python ints)
        super().reset(seed=seed)
        options = options or {}
        if options.get("task_id") is not None:
            self.task = self.tasks.get(options["task_id"])
        else:
            self.task = self.tasks[int(self.np_random.integers(len(self.tasks)))]
        self.history = []
        self._best_reward = None
        self._feedback = ""
        self._done = False
        return self._observation(), {"task_id": self.task.id, "task_set": self.task.task_set,
                                     "task": _task_info(self.task)}

    def step(self, action: Any):
        if self.task is None:
            raise RuntimeError("call reset() before step()")
        if self._done:
            raise RuntimeError("the episode has ended; call reset()")
        text = action if isinstance(action, str) else str(action)
        result = self.evaluator.submit(self.task, text, backend=self.backend, profile=self.profile,
                                       torch_policy=self.torch_policy).result()
        # the attempt is scored on its own where the step pays its improvement: a bonus for beating the episode's
        # earlier attempts (shaped's +0.1) would pay for a baseline the policy set itself (a slow kernel first)
        improving = self.step_reward == "improvement"
        attempt = float(self.reward_fn(result, [] if improving else list(self.history)))
        reward = improvement(attempt, self._best_reward) if improving else attempt
        self._best_reward = best_of(attempt, self._best_reward)
        self.history.append(result)
        turn = len(self.history)
        terminated = reaches_goal(result, self.target_speedup)
        truncated = (not terminated) and turn >= self.max_turns
        self._done = terminated or truncated
        self._feedback = render_feedback(result.to_dict(), profiling=self.profiling_feedback)
        info = {"result": result.to_dict(), "task_id": self.task.id, "task_set": self.task.task_set, "turn": turn,
                "attempt_reward": attempt, "judge_fault": result.judge_fault}
        return self._observation(), reward, bool(terminated), bool(truncated), info

    def render(self):
        if self.render_mode == "ansi":
            return self._observation()["prompt"] if self.task else ""
        return None

    def close(self):
        """Stop the env's own evaluator and its spare worker (an evaluator passed in is the caller's to close)."""
        if self._owned_evaluator is not None:
            self._owned_evaluator.close()
        super().close()

    # -- pickling (Ray, multiprocessing) -------------------------------------------------------------------
    def __getstate__(self) -> dict:
        """The env's state without its own evaluator (threads, worker processes: they do not pickle; the copy makes
        a new one, on the same device, when unpickled). An evaluator passed in travels as it is (a RayEvalPool's copy
        keeps its actor handles and settings and never stops the original's actors); an env on a plain Judge cannot be pickled (TypeError saying so, not "cannot pickle
        '_thread.lock' object")."""
        state = self.__dict__.copy()
        if self._owned_evaluator is not None:
            if self._evaluator_recipe is None:
                raise TypeError("a KernelEnv on a Judge cannot be pickled (the Judge holds threads and worker "
                                "processes): leave evaluator unset (the copy makes its own) or pass a RayEvalPool")
            state["evaluator"] = state["_owned_evaluator"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        if self.evaluator is None and self._evaluator_recipe is not None:
            self.evaluator = self._owned_evaluator = LocalEvaluator(**self._evaluator_recipe)

    # -- helpers --------------------------------------------------------------------------------------------
    @property
    def best_speedup(self) -> float:
        """The best measured speedup of a correct attempt so far (0 if none), within the observation's bounds
        ``[0, MAX_SPEEDUP]``; a non-finite speedup counts as none, and so does one on a task flagged
        ``degenerate_task`` (as in the rewards, the records and the reports)."""
        speedups = (r.speedup for r in self.history if r.correct and r.timing_meaningful and not _degenerate(r))
        best = max((float(s) for s in speedups if s is not None and math.isfinite(s) and s > 0), default=0.0)
        return min(best, MAX_SPEEDUP)

    def hardware_json(self) -> str:
        if self._hardware_json is None:
            self._hardware_json = self.evaluator.hardware_json()
            if self._hardware_json is None:  # the evaluator does not know: describe this env's device
                from kernelgym.hardware import detect

                self._hardware_json = detect(self.device).to_json()
        return self._hardware_json

    def _observation(self) -> dict:
        import json

        hardware = self.hardware_json()
        turn = len(self.history)
        prompt = render_prompt(self.task, json.loads(hardware), self.backend, self._feedback,
                               min(turn, self.max_turns - 1), self.max_turns)
        return {
            "task_id": self.task.id,
            "reference": self.task.source,
            "hardware": hardware,
            "feedback": self._feedback,
            "prompt": prompt,
            "turn": turn,
            "best_speedup": np.array([self.best_speedup], dtype=np.float32),
        }


def empty_selection(tasks: TaskSet, selection: dict) -> str:
    """Why no task of ``tasks`` is left: the filters given in ``selection`` (name → value; ``None``: not given)
    and what ``tasks`` holds (its size, first and last ids, levels and categories). It said only "no task matches
    the given selection"."""
    given = ", ".join(f"{name}={value!r}" for name, value in selection.items() if value is not None)
    if not len(tasks):
        return f"no task matches {given or 'the selection'}: the task source holds none"
    levels = ", ".join(str(level) for level in sorted({t.level for t in tasks}))
    categories = ", ".join(sorted({t.category for t in tasks}))
    return (f"no task matches {given}: of the {len(tasks)} tasks ({tasks.ids[0]} .. {tasks.ids[-1]}; levels there: "
            f"{levels}; categories there: {categories}), none is selected")


def reaches_goal(result: EvalResult, target_speedup: float = 1.0) -> bool:
    """Whether an attempt ends its episode: it is correct and reaches ``target_speedup``, or is correct where speed is
    not measured (the CPU interpreter, a task flagged ``degenerate_task``). One rule for KernelEnv, SkyRL's env and
    the TRL and veRL multi-turn loops (docs/INTEGRATIONS.md)."""
    return bool(result.correct and (not result.timing_meaningful or _degenerate(result)
                                    or (result.speedup or 0.0) >= target_speedup))


def _degenerate(result: EvalResult) -> bool:
    """Whether the judge flagged the result ``degenerate_task`` (any constant is correct there: speed proves
    nothing, :func:`kernelgym.scoring.metrics.measured_speedup`)."""
    return any(isinstance(f, dict) and f.get("name") == "degenerate_task" for f in result.flags)


def _task_info(task: Task) -> dict:
    return {"id": task.id, "task_set": task.task_set, "level": task.level, "category": task.category,
            "dtype": task.dtype, "atol": task.atol, "rtol": task.rtol}
