"""Trainer adapters called exactly as their trainers call them, without the trainers (which the
tests/test_trainer_*.py files run for real)."""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import threading
from pathlib import Path

import pytest

from conftest import DATA, GOOD, candidate
from kernelgym.integrations.scorer import Scorer
from kernelgym.integrations.skyrl import KernelTextEnv
from kernelgym.integrations.trl import make_async_reward_func, make_reward_func
from kernelgym.judge.result import EvalResult
from kernelgym.tasks import TaskError

TASK = "L1/1_scaled_relu"
WRONG = candidate(expr="tl.maximum(x, 0.0)")
CORRECT_ON_CPU = 0.3  # the default "speedup" reward of a correct kernel whose speed is not measured


def fenced(code: str) -> str:
    return f"Here you go.\n```python\n{code}\n```"


class BatchEvaluator:
    """An Evaluator (kernelgym.evaluators) whose evaluate_many records the batches it is given."""

    def __init__(self):
        self.batches = []

    def evaluate_many(self, items, *, backend="triton", profile="quick", torch_policy="partial"):
        self.batches.append([(task.id, text) for task, text in items])
        return [EvalResult(task_id=task.id, stage="done", status="ok" if "* 2.0 + 1.0" in text else "incorrect")
                for task, text in items]

    def submit(self, task, text, *, backend="triton", profile="quick", torch_policy="partial"):
        from concurrent.futures import Future

        future = Future()
        future.set_result(self.evaluate_many([(task, text)])[0])
        return future

    def hardware_json(self):
        return None

    def close(self):
        pass


@pytest.fixture(scope="module")
def scorer(tmp_path_factory):
    s = Scorer(tasks=str(DATA / "tasks"), device="cpu", cache_dir=tmp_path_factory.mktemp("cache"), max_workers=2)
    yield s
    s.close()


# -- TRL ---------------------------------------------------------------------------------------------------
def test_trl_reward_scores_a_mixed_batch_concurrently(scorer):
    reward_func = make_reward_func(scorer)
    seen_threads = set()
    original = scorer.pool._judges.get

    def spy():
        seen_threads.add(threading.current_thread().name)
        return original()

    scorer.pool._judges.get = spy
    try:
        prompts = [[{"role": "user", "content": "write a kernel"}]] * 3
        completions = [[{"role": "assistant", "content": fenced(GOOD)}],   # conversational format
                       WRONG,                                              # standard format
                       [{"role": "assistant", "content": "no code here"}]]
        rewards = reward_func(prompts=prompts, completions=completions, task_id=[TASK] * 3,
                              completion_ids=[[1, 2, 3]] * 3, trainer_state=None)
    finally:
        scorer.pool._judges.get = original
    assert rewards == [pytest.approx(CORRECT_ON_CPU), 0.0, 0.0] and all(type(r) is float for r in rewards)
    assert [r.status for r in reward_func.last_results] == ["ok", "incorrect", "compile_error"]
    assert len(seen_threads) == 2 and all(name.startswith("kernelgym-judge") for name in seen_threads)
    assert reward_func.__name__ == "kernelgym_reward"


def test_trl_reward_uses_an_evaluators_evaluate_many():
    evaluator = BatchEvaluator()
    reward_func = make_reward_func(tasks=str(DATA / "tasks"), evaluator=evaluator, reward="correct")
    rewards = reward_func(prompts=["p", "p"], completions=[GOOD, WRONG], task_id=[TASK, TASK])
    assert rewards == [1.0, 0.0]
    assert evaluator.batches == [[(TASK, GOOD), (TASK, WRONG)]]


def test_trl_async_reward_is_a_coroutine_function(scorer):
    reward_func = make_async_reward_func(scorer, name="kernel_speed")
    assert inspect.iscoroutinefunction(reward_func) and reward_func.__name__ == "kernel_speed"
    rewards = asyncio.run(reward_func(prompts=["p"], completions=[fenced(GOOD)], task_id=[TASK]))
    assert rewards == [pytest.approx(CORRECT_ON_CPU)]


def test_trl_reward_needs_a_task_id_column_of_known_ids():
    reward_func = make_reward_func(tasks=str(DATA / "tasks"), evaluator=BatchEvaluator())
    with pytest.raises(ValueError, match="task_id"):
        reward_func(prompts=["p"], completions=[GOOD])
    with pytest.raises(TaskError, match="unknown task id"):
        reward_func(prompts=["p"], completions=[GOOD], task_id=["L1/nope"])


def test_trl_rollout_func_finds_task_ids_by_prompt():
    from kernelgym.integrations.trl import make_rollout_func

    rows = [{"prompt": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "relu"}],
             "task_id": TASK}, {"prompt": "plain text prompt", "task_id": TASK}]
    rollout = make_rollout_func(rows, tasks=str(DATA / "tasks"), evaluator=BatchEvaluator(), max_turns=2)
    assert rollout.task_id([{"role": "user", "content": "relu"}]) == TASK
    assert rollout.task_id("plain text prompt") == TASK
    with pytest.raises(ValueError, match="not in the dataset"):
        rollout.task_id("another prompt")
    with pytest.raises(ValueError, match="task_id"):
        make_rollout_func([{"prompt": "p"}], evaluator=BatchEvaluator())
    with pytest.raises(ValueError, match="two task ids"):
        make_rollout_func([{"prompt": "p", "task_id": "a"}, {"prompt": "p", "task_id": "b"}],
                          evaluator=BatchEvaluator())
    assert rollout.reward_func(completions=["x", "y"], kernelgym_reward=[0.3, 0.0]) == [0.3, 0.0]
    with pytest.raises(ValueError, match="rollout_func"):
        rollout.reward_func(completions=["x"])


# -- veRL --------------------------------------------------------------------------------------------------
def test_verl_compute_score_loaded_from_its_file_as_verl_does(monkeypatch, tmp_path):
    monkeypatch.setenv("KERNELGYM_TASKS", str(DATA / "tasks"))
    monkeypatch.setenv("KERNELGYM_DEVICE", "cpu")
    monkeypatch.setenv("KERNELGYM_CACHE", str(tmp_path))
    import kernelgym.integrations.verl as verl_module

    spec = importlib.util.spec_from_file_location("custom_module", Path(verl_module.__file__))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    compute_score = getattr(module, "compute_score")
    good = compute_score("kernelgym/kernelbench", fenced(GOOD), TASK, extra_info={"index": 0})
    junk = compute_score(data_source="kernelgym/kernelbench", solution_str="sorry", ground_truth=TASK)
    assert good == pytest.approx(CORRECT_ON_CPU) and junk == 0.0 and type(good) is float
    assert module.default_scorer().backend == "triton"
    junk_batch = module.compute_score_batch(["kernelgym"] * 2, ["nope", "still nope"], [TASK] * 2, [{}, {}])
    assert junk_batch == [0.0, 0.0]


def test_verl_make_compute_score_binds_a_scorer():
    compute_score = __import__("kernelgym.integrations.verl", fromlist=["x"]).make_compute_score(
        tasks=str(DATA / "tasks"), evaluator=BatchEvaluator(), reward="correct")
    assert compute_score("kernelgym", GOOD, TASK) == 1.0
    assert compute_score("kernelgym", WRONG, TASK, None) == 0.0


# -- SkyRL -------------------------------------------------------------------------------------------------
def test_skyrl_env_multi_turn_episode(judge):
    env = KernelTextEnv(env_config={"tasks": str(DATA / "tasks"), "max_turns": 2, "evaluator": judge},
                        extras={"reward_spec": {"method": "rule", "ground_truth": TASK}, "data_source": "kernelgym"})
    chat = [{"role": "user", "content": "Write ModelNew for the scaled relu."}]
    prompt, metadata = env.init(chat)
    assert prompt == chat and metadata["task_id"] == TASK and metadata["task"]["category"] == "Activation"

    first = env.step(fenced(WRONG))
    assert set(first) >= {"observations", "reward", "done", "metadata"}
    assert first["done"] is False and first["reward"] == 0.0
    (feedback,) = first["observations"]
    assert feedback["role"] == "user" and "Status: incorrect" in feedback["content"]
    assert "Attempt 2 of 2" in feedback["content"]

    second = env.step(fenced(GOOD))
    assert second["done"] is True and second["observations"] == []
    assert second["reward"] == pytest.approx(CORRECT_ON_CPU) and second["metadata"]["result"]["status"] == "ok"
    assert env.get_metrics() == {"turns": 2, "correct": 1.0, "best_speedup": 0.0, "best_reward": pytest.approx(0.3),
                                 "final_reward": pytest.approx(0.3)}
    env.close()


def test_skyrl_env_builds_its_prompt_and_needs_a_task_id(judge):
    env = KernelTextEnv({"tasks": str(DATA / "tasks"), "evaluator": judge}, {"task_id": TASK})
    prompt, _ = env.init(None)
    assert prompt[0]["role"] == "user" and "class Model" in prompt[0]["content"]
    with pytest.raises(ValueError, match="task id"):
        KernelTextEnv({"tasks": str(DATA / "tasks")}, {})


def test_the_scorer_passes_its_torch_policy_to_the_evaluator():
    from conftest import GOOD, InstantEvaluator
    from kernelgym.integrations.scorer import Scorer

    evaluator = InstantEvaluator()
    scorer = Scorer(tasks=str(DATA / "tasks"), evaluator=evaluator, torch_policy="strict")
    scorer.score("L1/1_scaled_relu", GOOD)
    assert evaluator.policies == ["strict"]
    with pytest.raises(ValueError, match="torch_policy"):
        Scorer(evaluator=evaluator, torch_policy="lenient")


def test_the_torch_policy_can_come_from_the_environment(monkeypatch):
    from kernelgym.integrations.scorer import environ_settings

    assert environ_settings()["torch_policy"] == "partial"
    monkeypatch.setenv("KERNELGYM_TORCH_POLICY", "strict")
    assert environ_settings()["torch_policy"] == "strict"
