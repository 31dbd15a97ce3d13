"""The witness (kernelgym.judge.witness): a second worker of the evaluation's task that never gets the candidate
and times null calls in the candidate's timing window, whose overhead the runner's wall-clock bound subtracts."""

from __future__ import annotations

import types

import pytest

from kernelgym.judge.protocol import Command, Event
from kernelgym.judge.verdict import Verdict
from kernelgym.judge.wallclock import NULL_WARMUP_BLOCKS, lower_bound_ms
from kernelgym.judge.witness import DEFAULT_MODE, ENV, WITNESS_BLOCKS, WITNESS_CAP, WITNESS_TRIGGER, Witness, \
    mode_from, witness_overhead_ms
from kernelgym.testing.candidates import GOOD


def test_the_mode_comes_from_the_argument_or_the_environment_and_nothing_else(monkeypatch):
    monkeypatch.delenv(ENV, raising=False)
    assert mode_from(None) == DEFAULT_MODE == "off"
    assert (mode_from(True), mode_from(False), mode_from("always"), mode_from("lazy")) == \
        ("lazy", "off", "always", "lazy")
    with pytest.raises(ValueError, match="witness must be one of"):
        mode_from("sometimes")
    for value, expected in (("1", "lazy"), ("0", "off"), ("always", "always"), (" Lazy ", "lazy")):
        monkeypatch.setenv(ENV, value)
        assert mode_from(None) == expected
    monkeypatch.setenv(ENV, "yes please")
    with pytest.raises(ValueError, match=ENV):
        mode_from(None)


def test_a_misspelt_mode_fails_when_the_judge_is_made(tmp_path, monkeypatch):
    from kernelgym.judge.runner import Judge

    monkeypatch.setenv(ENV, "alwayz")
    with pytest.raises(ValueError, match=ENV):
        Judge(device="cpu", cache_dir=tmp_path)


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
    for k, wall in enumerate(walls):
        assert witness.block(calls) is (k >= NULL_WARMUP_BLOCKS)  # counted past the warm-up
        witness.clock.per_call_ms[-1] = wall
    return witness


def test_a_witness_counts_its_blocks_after_the_warm_up_and_stops_wanting_more():
    walls = [9.0] * NULL_WARMUP_BLOCKS + [2.5, 2.1, 3.0, 2.2][:WITNESS_BLOCKS]
    witness = measured_witness(walls, 0.1)
    assert not witness.wanted and len(witness.clock.per_call_ms) == NULL_WARMUP_BLOCKS + WITNESS_BLOCKS
    assert witness.block(5) is False  # no more blocks once it has its count
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
    assert witness.block(5) is False
    assert witness.failure.startswith("crashed") and killed and not witness.wanted
    assert witness.overhead_ms() is None and witness.report()["witness_failure"] == witness.failure


def bare_session(walls: list[float], witnessed: list[int], witness=None, null_overhead_ms: float = 1.0,
                 on_cpu: bool = False, **more):
    """A :class:`Session` without a worker whose candidate blocks of 5 calls (1 ms each by its worker) took
    ``walls`` ms per call by the runner's clock, those at ``witnessed`` after a counted witness block."""
    from kernelgym.judge.session import Session
    from kernelgym.judge.wallclock import BlockClock

    clock = BlockClock(lambda calls: [1.0] * calls)
    for wall in walls:
        clock(5)
        clock.per_call_ms[-1] = wall
    session = Session.__new__(Session)
    session.__dict__.update({"null_overhead_ms": null_overhead_ms, "null_overheads_ms": [null_overhead_ms],
                             "null_call_ms": 0.05, "null_steps": [], "block_steps": [], "witness": witness,
                             "_witness_starter": None, "_witnessed": list(witnessed),
                             "settings": types.SimpleNamespace(on_cpu=on_cpu), "clock": clock, "check_ms": [],
                             "reference": types.SimpleNamespace(timing_method="synchronized"), "bound_inputs": {},
                             "_probed_blocks": [False] * len(walls),
                             # the witness's window alone: no late null round (tests/test_timing.py has those)
                             "_late_nulls_wanted": lambda bound, measured: False, "late_clock": None,
                             "late_null_steps": [], "_late_wanted": 0, **more})
    return session


def check_with(witness, walls=(4.0,), witnessed=(0,), **kwargs) -> tuple[float, dict]:
    """The bound ``Session.check_wall_clock`` gives (and what it was made of), the reference's overhead 0.5 ms."""
    session = bare_session(list(walls), list(witnessed), witness, **kwargs)
    return session.check_wall_clock({"overhead_ms": 0.5}, 5), session.bound_inputs


def test_the_bound_is_also_taken_in_the_witness_window_and_the_lower_one_kept():
    """In the witness's window: the fastest candidate block that had a counted witness block before it, less the
    witness's overhead; the runner keeps the lower of that and the bound from the null calls' overhead."""
    witness = measured_witness([9.0] * NULL_WARMUP_BLOCKS + [1.9, 1.8, 2.0, 1.85][:WITNESS_BLOCKS], 0.1)
    # a witnessed block of 4.0 ms per call and a later one of 3.5 not witnessed: (4.0 - 1.7) against (3.5 - 1.0)
    bound, inputs = check_with(witness, walls=(4.0, 3.5), witnessed=(0,))
    assert bound == pytest.approx(lower_bound_ms(4.0, 1.7, 5, on_gpu=True))
    assert inputs["runner_overhead_from"] == "witness" and inputs["runner_overhead_ms"] == pytest.approx(1.7)
    assert inputs["runner_fastest_wall_ms"] == 4.0 and inputs["witnessed_blocks"] == [0]
    assert inputs["null_overhead_ms"] == 1.0 and inputs["witness_failure"] is None
    # where the null calls' bound is the lower one, it stays
    bound, inputs = check_with(witness, walls=(6.0, 2.5), witnessed=(0,))
    assert bound == pytest.approx(lower_bound_ms(2.5, 1.0, 5, on_gpu=True))
    assert inputs["runner_overhead_from"] == "null_calls" and inputs["runner_overhead_ms"] == 1.0
    # slowed beyond the cap (work left on the GPU): counted at the cap only
    slowed = measured_witness([9.0] * NULL_WARMUP_BLOCKS + [5.1] * WITNESS_BLOCKS, 0.1)
    assert check_with(slowed)[1]["runner_overhead_ms"] == pytest.approx(WITNESS_CAP * 1.0)
    # failed, or on the CPU: as without one
    failed = measured_witness([9.0] * NULL_WARMUP_BLOCKS, 0.1)
    failed.failure = "crashed: gone"
    assert check_with(failed)[1]["runner_overhead_from"] == "null_calls"
    assert check_with(witness, on_cpu=True)[1]["runner_overhead_from"] == "reference"


NULL_SPECS = '[{"kind":"tensor","shape":[4],"dtype":"float32"}]'


def test_a_lazy_witness_is_called_only_where_the_null_calls_bound_would_raise_the_runtime():
    """Mode ``lazy``: where the bound from the null calls stays below WITNESS_TRIGGER of the synchronized median,
    no witness is started; above it, one is started (off the GPU holds, its memory reserved) and its blocks run
    before as many more candidate blocks, whose fastest then gives the witness's bound."""
    import contextlib

    from kernelgym.judge.admission import GpuAdmission
    from kernelgym.judge.result import EvalResult

    started = []

    def starter():
        def null_block(n, specs):
            assert specs == NULL_SPECS  # the outputs the worker's own null blocks returned
            return [0.1] * n

        witness = Witness(types.SimpleNamespace(null_block=null_block, expect_ready=lambda: None))
        started.append(witness)
        return witness

    def session_for(walls):
        session = bare_session(walls, [], None, _witness_starter=starter, witness_need=1 << 20,
                               memory_hold=contextlib.ExitStack(), admission=GpuAdmission.none(),
                               result=EvalResult(task_id="t"), _step_s={}, _in_judge_step=False, waited_s=0.0,
                               deadline=1e12, total_deadline=1e12, worker=types.SimpleNamespace(freeze=lambda f: None),
                               _holding_alone=True, _gpu_hold=None, null_specs=NULL_SPECS)

        def checked_blocks(calls, force_check=False, force_probe=None, probes=True):
            session._witness_block(calls)
            session.clock(calls)
            session.clock.per_call_ms[-1] = 2.6  # by the runner's clock, in the witness's window
            session._probed_blocks.append(False)
            return [1.0] * calls

        session._checked_blocks = checked_blocks
        return session

    # null overhead 1.0: 1.6 ms per call gives (1.6 - 1.0 - 0.1) / 1.25 = 0.4 < 0.75: no witness
    quiet = session_for([1.6])
    assert quiet.check_wall_clock({"overhead_ms": 0.5}, 5) == pytest.approx(lower_bound_ms(1.6, 1.0, 5, True))
    assert not started and quiet.witness is None and "witnessed_blocks" not in quiet.bound_inputs
    # 3.0 ms per call gives 1.52 > 0.75: a witness, whose blocks (2.6 ms per call, overhead 0.1 less) come first
    raised = session_for([3.0])
    bound = raised.check_wall_clock({"overhead_ms": 0.5}, 5)
    assert len(started) == 1 and raised.witness is started[0] and started[0].failure is None
    assert len(raised.clock.per_call_ms) == 1 + NULL_WARMUP_BLOCKS + WITNESS_BLOCKS
    assert raised.bound_inputs["runner_blocks_added"] == NULL_WARMUP_BLOCKS + WITNESS_BLOCKS
    assert raised.bound_inputs["witnessed_blocks"] == list(range(1 + NULL_WARMUP_BLOCKS, 1 + NULL_WARMUP_BLOCKS
                                                                 + WITNESS_BLOCKS))
    overhead = witness_overhead_ms(started[0].overhead_ms(), 1.0)
    assert bound == pytest.approx(min(lower_bound_ms(2.6, 1.0, 5, True), lower_bound_ms(2.6, overhead, 5, True)))
    assert raised.bound_inputs["unwitnessed_bound_ms"] == pytest.approx(lower_bound_ms(2.6, 1.0, 5, True))
    assert raised.result.durations["witness_blocks"] >= 0 and WITNESS_TRIGGER < 1


def test_an_evaluation_with_a_witness_times_its_null_blocks_in_the_timing_window(tmp_path, relu_task):
    """A real witness worker beside a real evaluation: its blocks run before the candidate's first blocks (as many
    calls each), the verdict is the same, and on the CPU the bound still takes the reference's overhead."""
    from kernelgym.judge.runner import Judge

    judge = Judge(device="cpu", cache_dir=tmp_path, witness="always")
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
    counted = len(spread["witness_block_walls_ms"]) - NULL_WARMUP_BLOCKS
    assert spread["witnessed_blocks"] == list(range(NULL_WARMUP_BLOCKS, NULL_WARMUP_BLOCKS + max(counted, 0)))
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
    judge = Judge(device="cpu", cache_dir=tmp_path, witness="always")
    try:
        result = judge.evaluate(relu_task, GOOD)
    finally:
        judge.close()
    assert answers == ["crashed"]  # the witness's process ended instead of loading anything
    assert result.status == "ok", result.message
    assert result.runtime_spread["witness_failure"].startswith("crashed")
    assert result.runtime_spread["witness_block_walls_ms"] == []
    assert not result.judge_fault


def test_a_witness_block_and_the_candidate_block_after_it_share_one_exclusive_hold():
    """Outside the timing's slices (the lazy witness's blocks come after they closed), a witness block and the
    candidate block it witnesses take one exclusive hold of the GPU, so no other evaluation's step runs between
    them; without a witness wanting blocks, the candidate block takes its own as before."""
    import contextlib

    from kernelgym.judge.result import EvalResult
    from kernelgym.judge.wallclock import BlockClock

    taken = []

    @contextlib.contextmanager
    def exclusive():
        taken.append("exclusive")
        yield

    witness = Witness(types.SimpleNamespace(null_block=lambda n, specs: [0.1] * n))
    witness.specs, witness._ready = "[]", True
    session = bare_session([], [], witness, admission=types.SimpleNamespace(exclusive=exclusive),
                           result=EvalResult(task_id="t"), _step_s={}, _in_judge_step=False, waited_s=0.0,
                           deadline=1e12, total_deadline=1e12, worker=types.SimpleNamespace(freeze=lambda f: None),
                           _holding_alone=False, _gpu_hold=None, _per_block=5, _check_share=0.0)
    session.clock = BlockClock(lambda calls: [1.0] * calls)
    session._checked_blocks(5, probes=False)
    assert taken == ["exclusive"] and len(witness.clock.per_call_ms) == 1 and len(session.clock.per_call_ms) == 1
    witness.failure = "dropped"  # no more witness blocks: the candidate's block holds the GPU on its own
    session._checked_blocks(5, probes=False)
    assert taken == ["exclusive", "exclusive"] and len(witness.clock.per_call_ms) == 1
