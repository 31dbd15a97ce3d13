"""Interleaved timing (kernelgym.judge.timing.alternate) and how the judge uses it for the eager reference."""

from __future__ import annotations

import time

import pytest
import torch

from conftest import GOOD
from kernelgym.judge.profiles import get_profile
from kernelgym.judge.timing import CallTimer, TimingConfig, alternate

#: for a stand-in session (``types.SimpleNamespace``) of :meth:`Session.check_wall_clock` testing something else: no
#: late null round (``test_a_raise_runs_late_null_blocks_*`` test those)
NO_LATE_NULLS = {"_late_nulls_wanted": lambda bound, measured: False, "late_clock": None, "late_null_steps": [],
                 "late_null_overheads": lambda: []}


def recording_timer(name: str, log: list, noisy: bool = True):
    def run_block(calls: int) -> list[float]:
        log.append((name, calls))
        return [1.0 + (0.1 * (i % 3) if noisy else 0.0) for i in range(calls)]
    return run_block


def test_blocks_alternate_until_max_runs():
    log = []
    cfg = TimingConfig(min_runs=4, max_runs=10, block=3, budget_s=60, rel_ci=0.0)  # rel_ci 0: never converges
    samples = alternate({"cand": recording_timer("cand", log), "ref": recording_timer("ref", log)}, cfg)
    assert [name for name, _ in log] == ["cand", "ref"] * 3
    assert [calls for _, calls in log] == [4, 4, 3, 3, 3, 3]  # min_runs first, then blocks, capped at max_runs
    assert len(samples["cand"]) == len(samples["ref"]) == 10


def test_converged_samples_stop_after_min_runs():
    log = []
    cfg = TimingConfig(min_runs=5, max_runs=100, block=5, budget_s=60, rel_ci=0.01)
    samples = alternate({"a": recording_timer("a", log, noisy=False), "b": recording_timer("b", log, noisy=False)},
                        cfg)
    assert len(samples["a"]) == len(samples["b"]) == 5  # identical times: CI 0 after the first round


def test_the_median_ci_is_the_order_statistics_around_the_middle_rank():
    from kernelgym.judge.timing import median_ci95

    sample = [float(v) for v in (7, 3, 25, 1, 19, 12, 5, 21, 9, 14, 2, 17, 24, 8, 11, 22, 4, 16, 10, 20, 6, 13, 18,
                                 23, 15)]
    assert median_ci95(sample) == (19 - 7) / 2  # ranks 7 and 19 of 25
    assert median_ci95([1.0, 2.0, 3.0, 4.0, 5.0]) == 2.0  # five calls: the whole range
    assert median_ci95([1.0]) == float("inf")


def test_the_median_ci_covers_the_median_about_95_percent_of_the_time():
    import math
    import random

    from kernelgym.judge.timing import median_ci95

    rng = random.Random(7)
    true_median = math.log(2)  # of an exponential with rate 1: a skewed, heavy-ish tail like a loaded host's
    covered = 0
    for _ in range(2000):
        sample = sorted(rng.expovariate(1.0) for _ in range(25))
        n, spread = 25, 0.98 * math.sqrt(25)
        lo, hi = sample[max(1, math.floor(n / 2 - spread)) - 1], sample[min(n, math.ceil(1 + n / 2 + spread)) - 1]
        assert median_ci95(sample) == pytest.approx((hi - lo) / 2)
        covered += lo <= true_median <= hi
    assert 0.93 <= covered / 2000 <= 0.99


def test_a_few_outlier_calls_do_not_keep_a_tight_sample_from_converging():
    """Two calls stretched 30x (a descheduled host thread) among 25 within 0.5%: the median's CI is tight, so the
    timing stops; a CI of the mean would have been wider than the median's 2% target (the old criterion)."""
    import statistics

    from kernelgym.judge.timing import converged

    times = [1.0 + 0.001 * (i % 5) for i in range(25)] + [30.0, 25.0]
    mean_ci = 1.96 * statistics.stdev(times) / len(times) ** 0.5
    assert mean_ci > 0.02 * statistics.median(times)
    assert converged(times, TimingConfig(min_runs=5, rel_ci=0.02))
    assert not converged([1.0, 1.5, 2.0, 2.5, 3.0, 1.2, 2.8], TimingConfig(min_runs=5, rel_ci=0.02))


def test_the_budget_is_shared_and_min_runs_always_met():
    import time

    def slow(calls):
        time.sleep(0.05 * calls)
        return [float(i % 7) for i in range(calls)]  # noisy: never converges at rel_ci 0.001

    cfg = TimingConfig(min_runs=3, max_runs=1000, block=2, budget_s=0.3, rel_ci=0.001)
    started = time.monotonic()
    samples = alternate({"a": slow, "b": slow}, cfg)
    assert all(len(s) >= 3 for s in samples.values())
    assert time.monotonic() - started < 2.0


def test_a_timer_that_returns_the_wrong_count_is_an_error():
    with pytest.raises(ValueError, match="returned 1 measurements, expected 5"):
        alternate({"a": lambda calls: [1.0]}, TimingConfig(min_runs=5))


def test_the_judge_interleaves_the_reference_then_caches_it_when_the_profile_allows(tmp_path, relu_task):
    from kernelgym.judge.runner import Judge

    judge = Judge(device="cpu", cache_dir=tmp_path)
    cfg = TimingConfig(warmup=1, min_runs=3, max_runs=9, block=3, budget_s=60, rel_ci=0.0)
    caching = get_profile("quick").with_overrides(cpu_timing=cfg, alternate_baseline=False)
    first = judge.evaluate(relu_task, GOOD, profile=caching)
    assert first.status == "ok", first.message
    # nine timed calls, and at most one block of one probe per kind of outliers after them (Session.probe_for_block);
    # where every block had a probe, one block of three without, for the wall-clock bound (Session.check_wall_clock)
    from conftest import bound_block_calls

    plain = bound_block_calls(first.runtime_spread, 3)
    assert 9 + plain <= first.runtime_spread["n"] <= 11 + plain and first.runtime_spread["baseline_n"] == 9
    assert first.runtime_spread["baseline"] == "interleaved"
    # the runner's bound is reported with what it was made of, and is exactly what they give
    from kernelgym.judge.wallclock import lower_bound_ms

    spread = first.runtime_spread
    assert spread["runner_fastest_wall_ms"] > 0 and spread["runner_overhead_ms"] >= 0
    assert spread["runner_bound_ms"] == lower_bound_ms(spread["runner_fastest_wall_ms"], spread["runner_overhead_ms"],
                                                       spread["runner_fastest_block_calls"], on_gpu=False)
    second = judge.evaluate(relu_task, GOOD, profile=caching)
    assert second.runtime_spread["baseline"] == "cached" and second.baseline_ms == first.baseline_ms
    for name in ("quick", "full"):  # both built-in profiles time the reference afresh, beside every candidate
        again = judge.evaluate(relu_task, GOOD, profile=get_profile(name).with_overrides(cpu_timing=cfg))
        assert again.status == "ok", again.message
        assert again.runtime_spread["baseline"] == "interleaved" and again.baseline_ms != first.baseline_ms


@pytest.mark.parametrize("alone, expected", [(9.0, 9.0), (9.85, 10.0), (10.4, 10.0)])
def test_a_baseline_block_timed_alone_lowers_the_baseline_only_beyond_the_ci_target(alone, expected):
    from kernelgym.judge.timing import confirmed_baseline_ms

    # 10 ms interleaved, 2% target: 9.0 is a slowed reference corrected; 9.85 is noise, not taken; 10.4 never
    assert confirmed_baseline_ms(10.0, alone, 0.02) == expected


def test_the_runner_bound_is_relative_and_rejects_large_lies():
    from kernelgym.judge.wallclock import FACTOR, IPC_ALLOWANCE_MS, REL_SLACK, lower_bound_ms, mismatch

    # honest: wall = kernel + overhead (+ the pipe): the bound stays at or under the kernel's time
    assert lower_bound_ms(10.0 + 0.3 + IPC_ALLOWANCE_MS["gpu"] / 5, 0.3, 5, on_gpu=True) <= 10.0
    # the slack is relative: a 20 us kernel cannot claim ~0 (an absolute slack of 1 ms would have let it)
    bound = lower_bound_ms(0.02 + 0.05 + IPC_ALLOWANCE_MS["gpu"] / 100, 0.05, 100, on_gpu=True)
    assert bound == pytest.approx(0.02 / REL_SLACK["gpu"])
    assert mismatch(bound / (FACTOR * 1.01), bound)  # reported far below what the runner's clock allows
    assert mismatch(bound / (FACTOR * 0.99), bound) == ""  # within the factor: the runtime is raised, not rejected
    assert "judge's clock" in mismatch(1.0, 10.0)
    assert lower_bound_ms(0.1, 5.0, 5, on_gpu=False) == 0.0  # never negative


def test_the_null_overhead_is_the_least_over_blocks_and_never_negative():
    from kernelgym.judge.wallclock import null_overhead_ms

    assert null_overhead_ms([0.9, 0.5, 2.0], [0.1, 0.1, 0.1]) == pytest.approx(0.4)  # a slow block is noise
    assert null_overhead_ms([0.05], [0.08]) == 0.0
    assert null_overhead_ms([], []) == 0.0


def test_null_calls_run_before_the_candidate_loads_and_are_reported(tmp_path, relu_task):
    """Every evaluation that gets a worker times null calls in it before ``go`` (the worker's own code only): the
    overhead its blocks will carry, reported beside the reference's; the bound uses it on a GPU only."""
    from kernelgym.judge.runner import Judge

    result = Judge(device="cpu", cache_dir=tmp_path).evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    spread = result.runtime_spread
    assert spread["null_overhead_ms"] > 0 and spread["reference_overhead_ms"] > 0
    assert spread["runner_overhead_from"] == "reference"  # the CPU: see Session.check_wall_clock
    assert result.durations["null_calls"] > 0


def test_late_null_blocks_run_in_the_loaded_worker_each_before_a_candidate_block(tmp_path, relu_task, monkeypatch):
    """The late null round through a real worker (forced here: on the CPU the bound's overhead is the reference's,
    so nothing asks for it): the loaded worker runs the null calls under the synchronized method, each late block
    right before a candidate block, and the result reports their overheads; the candidate's verdict is unchanged."""
    from kernelgym.judge import session as session_module
    from kernelgym.judge.runner import Judge
    from kernelgym.judge.wallclock import LATE_NULL_BLOCKS, NULL_WARMUP_BLOCKS

    order = []
    real_late, real_raw = session_module.Session._late_null_block, session_module.Session._raw_block

    def late_null_block(self, calls):
        if self._late_wanted > 0:
            order.append("null")
        return real_late(self, calls)

    def raw_block(self, calls):
        order.append("candidate")
        return real_raw(self, calls)

    monkeypatch.setattr(session_module.Session, "_late_nulls_wanted", lambda self, bound, measured:
                        self.late_clock is None)
    monkeypatch.setattr(session_module.Session, "_late_null_block", late_null_block)
    monkeypatch.setattr(session_module.Session, "_raw_block", raw_block)
    result = Judge(device="cpu", cache_dir=tmp_path).evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    spread = result.runtime_spread
    late = NULL_WARMUP_BLOCKS + LATE_NULL_BLOCKS
    assert len(spread["late_null_overheads_ms"]) == LATE_NULL_BLOCKS and spread["runner_blocks_added"] >= late
    first = order.index("null")
    assert order[first:first + 2 * late] == ["null", "candidate"] * late
    assert spread["runner_overhead_from"] == "reference"  # the CPU's overhead stays the reference's
    assert result.durations["late_null_blocks"] > 0


def test_the_null_overhead_leaves_out_the_warm_up_blocks(tmp_path, relu_task, monkeypatch):
    """A fresh worker's first block pays one-off costs the candidate pays in its warm-up, outside its blocks: the
    runner sends warm-up blocks first and gives :func:`null_overhead_ms` the later blocks only."""
    from kernelgym.judge import session, wallclock
    from kernelgym.judge.runner import Judge

    seen = []

    def spy(walls, medians):
        seen.append(len(walls))
        return wallclock.null_overhead_ms(walls, medians)

    sent = []
    send = session.Session.send

    def counting_send(self, *words):
        sent.append(words[0])
        return send(self, *words)

    monkeypatch.setattr(session, "null_overhead_ms", spy)
    monkeypatch.setattr(session.Session, "send", counting_send)
    result = Judge(device="cpu", cache_dir=tmp_path).evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    assert wallclock.NULL_WARMUP_BLOCKS >= 1 and seen == [wallclock.NULL_BLOCKS]
    assert sent.count(session.Command.NULL) == wallclock.NULL_WARMUP_BLOCKS + wallclock.NULL_BLOCKS


def test_a_worker_refuses_null_calls_once_its_candidate_is_loaded_unless_synchronized():
    """After ``go`` the activity method's recorder is the candidate timer's: null calls then are refused (the late
    null round runs under the synchronized method only, ``Session._late_nulls_wanted``)."""
    import types

    from kernelgym.judge.worker import Worker

    bare = types.SimpleNamespace(model=object(), req={"timing_method": "activity"})  # loaded
    assert Worker.null_block(bare, 5, 1, "[]") is False


def test_the_late_null_overhead_is_floored_by_the_early_one_and_capped():
    """What the late null blocks count: their least block's overhead, never below the null calls' before the
    candidate loaded (host drift that way only lowers what the candidate pays) and never above the cap times it
    (the candidate's code ran before them: whatever slowed them lowers the bound by at most that)."""
    from kernelgym.judge.wallclock import LATE_NULL_CAP, late_null_overhead_ms

    assert late_null_overhead_ms(None, 2.0) == 2.0
    assert late_null_overhead_ms(1.0, 2.0) == 2.0
    assert late_null_overhead_ms(3.0, 2.0) == 3.0
    assert late_null_overhead_ms(100.0, 2.0) == LATE_NULL_CAP * 2.0
    assert late_null_overhead_ms(5.0, 0.0) == 0.0


def _session_with_late_nulls(walls_ms: list[float], reported_ms: float, early_ms: float, late_call_ms: float):
    """A :class:`Session` without a worker: candidate blocks of 5 calls reported at ``reported_ms`` each and taking
    ``walls_ms`` per call by the runner's clock; null calls before the candidate loaded with ``early_ms`` overhead;
    late null blocks that take ``late_call_ms`` per call by the runner's clock (slept) and report 0.05 ms."""
    import contextlib
    import types

    from kernelgym.judge.session import Session
    from kernelgym.judge.wallclock import BlockClock

    clock = BlockClock(lambda calls: [reported_ms] * calls)
    for wall in walls_ms:
        clock(5)
        clock.per_call_ms[-1] = wall
    session = Session.__new__(Session)
    nulls: list[bool] = []

    def null_block(calls, specs, late=False):
        nulls.append(late)
        time.sleep(late_call_ms * calls / 1e3)
        return [0.05] * calls

    def checked_blocks(calls, force_check=False, force_probe=None, probes=True):
        session._late_null_block(calls)
        clock(calls)
        clock.per_call_ms[-1] = min(walls_ms)
        session._probed_blocks.append(False)
        return [reported_ms] * calls

    session.__dict__.update({"null_overhead_ms": early_ms, "null_overheads_ms": [early_ms] * 4, "null_call_ms": 0.05,
                             "null_steps": [], "block_steps": [], "witness": None, "_witness_starter": None,
                             "settings": types.SimpleNamespace(on_cpu=False), "clock": clock, "check_ms": [],
                             "reference": types.SimpleNamespace(timing_method="synchronized"), "bound_inputs": {},
                             "_probed_blocks": [False] * len(walls_ms), "late_clock": None, "_late_wanted": 0,
                             "late_null_steps": [], "null_specs": "[]", "null_block": null_block,
                             "_checked_blocks": checked_blocks, "gpu": lambda **kw: contextlib.nullcontext(),
                             "step": lambda name: contextlib.nullcontext()})
    return session, nulls


def test_a_raise_runs_late_null_blocks_and_the_bound_takes_their_overhead_capped():
    """Where the bound from the early null calls would raise the report, null blocks run again in the candidate's
    worker, each right before a candidate block (a warm-up and :data:`LATE_NULL_BLOCKS` counted), and the bound
    subtracts their overhead, at most :data:`LATE_NULL_CAP` times the early one. X/1's honest int8 GEMM on the H100
    at 272e5ab: reported 0.364 ms, fastest block 3.94 ms per call, early null overhead 2.35: raised 3.27 times."""
    from kernelgym.judge.wallclock import LATE_NULL_BLOCKS, LATE_NULL_CAP, NULL_WARMUP_BLOCKS, lower_bound_ms

    session, nulls = _session_with_late_nulls([3.94, 4.2, 4.5], 0.364, early_ms=2.35, late_call_ms=20.0)
    bound = session.check_wall_clock({"overhead_ms": 0.5}, 5)
    assert nulls == [True] * (NULL_WARMUP_BLOCKS + LATE_NULL_BLOCKS)
    assert len(session.bound_inputs["late_null_overheads_ms"]) == LATE_NULL_BLOCKS
    assert session.bound_inputs["runner_overhead_from"] == "late_null_calls"
    assert session.bound_inputs["runner_blocks_added"] == NULL_WARMUP_BLOCKS + LATE_NULL_BLOCKS
    # 20 ms per null call is far above the cap: the bound subtracts twice the early overhead, no more
    assert session.bound_inputs["runner_overhead_ms"] == pytest.approx(LATE_NULL_CAP * 2.35)
    assert bound == pytest.approx(lower_bound_ms(3.94, LATE_NULL_CAP * 2.35, 5, on_gpu=True))
    assert bound < lower_bound_ms(3.94, 2.35, 5, on_gpu=True)


def test_no_late_null_blocks_where_the_bound_does_not_raise_or_under_the_activity_method():
    """The late round costs blocks: only where the early bound would raise the report, once, and never under the
    activity method (its recorder is the candidate timer's once it loaded: the worker refuses the null calls)."""
    from kernelgym.judge.wallclock import lower_bound_ms

    quiet, nulls = _session_with_late_nulls([2.5], 0.364, early_ms=2.35, late_call_ms=3.0)
    assert quiet.check_wall_clock({"overhead_ms": 0.5}, 5) == pytest.approx(lower_bound_ms(2.5, 2.35, 5, True))
    assert nulls == [] and quiet.bound_inputs["runner_overhead_from"] == "null_calls"
    activity, nulls = _session_with_late_nulls([3.0], 0.364, early_ms=2.35, late_call_ms=3.0)
    activity.reference.timing_method = "activity"
    assert activity.check_wall_clock({"overhead_ms": 0.5}, 5) > 0.364  # raised
    assert nulls == [] and activity.bound_inputs["late_null_overheads_ms"] == []


def test_a_flag_in_a_late_null_blocks_frame_is_the_candidates_rejection():
    """Late null blocks run after the candidate's code: an integrity flag in their frames is the candidate's doing,
    rejected as a candidate block's is, not the judge's error as in the null blocks before it loaded."""
    from kernelgym.judge.result import EvalResult
    from kernelgym.judge.session import Session
    from kernelgym.judge.verdict import Verdict

    frame = {"event": "timing", "times_ms": [0.1], "integrity_flags": [["monkeypatch", "torch.empty was replaced"]]}
    session = Session.__new__(Session)
    session.__dict__.update({"result": EvalResult(task_id="t"), "send": lambda *words: None, "null_steps": [],
                             "late_null_steps": [], "_read_block": lambda calls, null, seeds: (frame, []),
                             # the late block's ready frame (round 45), unflagged here
                             "expect": lambda *events: {"event": "timing_ready"}, "late_ready_ms": []})
    with pytest.raises(Verdict) as late:
        session.null_block(1, "[]", late=True)
    assert late.value.status == "rejected" and "torch.empty was replaced" in late.value.message
    assert [f["name"] for f in session.result.flags] == ["monkeypatch"] and not session.result.judge_fault
    with pytest.raises(Verdict) as early:
        session.null_block(1, "[]")
    assert early.value.status == "crashed" and session.result.judge_fault


def test_null_blocks_share_one_recorder_of_the_requests_method_ended_before_the_candidate_loads(relu_task,
                                                                                                  monkeypatch):
    """The null blocks carry the per-call steps of the candidate's blocks, so they run in the same regime: the
    request's timing method, and (the activity method) one recorder over all of them, as the candidate's stage
    recorder spans its blocks; it is stopped at ``go``, before any candidate code runs. Measured on the H200 with
    the null blocks synchronized and unrecorded: the activity method's bound raised 27 of 69 honest runtimes."""
    import json
    import types

    from kernelgym.judge import worker as worker_mod
    from kernelgym.judge.worker import Worker

    started, ended = [], []
    monkeypatch.setattr(worker_mod, "_record_stage", lambda timer: started.append(timer) or False)
    monkeypatch.setattr(worker_mod, "_stage_spans", lambda timer: ended.append(timer) or [])
    sent = []
    module = relu_task.load_module(small=True)
    ref = module.Model(*module.get_init_inputs())(*module.get_inputs())
    specs = json.dumps([{"kind": "tensor", "shape": list(ref.shape), "dtype": str(ref.dtype).split(".")[-1]}])
    from kernelgym.judge.profile import LaunchCounter

    bare = types.SimpleNamespace(model=None, null_timer=None, req={"timing_method": "activity"}, device="cpu",
                                 module=module, send=sent.append, error=lambda *a: sent.append(("error",) + a),
                                 launches=LaunchCounter(), own_names=set(), integrity_flags=lambda: [["x", "y"]])
    bare._timed_block = lambda *a: Worker._timed_block(bare, *a)
    assert Worker.null_block(bare, 3, 11, specs) and Worker.null_block(bare, 2, 12, specs)
    assert [len(m["times_ms"]) for m in sent] == [3, 2]
    # the frame of a candidate's block: its integrity flags are read for a null block too (a per-block step)
    assert all(m["integrity_flags"] == [["x", "y"]] and "own_launches" in m for m in sent)
    assert len(started) == 1 and started[0] is bare.null_timer and bare.null_timer.method == "activity"
    assert len(bare.null_timer.times) == 5  # one timer over both blocks
    timer = bare.null_timer
    Worker.end_null_blocks(bare)
    assert ended == [timer] and bare.null_timer is None
    order = []
    bare.end_null_blocks = lambda: order.append("end")
    bare.load_candidate = lambda: order.append("candidate")  # returns None: the load stops there
    assert Worker._load(bare) is False and order == ["end", "candidate"]


def test_scheduler_times_count_what_a_process_ran_and_waited_for_a_cpu():
    """``schedstat`` of every thread of the given processes: a busy child's CPU time shows; a gone one counts 0."""
    import subprocess
    import sys

    from kernelgym.judge.process import scheduler_ns

    child = subprocess.Popen([sys.executable, "-c", "import time\nt = time.process_time()\n"
                              "while time.process_time() - t < 0.3: pass\nimport sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while (scheduler_ns([child.pid]) or (0, 0))[0] < 0.25e9 and time.monotonic() < deadline:
            time.sleep(0.05)
        ran, waited = scheduler_ns([child.pid])
        assert ran >= 0.25e9 and waited >= 0
    finally:
        child.communicate(b"")
    assert scheduler_ns([child.pid]) is None and scheduler_ns([]) is None


def test_block_clock_records_each_blocks_cpu_and_cpu_wait_per_call_outside_its_wall():
    from kernelgym.judge.wallclock import BlockClock

    readings = iter([(0, 0), (4_000_000, 10_000_000), (4_000_000, 10_000_000), (5_000_000, 10_000_000)])
    clock = BlockClock(lambda calls: [1.0] * calls, scheduler=lambda: next(readings))
    clock(2)
    clock(1)
    assert clock.cpu_per_call_ms == [2.0, 1.0] and clock.cpu_wait_per_call_ms == [5.0, 0.0]
    gone = BlockClock(lambda calls: [1.0] * calls, scheduler=lambda: None)
    gone(3)
    assert gone.cpu_per_call_ms == [None] and gone.cpu_wait_per_call_ms == [None]


def test_the_result_keeps_each_blocks_wall_and_the_workers_cpu_beside_the_bound(tmp_path, relu_task):
    from kernelgym.judge.runner import Judge

    judge = Judge(device="cpu", cache_dir=tmp_path)
    try:
        result = judge.evaluate(relu_task, GOOD, profile=get_profile("quick"))
    finally:
        judge.close()
    assert result.status == "ok", result.message
    spread = result.runtime_spread
    walls, cpu, waits = (spread[k] for k in ("runner_block_walls_ms", "worker_block_cpu_ms",
                                             "worker_block_cpu_wait_ms"))
    assert len(walls) == len(cpu) == len(waits) >= 1 and min(walls) == pytest.approx(spread["runner_fastest_wall_ms"],
                                                                                         abs=1e-3)
    assert all(c is not None and c > 0 for c in cpu) and all(w is not None and w >= 0 for w in waits)
    from kernelgym.judge.wallclock import NULL_BLOCKS

    assert len(spread["null_overheads_ms"]) == NULL_BLOCKS and spread["synchronized_median_ms"] > 0
    assert spread["null_call_ms"] > 0 and spread["latency_left_out_ms"] == 0.0  # the CPU: never left out


def test_the_runners_clock_on_a_block_runs_under_the_short_switch_interval_with_the_collector_left_on():
    """The runner reads a block's end when its thread gets the GIL back after the worker's answer: the short switch
    interval holds while any block clock runs (other evaluations' threads would otherwise add up to 5 ms to its
    wall, counted as the candidate's), and the collector stays on there, off only inside a timed block of calls."""
    import gc
    import sys

    from kernelgym.judge.timing import TIMED_SWITCH_INTERVAL_S, quiet_for_timing
    from kernelgym.judge.wallclock import BlockClock

    before = sys.getswitchinterval()
    seen = []

    def block(calls):
        seen.append((sys.getswitchinterval(), gc.isenabled()))
        with quiet_for_timing():  # a reference block timed in this process, inside the clock
            seen.append((sys.getswitchinterval(), gc.isenabled()))
        seen.append((sys.getswitchinterval(), gc.isenabled()))
        return [1.0] * calls

    BlockClock(block)(2)
    assert seen == [(pytest.approx(TIMED_SWITCH_INTERVAL_S), True), (pytest.approx(TIMED_SWITCH_INTERVAL_S), False),
                    (pytest.approx(TIMED_SWITCH_INTERVAL_S), True)]
    assert sys.getswitchinterval() == before and gc.isenabled()


@pytest.mark.parametrize("method", ["synchronized", "activity"])
def test_with_the_activity_method_the_bound_leaves_out_a_null_calls_host_latency(method):
    """The activity method's figure is a call's device span, without the host latency around its launches that the
    runner's clock holds: the bound subtracts a null call's own synchronized time (measured before the candidate
    loaded) under that method only; under the synchronized method the figure holds that latency, and so does the
    bound."""
    import types

    from kernelgym.judge.session import Session
    from kernelgym.judge.wallclock import BlockClock, lower_bound_ms

    clock = BlockClock(lambda calls: [1.0] * calls)
    clock(5)
    clock.per_call_ms[0] = 3.5  # the runner's clock: 3.5 ms per call over the block of 5
    bare = types.SimpleNamespace(null_overhead_ms=1.0, null_overheads_ms=[1.0, 1.2], null_call_ms=0.2,
                                 null_steps=[], block_steps=[], witness=None, _witness_starter=None, **NO_LATE_NULLS,
                                 settings=types.SimpleNamespace(on_cpu=False), clock=clock, check_ms=[],
                                 reference=types.SimpleNamespace(timing_method=method), bound_inputs={},
                                 _probed_blocks=[False])
    bound = Session.check_wall_clock(bare, {"overhead_ms": 0.5}, 5)
    latency = 0.2 if method == "activity" else 0.0
    assert bound == pytest.approx(lower_bound_ms(3.5, 1.0 + latency, 5, on_gpu=True))
    assert bare.bound_inputs["latency_left_out_ms"] == latency and bare.bound_inputs["null_call_ms"] == 0.2
    assert bare.bound_inputs["runner_overhead_ms"] == 1.0  # the overhead itself, reported as measured


def _bare_session_for_the_bound(walls_ms: list[float], reported_ms: float, null_overheads_ms: list[float]):
    """A stand-in for :meth:`Session.check_wall_clock` on a GPU: blocks of 5 calls the worker reported at
    ``reported_ms`` each, the runner's clock at ``walls_ms`` per call, null blocks with ``null_overheads_ms``."""
    import types

    from kernelgym.judge.wallclock import BlockClock

    clock = BlockClock(lambda calls: [reported_ms] * calls)
    for _ in walls_ms:
        clock(5)
    clock.per_call_ms[:] = walls_ms
    return types.SimpleNamespace(null_overhead_ms=min(null_overheads_ms), null_overheads_ms=null_overheads_ms,
                                 null_call_ms=0.07, null_steps=[], block_steps=[], witness=None,
                                 _witness_starter=None, **NO_LATE_NULLS, settings=types.SimpleNamespace(on_cpu=False), clock=clock,
                                 check_ms=[], reference=types.SimpleNamespace(timing_method="synchronized"),
                                 bound_inputs={}, _probed_blocks=[False] * len(walls_ms), result=types.SimpleNamespace(),
                                 _checked_blocks=lambda *args, **kwargs: None,
                                 reject=lambda flag, reason: AssertionError(f"{flag}: {reason}"))


def test_a_rejection_must_hold_with_the_median_null_blocks_overhead_while_the_raise_keeps_the_least():
    """L2/70's honest attention on the H100 at aca670b (docs/BENCHMARKS.md, thirty-eighth session): reported 0.407 ms
    per call, its fastest block at 7.51 ms per call by the runner's clock, the null blocks' overheads 5.19, 7.08, 38.8
    and 7.86 ms: the bound with the least (1.78 ms, 4.4 times the report) rejected it. With the median null block's
    overhead the bound is about zero, so it is not rejected; its runtime is still raised to the strict bound. A report
    three times below a bound that holds with the median overhead too is still a rejection."""
    from kernelgym.judge.session import Session
    from kernelgym.judge.wallclock import lower_bound_ms

    nulls = [5.1883, 7.0805, 38.8121, 7.8621]
    honest = _bare_session_for_the_bound([7.5091, 19.6668, 20.2172, 22.4147, 18.6178], 0.407, nulls)
    bound = Session.check_wall_clock(honest, {"overhead_ms": 46.4}, 5)
    assert bound == pytest.approx(lower_bound_ms(7.5091, 5.1883, 5, on_gpu=True))  # the raise: least overhead
    assert bound > 3 * 0.407  # the old rule's rejection
    assert honest.bound_inputs["runner_rejection_bound_ms"] < 3 * 0.407

    liar = _bare_session_for_the_bound([20.0, 20.5, 21.0], 1.0, [5.0, 5.2, 5.4, 5.6])
    with pytest.raises(AssertionError, match="timing_wall_mismatch"):
        Session.check_wall_clock(liar, {"overhead_ms": 5.0}, 5)
    assert liar.result.runtime_spread["runner_bound_ms"] > 3 * 1.0


def test_a_flag_in_a_null_blocks_frame_is_the_judges_fault_not_the_candidates():
    """Null blocks send a candidate block's frame, integrity flags included, before any candidate code ran: a flag
    there ends the evaluation as the judge's error (a trainer drops the sample), never as a rejection."""
    import types

    from kernelgym.judge.protocol import Command
    from kernelgym.judge.result import EvalResult
    from kernelgym.judge.session import Session
    from kernelgym.judge.verdict import Verdict

    sent = []
    bare = types.SimpleNamespace(result=EvalResult(task_id="t"), send=lambda *words: sent.append(words))
    assert Session._null_frame_unflagged(bare, {"integrity_flags": []}) is None and not sent
    with pytest.raises(Verdict) as raised:
        Session._null_frame_unflagged(bare, {"integrity_flags": [["monkeypatch", "x was replaced"]]})
    assert raised.value.status == "crashed" and "not the candidate's fault" in raised.value.message
    assert bare.result.judge_fault and sent == [(Command.STOP,)]


def test_block_clock_measures_wall_time_per_call():
    import time

    from kernelgym.judge.wallclock import BlockClock

    def block(calls):
        time.sleep(0.02 * calls)
        return [1.0] * calls

    clock = BlockClock(block)
    assert clock(3) == [1.0] * 3 and clock(2) == [1.0] * 2
    assert len(clock.per_call_ms) == 2 and all(p >= 20.0 for p in clock.per_call_ms)
    assert clock.median_ms() == 1.0
    assert 19.0 <= clock.overhead_ms() < 40.0  # about 20 ms per call outside the reported 1 ms


def test_a_block_clock_leaves_out_only_the_host_time_its_instruments_report():
    """The reference's blocks leave their recorder's own start, stop and parse out of their wall time (the
    candidate's worker spends it outside its blocks); the rest of the block is still counted."""
    import time

    from kernelgym.judge.wallclock import BlockClock

    def block(calls):
        time.sleep(0.01 * calls + 0.05)  # 10 ms per call, then 50 ms of the instrument's own
        return [10.0] * calls

    clock = BlockClock(block, untimed_ms=lambda: 50.0)
    clock(4)
    assert 10.0 <= clock.per_call_ms[0] < 10.0 + 50.0 / 4 / 2  # about 10 ms per call, not 22.5


def test_an_honest_slow_kernel_passes_the_wall_clock(tmp_path, relu_task):
    """The same sleep as the forged_timing_frames exploit, reported honestly: ok (the exploit is rejected)."""
    from kernelgym.judge.runner import Judge
    from kernelgym.testing.candidates import indent, kernel_forward

    slow = kernel_forward(indent("time.sleep(0.12)\nreturn launch(x)"), imports="import time")
    result = Judge(device="cpu", cache_dir=tmp_path, static_checks=False).evaluate(relu_task, slow)
    assert result.status == "ok", result.message
    assert result.runtime_ms >= 120.0


def test_a_cached_baseline_without_an_overhead_figure_is_timed_again(tmp_path, relu_task):
    """A reference measured alone carries no per-call overhead, which the wall-clock check needs: re-time it."""
    from kernelgym.judge.runner import Judge

    judge = Judge(device="cpu", cache_dir=tmp_path)
    alone = judge.baseline_ms(relu_task, get_profile("quick"))
    assert "overhead_ms" not in alone
    result = judge.evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    assert result.runtime_spread["baseline"] == "interleaved"
    assert "overhead_ms" in judge.cached_baseline(relu_task)


def test_a_scrubbing_timer_poisons_what_each_call_took_and_returned():
    """The worker's timer leaves nothing of a call's results in released memory: outputs (and any state sharing
    their storage, such as a cache the candidate kept) and inputs read as NaN after the block; its snapshots do not."""
    kept, inputs = {}, []

    def fn(x):
        if "out" not in kept:
            kept["out"] = x * 2
        return kept["out"][1:]  # a view: the whole storage behind it is poisoned

    def make_args(i):
        inputs.append(torch.full((4,), float(i + 1)))
        return [inputs[-1]]

    snapshots: list = []
    CallTimer(fn, make_args, "cpu", scrub_released=True).time_block(2, snapshots)
    assert torch.isnan(kept["out"]).all() and all(torch.isnan(x).all() for x in inputs)
    assert torch.equal(snapshots[0][0], torch.full((3,), 2.0))
    assert torch.isnan(snapshots[1][0]).all()  # the second call returned the already-poisoned cache


def test_a_timed_calls_layout_is_taken_before_its_snapshot():
    """The snapshot's clone makes an expanded output dense (and resolves a lazy negative view): the layout the
    runner checks (``correctness.check_layout``) is the forward's own, recorded before the clone (a sixteenth
    red-team helper: views left for the judge to materialise, untimed)."""
    from kernelgym.judge.timing import layout

    base = torch.arange(4.0)
    outs = iter([base.expand(3, 4), torch.ones(3, 4).t(), torch._neg_view(-torch.ones(3, 4)), torch.ones(3, 4)])
    snapshots: list = []
    layouts: list = []
    CallTimer(lambda x: next(outs), lambda i: [torch.zeros(1)], "cpu").time_block(4, snapshots, layouts=layouts)
    assert [entry[0]["strides"] for entry in layouts] == [[0, 1], [1, 4], [4, 1], [4, 1]]
    assert [entry[0]["contiguous"] for entry in layouts] == [False, False, True, True]
    assert [entry[0]["lazy"] for entry in layouts] == [False, False, True, False]
    assert {entry[0]["device"] for entry in layouts} == {"cpu"}
    assert snapshots[0][0].stride() == (4, 1) and not snapshots[2][0].is_neg()  # what the clone alone would say
    assert layout(torch.zeros(2, 3)) == {"strides": [3, 1], "contiguous": True, "lazy": False, "device": "cpu",
                                         "aliases_input": False}
    x = torch.zeros(4, 3)
    assert layout(x[:2], [x])["aliases_input"] and not layout(x[:2].clone(), [x])["aliases_input"]
    assert not layout(torch.zeros(0), [torch.zeros(0)])["aliases_input"]  # no memory, nothing shared


def test_the_reference_timer_leaves_its_tensors_alone():
    out = torch.ones(3)
    CallTimer(lambda x: out, lambda i: [torch.zeros(1)], "cpu").time_block(1)
    assert torch.equal(out, torch.ones(3))


def test_a_timed_block_gets_the_gil_back_at_once_and_restores_the_switch_interval():
    """While a block is timed the garbage collector is off and the process's GIL switch interval is short (a
    thread that waited for the GPU with the GIL released gets it back within it, not after another thread's 5 ms);
    concurrent blocks share the setting and the last one to end restores what was there before."""
    import gc
    import sys
    import threading

    from kernelgym.judge.timing import TIMED_SWITCH_INTERVAL_S

    before = sys.getswitchinterval()
    assert gc.isenabled()
    seen: list[float] = []
    collecting: list[bool] = []
    inside = threading.Barrier(2)

    def fn(x):
        seen.append(sys.getswitchinterval())
        collecting.append(gc.isenabled())
        return x

    def timed(wait: bool):
        timer = CallTimer(lambda x: (inside.wait(timeout=10) if wait else None, fn(x))[1],
                          lambda i: [torch.ones(2)], "cpu")
        timer.time_block(1)

    threads = [threading.Thread(target=timed, args=(True,)) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert seen == pytest.approx([TIMED_SWITCH_INTERVAL_S] * 2)  # both blocks ran at once, under the short interval
    assert sys.getswitchinterval() == before
    CallTimer(fn, lambda i: [torch.ones(2)], "cpu").time_block(3)
    assert seen[2:] == pytest.approx([TIMED_SWITCH_INTERVAL_S] * 3) and sys.getswitchinterval() == before
    assert collecting == [False] * 5 and gc.isenabled()  # no collection during the blocks, back on after


def test_the_timing_method_is_checked_when_the_judge_is_made_and_keys_its_baselines(tmp_path, relu_task):
    """A misspelt method fails at construction, naming the choices; baselines timed with the ``activity`` method
    (kernelgym.judge.activity) are cached apart from the synchronized ones (their figures differ by host latency)."""
    from kernelgym.judge.runner import Judge

    with pytest.raises(ValueError, match="synchronized"):
        Judge(device="cpu", cache_dir=tmp_path, timing_method="events")
    keys = {method: Judge(device="cpu", cache_dir=tmp_path, timing_method=method).reference._key(relu_task, "eager")
            for method in ("synchronized", "activity")}
    assert keys["synchronized"] != keys["activity"] and keys["activity"].endswith("eager|activity")


def test_input_samples_show_a_write_into_an_input_and_nothing_else():
    """The same salt samples the same positions; an input written into (here: most of it) shows, an untouched one
    and a non-tensor argument do not; samples are small whatever the input's size."""
    from kernelgym.judge.timing import INPUT_SAMPLE_BYTES, changed_inputs, sample_inputs

    gen = torch.Generator().manual_seed(0)
    x, w = torch.randn(1 << 18, generator=gen), torch.randn(64, generator=gen)
    before = sample_inputs([x, w, 3], salt=11)
    assert before[0].numel() == INPUT_SAMPLE_BYTES and before[1].numel() == 64 * 4 and before[2] is None
    assert changed_inputs(before, sample_inputs([x.clone(), w.clone(), 3], salt=11)) == []
    written = x.clone()
    written[: (1 << 18) - 10].relu_()
    assert changed_inputs(before, sample_inputs([written, w, 3], salt=11)) == [0]


def test_an_honest_kernel_for_a_slow_reference_passes_the_check_clock(tmp_path):
    """The runner's clock on a check's answer covers the worker's answer only, not the reference's own forward for
    that call (computed first): with a reference slower than the check allowance, an honest kernel was rejected as
    `timing_wall_mismatch` (a red-team finding)."""
    from kernelgym.judge.runner import Judge
    from kernelgym.judge.wallclock import CHECK_ALLOWANCE_MS
    from kernelgym.testing.candidates import resized_relu_task

    task = resized_relu_task(tmp_path / "tasks", 8, 300, reference_pause_s=1.5 * CHECK_ALLOWANCE_MS["cpu"] / 1e3)
    judge = Judge(device="cpu", cache_dir=tmp_path / "cache")
    try:
        result = judge.evaluate(task, GOOD, profile=get_profile("quick"))
        assert result.status == "ok", result.message
        assert result.runtime_spread["fastest_check_ms"] < CHECK_ALLOWANCE_MS["cpu"]
    finally:
        judge.close()


def test_the_bounds_fastest_block_is_one_without_a_probe():
    """A probe's inputs cost the worker more (outliers drawn on the host) than the null blocks' inputs, which the
    overhead comes from: where every block had a probe, the bound takes one more block, without; the blocks after
    a contradiction have none either. Here the probed blocks took 26 ms per call and a plain one takes 4.2: the
    honest 1.15 ms report stands (with the probed blocks alone it was rejected)."""
    import types

    from kernelgym.judge.session import Session
    from kernelgym.judge.wallclock import BlockClock

    def runs(probed_walls: list[float]):
        clock = BlockClock(lambda calls: [1.15] * calls)
        asked = []

        def checked_blocks(calls, force_check=False, force_probe=None, probes=True):
            asked.append(probes)
            clock(calls)
            clock.per_call_ms[-1] = 4.2  # a block without a probe
            bare._probed_blocks.append(False)
            return [1.15] * calls

        for wall in probed_walls:
            clock(5)
            clock.per_call_ms[-1] = wall
        bare = types.SimpleNamespace(null_overhead_ms=3.0, null_overheads_ms=[3.0], null_call_ms=0.05,
                                     null_steps=[], block_steps=[], witness=None, _witness_starter=None, **NO_LATE_NULLS,
                                     settings=types.SimpleNamespace(on_cpu=False), clock=clock, check_ms=[],
                                     reference=types.SimpleNamespace(timing_method="synchronized"),
                                     bound_inputs={}, _probed_blocks=[True] * len(probed_walls),
                                     _checked_blocks=checked_blocks)
        return Session.check_wall_clock(bare, {"overhead_ms": 0.5}, 5), asked, bare

    from kernelgym.judge.wallclock import lower_bound_ms, mismatch

    assert mismatch(1.15, lower_bound_ms(26.0, 3.0, 5, on_gpu=True))  # the probed blocks alone contradict it
    bound, asked, bare = runs([26.0, 28.6])
    assert asked == [False] and bound <= 1.15  # one plain block, and the report stands
    assert bare.bound_inputs["runner_block_probed"] == [True, True, False]
    assert bare.bound_inputs["runner_blocks_added"] == 1
    assert bare.bound_inputs["runner_fastest_wall_ms"] == 4.2


def test_a_reference_block_copies_every_call_but_keeps_one_copy_at_a_time(monkeypatch):
    """The reference's blocks copy each call's outputs (the candidate's blocks' work outside the timed interval),
    and each copy is gone before the next is made (``ReferenceTimer.copied_block``)."""
    import weakref

    from kernelgym.judge import timing
    from kernelgym.judge.reference import ReferenceTimer

    made: list = []
    original = timing._clone

    def clone(tensor):
        assert all(ref() is None for ref in made), "an earlier copy still lives"
        copy = original(tensor)
        made.append(weakref.ref(copy))
        return copy

    monkeypatch.setattr(timing, "_clone", clone)
    times = ReferenceTimer(lambda x: x * 2, lambda i: [torch.ones(4)], "cpu").copied_block(4)
    assert len(times) == 4 and len(made) == 4 and all(ref() is None for ref in made)

def test_a_workers_step_times_are_reported_only_when_well_formed():
    """The worker's per-step host times of a block are its word: carried as a diagnostic when they are a small
    mapping of short names to finite non-negative numbers, dropped otherwise (never a verdict)."""
    from kernelgym.judge.session import steps_of_least
    from kernelgym.judge.wallclock import MAX_STEPS, step_report

    assert step_report({"call": 1.23456, "inputs": 0}) == {"call": 1.2346, "inputs": 0.0}
    for bad in (None, [1.0], {"call": -1.0}, {"call": float("nan")}, {"call": float("inf")}, {"call": True},
                {"call": "1"}, {1: 1.0}, {"x" * 33: 1.0}, {f"s{i}": 1.0 for i in range(MAX_STEPS + 1)}):
        assert step_report(bad) is None, bad
    steps = [{"call": 1.0}, {"call": 2.0}, {"call": 3.0}]
    assert steps_of_least(steps, [5.0, 1.0, 3.0]) == {"call": 2.0}
    assert steps_of_least(steps, [1.0, 2.0]) is None and steps_of_least([], []) is None


def test_an_evaluation_reports_where_its_blocks_time_went(judge, relu_task):
    """The least-overhead null block's and the fastest timed block's per-step host times come with the result, and
    the timed call's step holds the forward (far more than a null call's, which only allocates)."""
    from kernelgym.judge.timing import BLOCK_STEPS
    from kernelgym.testing.candidates import GOOD

    result = judge.evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    null, fastest = result.runtime_spread["null_block_steps_ms"], result.runtime_spread["fastest_block_steps_ms"]
    assert set(null) == set(fastest) == set(BLOCK_STEPS)
    assert fastest["call"] > 5 * null["call"] and fastest["call"] > 0.5 * result.runtime_spread["reported_median_ms"]


def test_a_candidate_that_floods_the_step_diagnostics_changes_no_verdict(tmp_path, relu_task):
    """The per-step diagnostics are the worker's word: a candidate that makes the timer's step list huge (the
    timing module's names, reachable from its forward) is refused for changing the judge's module, without the
    runner failing on the frames (the worker sends at most ``MAX_STEPS`` steps, the runner checks them)."""
    from kernelgym.judge.runner import Judge
    from kernelgym.testing.candidates import indent, kernel_forward

    body = """
import sys
sys.modules["kernelgym.judge.timing"].BLOCK_STEPS = tuple(f"s{i}" for i in range(100000))
return launch(x)"""
    judge = Judge(device="cpu", cache_dir=tmp_path, static_checks=False)
    result = judge.evaluate(relu_task, kernel_forward(indent(body)))
    assert result.status == "rejected" and "BLOCK_STEPS" in result.message, result.message + result.log_tail
    assert not result.judge_fault
