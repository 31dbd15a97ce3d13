"""The Evaluator protocol (kernelgym.evaluators) and the torch-use policy as a setting of every layer: the env,
LocalEvaluator, JudgePool, collect and the CLI, each reaching a real judge (the Ray pool: tests/test_distributed.py)."""

from __future__ import annotations

import json
from concurrent.futures import Future

import gymnasium as gym
import pytest

import kernelgym  # noqa: F401 - registers the ids
from conftest import DATA, GOOD, InstantEvaluator, candidate
from kernelgym.evaluators import Evaluator, LocalEvaluator, as_evaluator
from kernelgym.judge.result import EvalResult
from test_torch_policy import SHORT, TORCH_THEN_OWN_EPILOGUE

NOT_AN_EVALUATOR = "is not a kernelgym.evaluators.Evaluator"


class OldStyle:
    """The duck type of earlier releases: ``evaluate`` only."""

    def evaluate(self, task, text, backend="triton", profile="quick"):
        return EvalResult(task_id=task.id)


def make(**kwargs):
    kwargs.setdefault("tasks", str(DATA / "tasks"))
    return gym.make("KernelGym-L1-v0", **kwargs)


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    with LocalEvaluator(device="cpu", cache_dir=tmp_path_factory.mktemp("cache"), max_workers=2) as evaluator:
        yield evaluator


# -- the protocol ------------------------------------------------------------------------------------------
def test_local_evaluator_pool_and_test_double_satisfy_the_protocol(local, judge):
    from kernelgym.evaluators.judge_pool import JudgePool

    with JudgePool(device="cpu", max_workers=1) as pool:
        for evaluator in (local, pool, InstantEvaluator()):
            assert isinstance(evaluator, Evaluator) and as_evaluator(evaluator) is evaluator
    assert not isinstance(judge, Evaluator)
    wrapped = as_evaluator(judge)
    assert isinstance(wrapped, LocalEvaluator) and wrapped.judges() == [judge]
    wrapped.close()  # the Judge stays the caller's: still usable
    assert judge.evaluate(kernelgym.load_tasks(DATA / "tasks").get("L1/1_scaled_relu"), "no code").stage == "format"


@pytest.mark.parametrize("obj", [OldStyle(), object(), "evaluator"])
def test_a_non_evaluator_is_a_type_error_naming_the_protocol(obj, test_tasks, tmp_path):
    from kernelgym.data.collect import collect
    from kernelgym.envs.vector import KernelVectorEnv
    from kernelgym.evaluators.judge_pool import JudgePool

    with pytest.raises(TypeError, match=NOT_AN_EVALUATOR):
        as_evaluator(obj)
    with pytest.raises(TypeError, match=NOT_AN_EVALUATOR):
        make(evaluator=obj)
    with pytest.raises(TypeError, match=NOT_AN_EVALUATOR):
        KernelVectorEnv(2, obj, tasks=str(DATA / "tasks"))
    with pytest.raises(TypeError, match=NOT_AN_EVALUATOR):
        JudgePool(evaluator=obj)
    with pytest.raises(TypeError, match=NOT_AN_EVALUATOR):
        collect(lambda obs: GOOD, test_tasks, tmp_path / "e.jsonl", evaluator=obj, progress=False)
    assert not (tmp_path / "e.jsonl").exists()


def test_local_evaluator_submits_futures_and_keeps_batch_order(local, relu_task):
    future = local.submit(relu_task, GOOD, profile=SHORT)
    assert isinstance(future, Future)
    texts = [candidate(expr="x"), GOOD, "no code"]
    results = local.evaluate_many([(relu_task, t) for t in texts], profile=SHORT)
    assert all(type(r) is EvalResult for r in results)
    assert [r.status for r in results] == ["incorrect", "ok", "compile_error"]
    assert future.result().status == "ok"
    assert json.loads(local.hardware_json())["kind"] == "cpu"


# -- torch_policy reaches the judge --------------------------------------------------------------------------
@pytest.mark.parametrize("torch_policy, status", [("strict", "rejected"), ("partial", "ok")])
def test_local_evaluator_passes_the_torch_policy(local, relu_task, torch_policy, status):
    result = local.submit(relu_task, TORCH_THEN_OWN_EPILOGUE, profile=SHORT, torch_policy=torch_policy).result()
    assert (result.status, result.torch_policy) == (status, torch_policy), result.message
    [batched] = local.evaluate_many([(relu_task, TORCH_THEN_OWN_EPILOGUE)], profile=SHORT,
                                    torch_policy=torch_policy)
    assert (batched.status, batched.torch_policy) == (status, torch_policy)


def test_judge_pool_passes_the_torch_policy(relu_task, tmp_path):
    from kernelgym.evaluators.judge_pool import JudgePool

    items = [(relu_task, TORCH_THEN_OWN_EPILOGUE), (relu_task, GOOD)]
    with JudgePool(device="cpu", cache_dir=tmp_path, max_workers=2) as pool:
        strict = dict(pool.imap(items, profile=SHORT, torch_policy="strict"))
    assert [strict[i].status for i in range(2)] == ["rejected", "ok"]
    assert {r.torch_policy for r in strict.values()} == {"strict"}


@pytest.mark.parametrize("torch_policy, status", [("strict", "rejected"), ("partial", "ok"), (None, "ok")])
def test_env_passes_the_torch_policy_and_info_carries_it(judge, relu_task, torch_policy, status):
    kwargs = {} if torch_policy is None else {"torch_policy": torch_policy}
    env = make(evaluator=judge, profile=SHORT, **kwargs)
    env.reset(seed=0, options={"task_id": relu_task.id})
    _, reward, *_, info = env.step(TORCH_THEN_OWN_EPILOGUE)
    assert info["result"]["status"] == status, info["result"]["message"]
    assert info["result"]["torch_policy"] == (torch_policy or "partial")
    assert "kernel_coverage" in info["result"]
    assert (reward > 0) == (status == "ok")
    env.close()


def test_env_with_its_own_evaluator_passes_the_torch_policy(relu_task):
    env = make(device="cpu", profile=SHORT, torch_policy="strict")
    assert isinstance(env.unwrapped.evaluator, LocalEvaluator)
    env.reset(seed=0, options={"task_id": relu_task.id})
    *_, info = env.step(TORCH_THEN_OWN_EPILOGUE)
    assert (info["result"]["status"], info["result"]["torch_policy"]) == ("rejected", "strict")
    env.close()
    assert env.unwrapped.evaluator.idle_worker_pids() == []


def test_vector_env_passes_the_torch_policy():
    from kernelgym.envs.vector import KernelVectorEnv

    evaluator = InstantEvaluator()
    venv = KernelVectorEnv(2, evaluator, tasks=str(DATA / "tasks"), torch_policy="off")
    venv.reset(seed=0)
    *_, infos = venv.step([GOOD, "junk"])
    assert evaluator.policies == ["off", "off"]
    assert [i["result"]["torch_policy"] for i in infos["per_env"]] == ["off", "off"]
    venv.close()


@pytest.mark.parametrize("torch_policy, status", [("strict", "rejected"), ("partial", "ok")])
def test_collect_passes_the_torch_policy_into_every_record(test_tasks, relu_task, tmp_path, torch_policy, status):
    from kernelgym.data.collect import collect
    from kernelgym.data.records import EpisodeRecord
    from kernelgym.data.writers import read_rows

    out = tmp_path / "episodes.jsonl"
    stats = collect(lambda obs: TORCH_THEN_OWN_EPILOGUE, test_tasks.select(ids=[relu_task.id]), out, samples=2,
                    profile=SHORT, device="cpu", jobs=2, cache_dir=tmp_path, progress=False, parquet=False,
                    torch_policy=torch_policy)
    assert stats.finished == 2
    for row in read_rows(out).rows:
        [result] = EpisodeRecord.from_row(row).results
        assert (result["status"], result["torch_policy"]) == (status, torch_policy), result["message"]
        assert "kernel_coverage" in result


def test_collect_on_a_given_evaluator_passes_the_torch_policy(test_tasks, tmp_path):
    from kernelgym.data.collect import collect

    evaluator = InstantEvaluator()
    collect(lambda obs: GOOD, test_tasks.select(pattern="L1/*"), tmp_path / "e.jsonl", evaluator=evaluator, jobs=2,
            torch_policy="strict", progress=False, parquet=False)
    assert evaluator.policies and set(evaluator.policies) == {"strict"}


# -- invalid policies fail where they are given ----------------------------------------------------------------
def test_an_invalid_torch_policy_fails_at_construction(local, relu_task, test_tasks, tmp_path):
    from kernelgym.data.collect import collect
    from kernelgym.data.folder_eval import evaluate_folder

    match = r"^torch_policy must be one of strict, partial, off; got 'lenient'$"
    with pytest.raises(ValueError, match=match):
        make(evaluator=InstantEvaluator(), torch_policy="lenient")
    with pytest.raises(ValueError, match=match):
        local.submit(relu_task, GOOD, torch_policy="lenient")
    with pytest.raises(ValueError, match=match):
        local.evaluate_many([(relu_task, GOOD)], torch_policy="lenient")
    out = tmp_path / "e.jsonl"
    with pytest.raises(ValueError, match=match):
        collect(lambda obs: GOOD, test_tasks, out, evaluator=InstantEvaluator(), torch_policy="lenient")
    assert not out.exists()
    with pytest.raises(ValueError, match=match):
        evaluate_folder(tmp_path, test_tasks, tmp_path / "out", torch_policy="lenient")


# -- the command line ------------------------------------------------------------------------------------------
def test_cli_eval_takes_torch_policy(tmp_path, capsys):
    from kernelgym import cli

    path = tmp_path / "candidate.py"
    path.write_text(TORCH_THEN_OWN_EPILOGUE)
    common = ["eval", "L1/1_scaled_relu", str(path), "--tasks", str(DATA / "tasks"), "--device", "cpu",
              "--cache-dir", str(tmp_path / "cache"), "--json"]
    assert cli.main(common + ["--torch-policy", "strict"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert (result["status"], result["torch_policy"]) == ("rejected", "strict")
    assert cli.main(common) == 0
    assert json.loads(capsys.readouterr().out)["torch_policy"] == "partial"
    with pytest.raises(SystemExit) as exc:
        cli.main(common + ["--torch-policy", "lenient"])
    assert exc.value.code == 2 and "invalid choice: 'lenient'" in capsys.readouterr().err


def test_cli_collect_takes_torch_policy(tmp_path, relu_task):
    from kernelgym import cli
    from kernelgym.data.writers import read_rows

    policy_file = tmp_path / "pol.py"
    policy_file.write_text(f"TEXT = {TORCH_THEN_OWN_EPILOGUE!r}\ndef policy(observation):\n    return TEXT\n")
    out = tmp_path / "e.jsonl"
    code = cli.main(["collect", "--tasks", str(DATA / "tasks"), "--task", relu_task.id, "--policy",
                     f"{policy_file}:policy", "--device", "cpu", "--cache-dir", str(tmp_path / "cache"), "--out",
                     str(out), "--torch-policy", "strict", "--no-progress", "--no-parquet"])
    assert code == 0
    [row] = read_rows(out).rows
    result = json.loads(row["results"][0])
    assert (result["status"], result["torch_policy"]) == ("rejected", "strict")


# -- the coverage-aware reward ----------------------------------------------------------------------------------
def test_speedup_coverage_reward_credits_only_the_candidates_share():
    from kernelgym.rewards import get_reward

    def res(speedup, coverage, meaningful=True, status="ok"):
        return EvalResult(task_id="t", status=status, stage="done", speedup=speedup, timing_meaningful=meaningful,
                          kernel_coverage=coverage, torch_policy="partial")

    fn = get_reward("speedup_coverage")
    assert fn(res(10.0, 1.0), []) == pytest.approx(1.0) == get_reward("speedup")(res(10.0, 1.0), [])
    assert fn(res(10.0, 0.5), []) == pytest.approx(0.65)
    assert fn(res(10.0, None), []) == pytest.approx(0.3)     # coverage not measured: no speed bonus
    assert fn(res(None, None, meaningful=False), []) == pytest.approx(0.3)  # CPU: correct only
    assert fn(res(10.0, 1.0, status="rejected"), []) == 0.0
    assert fn(res(10.0, 0.5).to_dict(), []) == pytest.approx(0.65)
    assert get_reward("speedup_coverage:100")(res(10.0, 1.0), []) == pytest.approx(0.65)


def _forget_the_sandbox_probe(sandbox) -> None:
    """The bwrap path and the probe are found once per process: find them again (under this test's environment,
    and after it under the session's)."""
    sandbox.bwrap_executable.cache_clear()
    sandbox.probe.cache_clear()


def test_every_queued_future_fails_when_the_threads_judge_cannot_be_made(relu_task, tmp_path, monkeypatch):
    """A judge that cannot start (here: no sandbox) fails each evaluation with its error; none waits for ever."""
    from kernelgym.judge import sandbox

    monkeypatch.setenv("KERNELGYM_BWRAP", str(tmp_path / "no-bwrap"))
    monkeypatch.delenv("KERNELGYM_SANDBOX", raising=False)
    _forget_the_sandbox_probe(sandbox)
    try:
        with LocalEvaluator(device="cpu", cache_dir=tmp_path / "cache", max_workers=2) as pool:
            futures = [pool.submit(relu_task, GOOD, profile=SHORT) for _ in range(5)]  # more than the threads
            for future in futures:
                with pytest.raises(sandbox.SandboxUnavailable, match="no bwrap executable"):
                    future.result(timeout=60)
    finally:
        monkeypatch.undo()
        _forget_the_sandbox_probe(sandbox)
