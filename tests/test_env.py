"""KernelEnv through gym.make: spaces, registration, episode flow, check_env."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import kernelgym  # noqa: F401
from conftest import DATA, GOOD, candidate
from kernelgym.envs import ENV_IDS, AnyText


def make(**kwargs):
    kwargs.setdefault("tasks", str(DATA / "tasks"))
    return gym.make("KernelGym-L1-v0", **kwargs)


def test_all_ids_are_registered():
    for env_id in ("KernelBench-L1-v0", "KernelBench-L2-v0", "KernelBench-L3-v0", "KernelBench-v0",
                   "KernelGym-L1-v0", "KernelGym-L2-v0", "KernelGym-L3-v0", "KernelGym-v0", "KernelGym-X-v0"):
        assert env_id in gym.registry and env_id in ENV_IDS


def test_check_env_passes():
    env = make(device="cpu", max_turns=3)
    check_env(env.unwrapped, skip_render_check=True)


def test_any_text_accepts_any_string_up_to_its_length():
    space = AnyText(max_length=10)
    assert space.contains("∑ é \x01 {}")
    assert not space.contains("x" * 11)
    assert not space.contains(b"bytes")
    assert space.contains(space.sample())


def test_observation_holds_reference_hardware_prompt(judge):
    env = make(evaluator=judge)
    obs, info = env.reset(seed=1, options={"task_id": "L1/1_scaled_relu"})
    assert env.observation_space.contains(obs)
    assert "class Model" in obs["reference"] and obs["task_id"] == "L1/1_scaled_relu"
    assert '"kind": "cpu"' in obs["hardware"]
    assert "class Model" in obs["prompt"] and "ModelNew" in obs["prompt"]
    assert obs["feedback"] == "" and obs["turn"] == 0
    assert info["task"]["category"] == "Activation"


def test_multi_turn_truncates_after_max_turns_and_feedback_carries_errors(judge):
    env = make(evaluator=judge, max_turns=2)
    env.reset(seed=0)
    obs, r1, term, trunc, info = env.step(candidate(expr="tl.maximum(x, 0.0)"))
    assert (term, trunc) == (False, False) and obs["turn"] == 1
    assert "incorrect" in obs["feedback"] and "worst at" in obs["feedback"]
    assert "Feedback on your previous attempt" in obs["prompt"]
    obs, r2, term, trunc, info = env.step("not code at all")
    assert (term, trunc) == (False, True)
    assert info["result"]["stage"] == "format"
    assert info["judge_fault"] is False and info["result"]["judge_fault"] is False  # the text's own verdict
    with pytest.raises(RuntimeError):
        env.step(GOOD)


def test_step_never_raises_on_odd_actions(judge):
    env = make(evaluator=judge, max_turns=10)
    env.reset(seed=0)
    for action in ("", "\x00\x00", "```python\n```", "class ModelNew(:\n", 12345, "ü" * 5000):
        obs, reward, *_ = env.step(action)
        assert reward == 0.0 and env.observation_space.contains(obs)


def test_reward_kwarg_accepts_names_and_callables(judge):
    env = make(evaluator=judge, reward=lambda result, history: 42.0 if result.correct else -1.0)
    env.reset(seed=0)
    assert env.step(GOOD)[1] == 42.0
    env = make(evaluator=judge, reward="correct")
    env.reset(seed=0)
    assert env.step(GOOD)[1] == 1.0


def test_unknown_task_id_is_a_clear_error(judge):
    env = make(evaluator=judge)
    with pytest.raises(kernelgym.TaskError, match="unknown task id"):
        env.reset(options={"task_id": "L1/nope"})


def test_reset_with_seed_is_reproducible():
    env = gym.make("KernelGym-v0", device="cpu")
    picks = [env.reset(seed=5)[1]["task_id"] for _ in range(2)]
    assert picks[0] == picks[1]
    first = {env.reset(seed=s)[1]["task_id"] for s in range(20)}
    assert len(first) > 3


def test_best_speedup_is_a_float_box():
    env = make(device="cpu")
    obs, _ = env.reset(seed=0)
    assert obs["best_speedup"].dtype == np.float32 and obs["best_speedup"].shape == (1,)


class _ProfiledEvaluator:
    """An InstantEvaluator whose results carry profiling data, as a GPU evaluation's do."""

    def __init__(self):
        from conftest import InstantEvaluator

        self.inner = InstantEvaluator()
        self.device, self.hardware_json, self.close = "cpu", self.inner.hardware_json, self.inner.close

    def submit(self, task, text, **kwargs):
        future = self.inner.submit(task, text, **kwargs)
        future.result().top_kernels = {"candidate": [{"name": "my_kernel", "us": 9.0, "share": 0.9, "own": True}],
                                       "reference": [{"name": "at_gemm", "us": 20.0, "share": 1.0, "own": False}]}
        return future

    def evaluate_many(self, items, **kwargs):
        return [self.submit(task, text, **kwargs).result() for task, text in items]


@pytest.mark.parametrize("profiling_feedback", [True, False])
def test_profiling_feedback_reaches_the_next_prompt_unless_turned_off(profiling_feedback):
    from conftest import DATA

    env = gym.make("KernelGym-L1-v0", tasks=str(DATA / "tasks"), evaluator=_ProfiledEvaluator(), max_turns=3,
                   profiling_feedback=profiling_feedback)
    env.reset(seed=0)
    obs, _, _, _, info = env.step("no kernel here")
    assert ("Top kernels of your forward" in obs["prompt"]) is profiling_feedback
    assert ("at_gemm" in obs["prompt"]) is profiling_feedback
    assert info["result"]["top_kernels"]["candidate"][0]["name"] == "my_kernel"  # kept in the result either way
