"""Every bundled Triton solution passes the judge on CPU at the small shapes (issue: verified solutions)."""

from __future__ import annotations

import pytest

from kernelgym.data.policies import ReplayPolicy
from kernelgym.tasks import load_tasks

pytestmark = pytest.mark.slow  # every bundled solution judged on the CPU: minutes in all

POLICY = ReplayPolicy()
SOLVED = POLICY.task_ids()


@pytest.fixture(scope="module")
def bundled():
    return load_tasks()


@pytest.fixture(scope="module")
def verdicts(bundled, tmp_path_factory):
    """Every solution queued at once on a pool of two judges (like the session judge: sandboxed, static checks on,
    no spare workers), so two evaluations run at a time on the CI's two cores; each test waits for its own."""
    from kernelgym.evaluators import LocalEvaluator

    with LocalEvaluator(device="cpu", cache_dir=tmp_path_factory.mktemp("cache"), max_workers=2,
                        prestart_workers=False) as evaluator:
        futures = {task_id: evaluator.submit(bundled.get(task_id), POLICY({"task_id": task_id}))
                   for task_id in SOLVED}
        yield futures
        for future in futures.values():
            future.cancel()


def test_there_are_bundled_solutions():
    assert len(SOLVED) >= 12
    assert {s.split("/")[0] for s in SOLVED} >= {"L1", "L2", "L3"}


@pytest.mark.parametrize("task_id", SOLVED)
def test_solution_is_correct_on_cpu(task_id, verdicts):
    result = verdicts[task_id].result()
    assert result.status == "ok", f"{result.message}\n{result.log_tail[-1500:]}"
    assert not result.flags


#: run with the interpreter on: every config of every ``@triton.autotune`` in the bundled solutions, alone, at the
#: task's small shapes against the reference (the judge runs only the first config on the CPU)
EVERY_CONFIG = r'''
import importlib.util, sys, torch
from triton.runtime.autotuner import Autotuner
from kernelgym.data.policies import ReplayPolicy
from kernelgym.judge.inputs import build_model, make_inputs
from kernelgym.tasks import load_tasks

tasks, policy, checked = load_tasks(), ReplayPolicy(), 0
for task_id in policy.task_ids():
    spec = importlib.util.spec_from_file_location("solution", policy.path(task_id))
    solution = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(solution)
    tuners = [v for v in vars(solution).values() if isinstance(v, Autotuner)]
    task = tasks.get(task_id)
    module = task.load_module(small=True)
    inputs = make_inputs(module, 1, "cpu")
    expected = build_model(module, module.Model, 0, "cpu", task.dtype)(*inputs)
    for tuner in tuners:
        every = list(tuner.configs)
        for config in every:
            tuner.configs, tuner.cache = [config], {}
            got = build_model(module, solution.ModelNew, 0, "cpu", task.dtype)(*inputs)
            tol = dict(atol=task.atol, rtol=task.rtol)
            assert torch.allclose(got.float(), expected.float(), **tol), (task_id, config)
            checked += 1
        tuner.configs = every
print("CHECKED", checked)
'''


def test_every_autotune_config_of_the_solutions_is_correct():
    import os
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", EVERY_CONFIG], capture_output=True, text=True, timeout=600,
                         env={**os.environ, "TRITON_INTERPRET": "1"})
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout.split("CHECKED")[-1]) >= 4 * 5  # the matmul, sum, softmax and log-softmax sweeps
