"""benchmarks/memory_peaks.py on this machine: the sampler's peaks over the driver's polls, and a clear refusal
without a GPU."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "memory_peaks.py"


def _module():
    spec = importlib.util.spec_from_file_location("memory_peaks", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_sampler_keeps_each_sides_highest_figure_and_the_highest_sum(monkeypatch):
    """Peaks of the runner, of the other processes together and of both at one poll (not the sum of the peaks);
    a poll the driver could not answer counts for nothing."""
    module = _module()
    polls = iter([{1: 5, 2: 1}, None, {1: 2, 2: 3, 3: 3}, {1: 1}])
    answered = []

    def driver(device):
        held = next(polls, {})
        answered.append(held)
        return held

    monkeypatch.setattr(module, "memory_by_process", driver)
    with module.PeakSampler("cuda:0", runner_pid=1, interval_s=0.001) as peaks:
        while len(answered) < 5:
            time.sleep(0.01)
    assert (peaks.runner, peaks.others, peaks.together) == (5, 6, 8)
    assert peaks.polls >= 4  # the None poll not counted, the empty ones after the list counted


def test_without_a_gpu_it_says_so_and_measures_nothing(tmp_path):
    out = tmp_path / "peaks.json"
    done = subprocess.run([sys.executable, str(SCRIPT), "--json", str(out)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 2 and "no GPU here" in done.stderr, done.stderr
    assert not out.exists()


def test_tasks_stop_where_the_next_would_run_past_the_budget(capsys, monkeypatch):
    """The benchmarks' budget (benchmarks/bench_solutions.py within_budget, also memory_peaks.py's): a task is not
    started where one as long as the last would end past it; no budget runs them all. On a clock of its own: each
    task takes 10 s."""
    import sys
    import types

    sys.path.insert(0, str(ROOT))
    from benchmarks import bench_solutions

    now = [0.0]
    monkeypatch.setattr(bench_solutions, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    ran = []
    for task_id in bench_solutions.within_budget(["a", "b", "c", "d"], 25):
        ran.append(task_id)
        now[0] += 10
    assert ran == ["a", "b"] and "skipped the rest from c" in capsys.readouterr().out  # c would end at 30 s
    assert list(bench_solutions.within_budget(["a", "b"], None)) == ["a", "b"]


def test_each_steps_peak_is_credited_to_it_and_to_the_steps_around_it(monkeypatch):
    """StepPeaks on a scripted allocator: a peak inside a nested step counts for it and for the step around it,
    memory held outside every step for ``(between)``, a step's later lower figures do not lower it; the session's
    ``step`` is put back afterwards."""
    import types

    import torch

    from kernelgym.judge.session import Session

    module = _module()
    state = {"now": 0, "peak": 0}

    def alloc(n):
        state["now"] = n
        state["peak"] = max(state["peak"], n)

    monkeypatch.setattr(torch.cuda, "max_memory_allocated", lambda device=None: state["peak"])
    monkeypatch.setattr(torch.cuda, "max_memory_reserved", lambda device=None: state["peak"] + 1)
    monkeypatch.setattr(torch.cuda, "memory_reserved", lambda device=None: 0)
    monkeypatch.setattr(torch.cuda, "reset_peak_memory_stats", lambda device=None: state.update(peak=state["now"]))
    session = types.SimpleNamespace(_in_judge_step=False, _step_s={}, result=types.SimpleNamespace(durations={}),
                                    postpone=lambda seconds: None)
    original = Session.step
    with module.StepPeaks("cuda:0") as steps:
        with Session.step(session, "trials"):
            alloc(5)
            with Session.step(session, "reference"):
                alloc(9)
                alloc(5)
            alloc(7)
        alloc(1)
        alloc(3)
    assert Session.step is original
    # what a step left allocated as it ended (7) is held outside every step until freed
    assert steps.peaks == {"(between)": 7, "trials": 9, "reference": 9}, steps.peaks
    assert steps.reserved == 10
    assert session._step_s.keys() == {"trials", "reference"}  # the session's own step still ran


def test_tasks_are_chosen_by_any_of_the_patterns_and_ordered_largest_first_on_request():
    module = _module()
    ids = ["L1/1_a", "L1/15_relu", "L2/3_b", "X/4_c", "L2/9_d"]
    sizes = {"L1/1_a": 1, "L1/15_relu": 9, "L2/3_b": 5, "X/4_c": 7, "L2/9_d": 5}
    assert module.chosen(ids, "L1/15*, L2/*") == ["L1/15_relu", "L2/3_b", "L2/9_d"]
    assert module.chosen(ids, "*", "largest", sizes.get) == ["L1/15_relu", "X/4_c", "L2/3_b", "L2/9_d", "L1/1_a"]
    assert module.chosen(ids, "Z/*") == []


def test_the_footprints_each_task_needed_beyond_the_constant_part():
    module = _module()
    gib = module.GIB
    rows = [{"task": "big", "footprint_bytes": 4 * gib, "together_peak_bytes": 27 * gib},
            {"task": "mid", "footprint_bytes": 2 * gib, "together_peak_bytes": 9 * gib},
            {"task": "tiny", "footprint_bytes": gib // 2, "together_peak_bytes": 12 * gib},  # left out: under 1 GiB
            {"task": "odd", "footprint_bytes": 2 * gib, "together_peak_bytes": 11 * gib}]
    (line,) = module.footprint_ratios(rows)
    assert "largest 6.00 (big)" in line and "median 4.00" in line and "(tasks of 1 GiB or more, 3)" in line
    assert module.footprint_ratios(rows[2:3]) == []


def test_the_peak_until_built_is_the_samplers_figure_when_the_reservation_grows():
    """BuildPeak notes both processes' highest figure at the moment an evaluation's reservation grows to its whole
    need, and puts Session.grow_memory back on leaving; an evaluation that never grew has no such peak."""
    import types

    from kernelgym.judge.session import Session

    module = _module()
    original, grown = Session.grow_memory, []
    sampler = types.SimpleNamespace(together=7)
    with module.BuildPeak(sampler) as build:
        assert build.bytes is None
        session = types.SimpleNamespace(_reservation=types.SimpleNamespace(grow=lambda: grown.append(1) or 0.0),
                                        _memory_waited=lambda waited: None)
        Session.grow_memory(session)
        sampler.together = 20  # the trials' peak, after the grow: not the build's
    assert build.bytes == 7 and grown == [1] and Session.grow_memory is original
