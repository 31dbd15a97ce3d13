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
