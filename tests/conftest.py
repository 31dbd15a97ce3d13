"""Shared fixtures: a small test task set and candidate programs built from one Triton template."""

from __future__ import annotations

import os

import pytest

from kernelgym.judge.profiles import get_profile
from kernelgym.judge.result import EvalResult
from kernelgym.testing.candidates import GOOD, TEST_TASKS, candidate  # noqa: F401

DATA = TEST_TASKS.parent  # DATA / "tasks" is the small test task set


#: the quick profile with one-minute compile and correctness limits, for the CPU judge runs of the tests
SHORT = get_profile("quick").with_overrides(compile_timeout_s=60, cpu_correctness_timeout_s=60)


@pytest.fixture(scope="session")
def test_tasks():
    from kernelgym.tasks import load_tasks

    return load_tasks(DATA / "tasks")


@pytest.fixture(scope="session")
def relu_task(test_tasks):
    return test_tasks.get("L1/1_scaled_relu")


@pytest.fixture(scope="session")
def judge(tmp_path_factory):
    from kernelgym.judge.runner import Judge

    return Judge(device="cpu", cache_dir=tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="module")
def runtime_judge(tmp_path_factory):
    """A CPU judge with the static guards off, for the runtime defences (a module may define its own instead)."""
    from kernelgym.judge.runner import Judge

    judge = Judge(device="cpu", cache_dir=tmp_path_factory.mktemp("cache"), static_checks=False,
                  memory_limit_bytes=3 << 30)
    yield judge
    judge.close()


def assert_rejected_for(result, words: str) -> None:
    """``result`` is ``rejected`` with ``words`` in its message or a flag's reason, and no judge fault."""
    assert result.status == "rejected", (result.status, result.runtime_ms, result.message, result.log_tail[-600:])
    assert words in result.message + " ".join(f["reason"] for f in result.flags), (result.message, result.flags)
    assert not result.judge_fault, result.flags


@pytest.fixture
def no_probes(monkeypatch):
    """Timed blocks without probes (``Session.probe_for_block``), for tests of what the other checks catch alone."""
    from kernelgym.judge import session

    monkeypatch.setattr(session, "PROBE_SHARE", 0.0)


def local_ray(num_cpus: int = 2, num_gpus: int | None = None):
    """A local Ray cluster for a fixture to yield from: started with ``num_cpus`` CPUs and ``num_gpus`` GPU
    resources (fake on a machine without GPUs; ``None``: what Ray finds), shut down after."""
    import ray

    ray.init(num_cpus=num_cpus, **({} if num_gpus is None else {"num_gpus": num_gpus}), include_dashboard=False,
             log_to_driver=False, ignore_reinit_error=True)
    yield
    ray.shutdown()


def run_threads(targets) -> None:
    """Run each callable of ``targets`` on a thread of its own, all at once, and wait for them all."""
    import threading

    threads = [threading.Thread(target=target) for target in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def bound_block_calls(spread: dict, block: int) -> int:
    """The calls of the blocks the wall-clock bound's check added (``block`` each: one without a probe where every
    timed block had one, ``Session.check_wall_clock``), from a result's ``runtime_spread``."""
    return block * spread["runner_blocks_added"]


def worker_processes(owner: int | None = None, idle_groups=()) -> list[int]:
    """PIDs of live judge workers started by the process ``owner`` (default: this one) and their children, leaving
    out the process groups in ``idle_groups`` (spare workers started ahead that have run no candidate code)."""
    import gc

    gc.collect()  # judges no longer reachable stop their spare workers (weakref.finalize) before the count
    owner = os.getpid() if owner is None else owner
    tag = f"KERNELGYM_RUNNER_PID={owner}".encode()
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                environ = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        state, pgid = fields[0], int(fields[3])
        if tag in environ and state != "Z" and pgid not in idle_groups:
            pids.append(int(entry))
    return pids


class InstantEvaluator:
    """A :class:`kernelgym.evaluators.Evaluator` that scores without running anything: status ok when the text holds
    the GOOD kernel's expression. Records the torch policy of every call in ``policies``."""

    device = "cpu"

    def __init__(self):
        self.policies = []

    def evaluate(self, task, text, backend="triton", profile="quick", torch_policy="partial"):
        from kernelgym.judge import policy

        self.policies.append(policy.check(torch_policy))
        ok = "* 2.0 + 1.0" in text
        return EvalResult(task_id=task.id, backend=backend, stage="done" if ok else "correctness",
                          status="ok" if ok else "incorrect", message="instant", torch_policy=torch_policy,
                          profile=getattr(profile, "name", profile))

    def submit(self, task, text, *, backend="triton", profile="quick", torch_policy="partial"):
        from concurrent.futures import Future

        future = Future()
        future.set_result(self.evaluate(task, text, backend, profile, torch_policy))
        return future

    def evaluate_many(self, items, *, backend="triton", profile="quick", torch_policy="partial"):
        return [self.evaluate(task, text, backend, profile, torch_policy) for task, text in items]

    def hardware_json(self):
        return None  # unknown: the env describes its own device

    def close(self):
        pass
