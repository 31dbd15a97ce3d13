"""Stopping early: closing an evaluator under running evaluations (``close(abort=True)``, what ``with`` does when
its block raises) and Ctrl-C in ``kernelgym eval`` end the work in seconds, kill every worker, cancel what was
queued and keep what was already written. Real workers, real hanging candidates, a real SIGINT."""

from __future__ import annotations

import importlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import DATA, GOOD, candidate, worker_processes
from kernelgym.evaluators import LocalEvaluator
from kernelgym.evaluators.judge_pool import JudgePool

HANG = candidate(pre="while True: pass")  # stuck in the forward until the compile stage's limit (120 s)
ROOT = Path(__file__).resolve().parents[1]


def wait_for(condition, timeout_s: float, what: str):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    pytest.fail(f"timed out after {timeout_s} s waiting for {what}")


def as_a_foreground_command() -> None:
    """In the child before exec: Ctrl-C's signal at its default, as a shell gives a foreground command. A process
    started with SIGINT ignored keeps it ignored (POSIX; Python then installs no KeyboardInterrupt handler), and
    the test process may have inherited or been left that setting by a library (the CLI is then right to ignore
    it, but this test is about the foreground case)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def busy_workers(idle) -> list[int]:
    return worker_processes(idle_groups=set(idle()))


def test_close_with_abort_ends_running_evaluations_and_cancels_queued_ones(relu_task, tmp_path):
    evaluator = LocalEvaluator(device="cpu", cache_dir=tmp_path / "cache", max_workers=2)
    futures = [evaluator.submit(relu_task, HANG) for _ in range(3)]
    wait_for(lambda: len(busy_workers(evaluator.idle_worker_pids)) >= 2, 90, "two hanging candidates to run")
    started = time.monotonic()
    evaluator.close(abort=True)
    assert time.monotonic() - started < 20  # not the 120 s compile limit of each, not the queued third one

    assert futures[2].cancelled()
    for future in futures[:2]:
        result = future.result(timeout=0)
        assert result.status == "crashed" and "aborted by its caller" in result.message
        assert [f["name"] for f in result.flags] == ["aborted"] and result.judge_fault
    assert worker_processes() == []  # the running workers and every spare are gone
    with pytest.raises(RuntimeError, match="abort=True"):
        evaluator.submit(relu_task, GOOD)


def test_a_judge_pool_left_by_an_exception_aborts_its_evaluations(relu_task, tmp_path):
    started = None
    with pytest.raises(KeyboardInterrupt):
        with JudgePool(device="cpu", cache_dir=tmp_path / "cache", max_workers=1) as pool:
            future = pool.submit(relu_task, HANG)
            wait_for(lambda: busy_workers(pool.evaluator.idle_worker_pids), 90, "the hanging candidate to run")
            started = time.monotonic()
            raise KeyboardInterrupt
    assert time.monotonic() - started < 20
    assert future.result(timeout=0).status == "crashed"
    assert worker_processes() == []


@pytest.mark.parametrize("where", ["local", pytest.param("ray", marks=pytest.mark.slow)])
def test_ctrl_c_stops_eval_at_once_and_keeps_the_rows_written(tmp_path, where):
    if where == "ray":
        pytest.importorskip("ray")
    gens = tmp_path / "gens" / "L1" / "1_scaled_relu"
    gens.mkdir(parents=True)
    (gens / "0.py").write_text(GOOD)  # first in line: done before the interrupt
    for sample in range(1, 5):
        (gens / f"{sample}.py").write_text(HANG)
    out = tmp_path / "report"
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.Popen([sys.executable, "-m", "kernelgym.cli", "eval", str(tmp_path / "gens"), "--tasks",
                             str(DATA / "tasks"), "--device", "cpu", "--jobs", "2", "--out", str(out),
                             "--cache-dir", str(tmp_path / "cache"), "--no-progress"]
                            + (["--ray", "local"] if where == "ray" else []),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path,
                            preexec_fn=as_a_foreground_command)
    try:
        results = out / "results.jsonl"
        if where == "local":
            wait_for(lambda: results.exists() and results.read_text().count("\n") >= 1, 120, "the first row")
            workers = wait_for(lambda: worker_processes(owner=proc.pid), 60, "the hanging candidates' workers")
        else:  # all five run at once in the Ray actor; the good one's timing may wait for the hanging ones'
            # compile steps (docs/ARCHITECTURE.md, GPU scheduling) or get there first: its row may or may not be in
            wait_for(lambda: results.exists(), 120, "the results file")
            time.sleep(15)
        started = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        assert time.monotonic() - started < 20
    finally:
        proc.kill()
    assert proc.returncode == 130, err.decode()[-2000:]
    assert "interrupted" in err.decode() and "--resume" in err.decode()
    rows = [(r["file"], r["result"]["status"]) for r in map(json.loads, results.read_text().splitlines())]
    if where == "local":
        assert rows == [("L1/1_scaled_relu/0.py", "ok")]
    else:  # the good one's row, if it came before the interrupt; never a row for an aborted evaluation
        assert rows in ([], [("L1/1_scaled_relu/0.py", "ok")])
    if where == "local":
        assert workers and worker_processes(owner=proc.pid) == []  # none left behind by the runner that is gone


def test_an_interrupted_collection_ends_its_running_episodes_at_once(test_tasks, tmp_path, monkeypatch):
    collect_module = importlib.import_module("kernelgym.data.collect")  # the package exports a function by that name
    made: list[LocalEvaluator] = []

    class Recorded(LocalEvaluator):  # the evaluator collect makes for itself, seen by the test
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(collect_module, "LocalEvaluator", Recorded)
    tasks = test_tasks.select(ids=["L1/1_scaled_relu"])
    hanging: list[float] = []

    def policy(observation):  # the first episode hangs in the judge; the second is interrupted once it does
        if not hanging:
            hanging.append(time.monotonic())
            return HANG
        wait_for(lambda: busy_workers(made[0].idle_worker_pids), 90, "the hanging candidate to run")
        raise KeyboardInterrupt

    started = None
    with pytest.raises(KeyboardInterrupt):
        collect_module.collect(policy, tasks, tmp_path / "c.jsonl", samples=2, jobs=2, device="cpu",
                               cache_dir=tmp_path / "cache", progress=False, parquet=False)
    assert hanging and time.monotonic() - hanging[0] < 60  # the hanging evaluation alone takes 120 s
    assert worker_processes() == []
