"""The witness (kernelgym.judge.witness): a second worker of the evaluation's task that never gets the candidate
and times null calls in the candidate's timing window, whose overhead the runner's wall-clock bound subtracts."""

from __future__ import annotations

import types

import pytest

from kernelgym.judge.protocol import Command, Event
from kernelgym.judge.verdict import Verdict
from kernelgym.judge.wallclock import NULL_WARMUP_BLOCKS, lower_bound_ms
from kernelgym.judge.witness import ENV, WITNESS_BLOCKS, WITNESS_CAP, Witness, enabled_by_env, witness_overhead_ms
from kernelgym.testing.candidates import GOOD


def test_the_switch_reads_the_environment_and_refuses_other_values(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    assert enabled_by_env() is False and enabled_by_env(default=True) is True
    for value, expected in (("1", True), ("yes", True), ("0", False), ("false", False)):
        monkeypatch.setenv(ENV, value)
        assert enabled_by_env() is expected
    monkeypatch.setenv(ENV, "sometimes")
    with pytest.raises(ValueError, match=ENV):
        enabled_by_env()


def test_the_witness_overhead_is_capped_by_the_null_calls_figure():
    """Work the candidate left on the GPU could slow the witness's blocks (lowering the bound): its figure counts
    at most WITNESS_CAP times the overhead measured before any candidate code ran."""
    assert witness_overhead_ms(None, 1.0) is None
    assert witness_overhead_ms(1.5, 1.0) == 1.5
    assert witness_overhead_ms(9.0, 1.0) == pytest.approx(WITNESS_CAP)
    assert witness_overhead_ms(0.4, 1.0) == 0.4  # lower than before the candidate loaded: taken as measured
    assert witness_overhead_ms(0.7, None) == 0.7


def measured_witness(walls: list[float], median: float, calls: int = 5) -> Witness:
    """A witness whose clock holds blocks of ``calls`` calls, each ``median`` ms by the worker and ``walls`` ms per
    call by the runner's clock (the first NULL_WARMUP_BLOCKS uncounted)."""
    witness = Witness(types.SimpleNamespace(null_block=lambda n, specs: [median] * n))
    witness.specs, witness._ready = "[]", True
    for wall in walls:
        witness.block(calls)
        witness.clock.per_call_ms[-1] = wall
    return witness


def test_a_witness_counts_its_blocks_after_the_warm_up_and_stops_wanting_more():
    walls = [9.0] * NULL_WARMUP_BLOCKS + [2.5, 2.1, 3.0, 2.2][:WITNESS_BLOCKS]
    witness = measured_witness(walls, 0.1)
    assert not witness.wanted and len(witness.clock.per_call_ms) == NULL_WARMUP_BLOCKS + WITNESS_BLOCKS
    witness.block(5)  # no more blocks once it has its count
    assert len(witness.clock.per_call_ms) == NULL_WARMUP_BLOCKS + WITNESS_BLOCKS
    assert witness.overhead_ms() == pytest.approx(2.0)  # the least counted block, the warm-up left out
    assert witness.report()["witness_overheads_ms"] == pytest.approx([2.4, 2.0, 2.9, 2.1][:WITNESS_BLOCKS])
    assert measured_witness([9.0] * NULL_WARMUP_BLOCKS + [2.5], 0.1).overhead_ms() is None  # one block is too few


def test_a_failing_witness_is_dropped_and_measures_nothing():
    def dies(n, specs):
        raise Verdict("crashed", "the worker process exited")

    killed = []
    witness = Witness(types.SimpleNamespace(null_block=dies, worker=types.SimpleNamespace(kill=lambda: killed.append(1))))
    witness.specs, witness._ready = "[]", True
    witness.block(5)
    assert witness.failure.startswith("crashed") and killed and not witness.wanted
    assert witness.overhead_ms() is None and witness.report()["witness_failure"] == witness.failure


def check_with(witness, null_overhead_ms: float = 1.0, on_cpu: bool = False) -> tuple[float, dict]:
    """The bound ``Session.check_wall_clock`` gives a candidate whose fastest block took 4 ms per call over 5
    calls (1 ms each by its worker), with ``witness`` and the null calls' overhead."""
    from kernelgym.judge.session import Session
    from kernelgym.judge.wallclock import BlockClock

    clock = BlockClock(lambda calls: [1.0] * calls)
    clock(5)
    clock.per_call_ms[0] = 4.0
    bare = types.SimpleNamespace(null_overhead_ms=null_overhead_ms, null_overheads_ms=[null_overhead_ms],
                                 null_call_ms=0.05, null_steps=[], block_steps=[], witness=witness,
                                 settings=types.SimpleNamespace(on_cpu=on_cpu), clock=clock, check_ms=[],
                                 reference=types.SimpleNamespace(timing_method="synchronized"), bound_inputs={},
                                 _probed_blocks=[False])
    return Session.check_wall_clock(bare, {"overhead_ms": 0.5}, 5), bare.bound_inputs


def test_the_bound_subtracts_the_witness_overhead_on_a_gpu():
    witness = measured_witness([9.0] * NULL_WARMUP_BLOCKS + [1.9, 1.8, 2.0, 1.85][:WITNESS_BLOCKS], 0.1)
    bound, inputs = check_with(witness)
    assert bound == pytest.approx(lower_bound_ms(4.0, 1.7, 5, on_gpu=True))
    assert inputs["runner_overhead_from"] == "witness" and inputs["runner_overhead_ms"] == pytest.approx(1.7)
    assert inputs["null_overhead_ms"] == 1.0 and inputs["witness_failure"] is None
    # slowed beyond the cap (work left on the GPU): counted at the cap only
    slowed = measured_witness([9.0] * NULL_WARMUP_BLOCKS + [5.1] * WITNESS_BLOCKS, 0.1)
    assert check_with(slowed)[1]["runner_overhead_ms"] == pytest.approx(WITNESS_CAP * 1.0)
    # failed, or on the CPU: as without one
    failed = measured_witness([9.0] * NULL_WARMUP_BLOCKS, 0.1)
    failed.failure = "crashed: gone"
    assert check_with(failed)[1]["runner_overhead_from"] == "null_calls"
    assert check_with(witness, on_cpu=True)[1]["runner_overhead_from"] == "reference"


def test_an_evaluation_with_a_witness_times_its_null_blocks_in_the_timing_window(tmp_path, relu_task):
    """A real witness worker beside a real evaluation: its blocks run before the candidate's first blocks (as many
    calls each), the verdict is the same, and on the CPU the bound still takes the reference's overhead."""
    from kernelgym.judge.runner import Judge

    judge = Judge(device="cpu", cache_dir=tmp_path, witness=True)
    try:
        result = judge.evaluate(relu_task, GOOD)
    finally:
        judge.close()
    assert result.status == "ok", result.message
    spread = result.runtime_spread
    assert spread["witness_failure"] is None, spread["witness_failure"]
    blocks = len(spread["runner_block_walls_ms"])
    assert len(spread["witness_block_walls_ms"]) == min(blocks, NULL_WARMUP_BLOCKS + WITNESS_BLOCKS)
    assert all(w > 0 for w in spread["witness_block_walls_ms"])
    assert spread["runner_overhead_from"] == "reference"
    assert result.durations["witness_blocks"] > 0


def test_a_witness_refuses_a_candidate_and_its_failure_is_never_the_candidates_verdict(tmp_path, relu_task,
                                                                                       monkeypatch):
    """A witness runs only the judge's code: told ``go`` it stops (here the test sends it, before the timing);
    the evaluation goes on without it and its verdict is the candidate's alone."""
    from kernelgym.judge.runner import Judge

    answers = []
    wait_ready = Witness.wait_ready

    def wait_then_go(self):
        wait_ready(self)
        self.session.send(Command.GO)
        try:
            answers.append(self.session.expect(Event.LOADED)["event"])
        except Verdict as verdict:
            answers.append(verdict.status)
            self.fail(f"{verdict.status}: {verdict.message}")

    monkeypatch.setattr(Witness, "wait_ready", wait_then_go)
    judge = Judge(device="cpu", cache_dir=tmp_path, witness=True)
    try:
        result = judge.evaluate(relu_task, GOOD)
    finally:
        judge.close()
    assert answers == ["crashed"]  # the witness's process ended instead of loading anything
    assert result.status == "ok", result.message
    assert result.runtime_spread["witness_failure"].startswith("crashed")
    assert result.runtime_spread["witness_block_walls_ms"] == []
    assert not result.judge_fault
