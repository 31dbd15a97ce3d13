"""Every way a candidate can fail gives its own status and message, through gym.make, and never breaks the env.

These run real Triton kernels under the CPU interpreter in real worker processes. The crash cases run with the
static guards off, so they prove the run-time isolation on its own (test_static_guards proves the guards too).
"""

from __future__ import annotations

import gymnasium as gym
import pytest

import kernelgym  # noqa: F401
from conftest import DATA, GOOD, candidate, worker_processes
from kernelgym.judge.profiles import get_profile
from kernelgym.judge.runner import Judge

SHORT = get_profile("quick").with_overrides(compile_timeout_s=20, cpu_correctness_timeout_s=20, startup_timeout_s=60)

CASES = {
    # name: (candidate text, expected status, words expected in the message)
    "syntax_error": (candidate(expr="tl.maximum(x, 0.0) *"), "compile_error", "syntax error"),
    "import_error": (candidate(imports="import triton_no_such_module"), "compile_error", "No module named"),
    "wrong_values": (candidate(expr="tl.maximum(x, 0.0) * 2.0"), "incorrect", "elements outside"),
    "wrong_shape": (candidate(ret="y[:1]"), "incorrect", "shape"),
    "nan_output": (candidate(expr="(x - x) / (x - x)"), "incorrect", "NaN positions differ"),
    "python_exception": (candidate(pre="raise RuntimeError('boom from the candidate')"), "runtime_error",
                         "boom from the candidate"),
    "infinite_loop": (candidate(pre="while True: pass"), "timeout", "limit (stuck at candidate.py line"),
    "os_abort": (candidate(imports="import os", pre="os.abort()"), "crashed", "SIGABRT"),
    "sys_exit": (candidate(imports="import sys", pre="sys.exit(0)"), "runtime_error", "SystemExit"),
    "os_exit": (candidate(imports="import os", pre="os._exit(0)"), "crashed", "exited with code 0"),
    "no_modelnew": ("I could not write a kernel, sorry.", "compile_error", "ModelNew"),
}


#: the infinite loop runs into a stage limit (the compile stage's: its first forward is part of loading it): shorter
#: ones for that case (the honest kernel's compile and correctness stages take well under a second on the CPU)
STUCK = SHORT.with_overrides(compile_timeout_s=6, cpu_correctness_timeout_s=6)


@pytest.fixture(scope="module")
def unguarded_judge(tmp_path_factory):
    # one spare worker started ahead (as pools keep): the spare has run no candidate code, so the leftover check
    # below leaves it out (conftest.worker_processes' idle_groups, as in tests/test_prestart.py)
    judge = Judge(device="cpu", cache_dir=tmp_path_factory.mktemp("cache"), static_checks=False, prestart_workers=1)
    yield judge
    judge.close()


def make_env(evaluator, profile=SHORT):
    return gym.make("KernelGym-L1-v0", tasks=str(DATA / "tasks"), evaluator=evaluator, profile=profile, max_turns=2)


def test_correct_kernel_passes_every_trial(judge, relu_task):
    result = judge.evaluate(relu_task, GOOD, profile=SHORT)
    assert result.status == "ok", result.message + result.log_tail
    assert result.correct and result.compiled
    assert len(result.trials) == SHORT.trials + SHORT.outlier_trials + 2
    assert [t["stage"] for t in result.trials].count("recheck") == 1  # once more after timing
    assert [t["stage"] for t in result.trials].count("wide") == 1  # a float32 task: outliers beyond float16's range
    assert {t["stage"] for t in result.trials} == {"standard", "outlier", "wide", "recheck"}
    assert result.timing_meaningful is False and "not meaningful" in result.message
    assert result.runtime_ms > 0 and result.baseline_ms > 0
    assert set(result.durations) >= {"format", "static", "compile", "correctness", "timing", "total"}
    d = result.durations  # steps inside the stages: where their time goes
    assert 0 < d["trials"] <= d["correctness"] + d["recheck"] and d["reference"] > 0
    assert 0 < d["profiled_forward"] < d["correctness"]


def test_an_autotuned_kernel_runs_its_first_config_on_the_interpreter(judge, relu_task):
    """Triton's sweep benchmarks on a GPU and fails on the interpreter ("0 active drivers"): there the judge keeps
    the first config only. The second config here would compute the wrong values, so ok means the first ran."""
    text = GOOD.replace("@triton.jit", '@triton.autotune(configs=[triton.Config({"FACTOR": 2.0}), '
                                       'triton.Config({"FACTOR": 3.0})], key=["n"])\n@triton.jit')
    text = text.replace("BLOCK: tl.constexpr):", "BLOCK: tl.constexpr, FACTOR: tl.constexpr):")
    text = text.replace("tl.maximum(x, 0.0) * 2.0", "tl.maximum(x, 0.0) * FACTOR")
    assert text.count("FACTOR") == 4
    result = judge.evaluate(relu_task, text, profile=SHORT)
    assert result.status == "ok", result.message + result.log_tail


@pytest.mark.parametrize("name", list(CASES))
def test_failure_gets_its_status_then_env_still_judges_a_good_kernel(name, unguarded_judge):
    text, status, words = CASES[name]
    env = make_env(unguarded_judge, STUCK if name == "infinite_loop" else SHORT)
    env.reset(seed=0, options={"task_id": "L1/1_scaled_relu"})
    _, bad_reward, terminated, truncated, info = env.step(text)
    result = info["result"]
    assert result["status"] == status, (result["message"], result["log_tail"][-800:])
    assert words in result["message"], result["message"]
    assert not terminated and not truncated
    obs, good_reward, terminated, _, info = env.step(GOOD)
    assert info["result"]["status"] == "ok", info["result"]["message"]
    assert good_reward > bad_reward
    assert terminated  # correct on the CPU interpreter ends the episode
    assert worker_processes(idle_groups=unguarded_judge.idle_worker_pids()) == []  # none that ran candidate code


def test_cuda_candidate_on_cpu_is_unsupported(judge, relu_task):
    result = judge.evaluate(relu_task, "```python\nfrom torch.utils.cpp_extension import load_inline\n"
                                       "src = '__global__ void k() {}'\nclass ModelNew: pass\n```", backend="cuda")
    assert result.status == "unsupported"
    assert "no GPU" in result.message


def test_result_round_trips_through_json(judge, relu_task):
    from kernelgym.judge.result import EvalResult

    result = judge.evaluate(relu_task, candidate(expr="x"), profile=SHORT)
    again = EvalResult.from_json(result.to_json())
    assert again.to_dict() == result.to_dict()
    assert result.status == "incorrect" and result.trials and not result.trials[-1]["ok"]
    assert result.trials[-1]["worst_index"] is not None


def test_a_fault_of_the_judge_is_a_crashed_result_never_an_exception(tmp_path):
    """A reference that fails in the runner (a broken task) must not raise out of evaluate(): the caller's
    collection or training run goes on, and the result says whose fault it was."""
    from kernelgym.tasks import load_tasks

    source = (DATA / "tasks" / "level1" / "1_scaled_relu.py").read_text()
    broken = source.replace("return torch.relu(x) * 2 + 1", "raise RuntimeError('reference is broken')")
    assert broken != source
    (tmp_path / "level1").mkdir()
    (tmp_path / "level1" / "1_scaled_relu.py").write_text(broken)
    task = load_tasks(tmp_path).get("L1/1_scaled_relu")
    result = Judge(device="cpu", cache_dir=tmp_path / "cache").evaluate(task, GOOD, profile="quick")
    assert result.status == "crashed" and "internal judge error" in result.message
    assert "reference is broken" in result.message
    assert any(f["name"] == "judge_error" for f in result.flags)


def test_a_name_the_module_never_defines_is_a_compile_error_not_a_rejection(judge, relu_task):
    """A typo is found before any worker starts, and is a compile error (the NameError it stands for), with no
    flag: a rejection is kept for tricks."""
    from kernelgym.testing.candidates import candidate

    result = judge.evaluate(relu_task, candidate(expr="tl.maximum(x, 0.0) * scale_kg"), profile=SHORT)
    assert result.status == "compile_error" and result.stage == "static", result.message
    assert "scale_kg" in result.message and not result.flags


def nan_input_task(directory):
    """The scaled-relu test task whose inputs hold NaN (a NaN in, a NaN out), written under ``directory``."""
    from kernelgym.tasks import load_tasks
    from kernelgym.testing.candidates import TEST_TASKS

    text = (TEST_TASKS / "level1" / "1_scaled_relu.py").read_text()
    drawn = "    return [torch.randn(B, D)]\n"
    assert drawn in text
    text = text.replace(drawn, '    x = torch.randn(B, D)\n    x[::7, ::5] = float("nan")\n    return [x]\n')
    (directory / "level1").mkdir()
    (directory / "level1" / "1_scaled_relu.py").write_text(text)
    return load_tasks(directory).get("L1/1_scaled_relu")


@pytest.mark.parametrize("pre, status", [("pass", "ok"), ("x.view(-1)[3] = 0.0", "incorrect")],
                         ids=["honest", "writes_into_its_input"])
def test_inputs_holding_nan_are_unchanged_by_an_honest_kernel(judge, tmp_path, pre, status):
    """An input's NaN kept where it was is no change (torch.equal alone never finds NaN equal to itself, so every
    honest kernel of such a task was rejected with ``input_mutation``); a write into the input is still one."""
    task = nan_input_task(tmp_path)
    text = candidate(expr="tl.where(x < 0.0, 0.0, x) * 2.0 + 1.0", pre=pre)
    result = judge.evaluate(task, text, profile=SHORT)
    assert result.status == status, result.message + result.log_tail
    if status == "incorrect":
        assert "modified its input" in result.message, result.message
