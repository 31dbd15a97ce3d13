"""Red team, round 45: the late null blocks (``Session._late_null_round``).

Where the runner's bound would raise the reported runtime, null calls run again in the candidate's own worker, each
block right before a candidate block, and the bound subtracts their overhead (floored by the overhead measured before
the candidate loaded, capped at :data:`~kernelgym.judge.wallclock.LATE_NULL_CAP` times it). The candidate's code has
run by then: whatever makes those null blocks, and only those, slower than the host steps of its own blocks inflates
the overhead and lowers the bound a rewritten timer must clear. The end-to-end attacks run on the CPU judge (the
Triton interpreter) with the static guards off; on the CPU the bound's overhead is the reference's, so the late round
is forced (``Session._late_nulls_wanted``) and the property measured is the late null blocks' overhead beside the
early one's and the candidate blocks' own."""

from __future__ import annotations

import statistics

import pytest

from kernelgym.testing.candidates import kernel_forward

#: seconds each attack adds to a late null block (five calls: 10 ms a call, many times the CPU's null overhead)
SLEEP_S = 0.05

#: attack code shared by the candidates: ``slowed()`` sleeps :data:`SLEEP_S` once per late null block
ATTACKS = '''
import json
import sys
import time
import weakref

SLEEP_S = {sleep_s!r}
ROUTE = {route!r}
STATE = {{"refs": [], "hooked": None}}


def frame_named(name):
    f = sys._getframe(1)
    while f is not None and f.f_code.co_name != name:
        f = f.f_back
    return f


class Tick:
    """Cyclic garbage with a finalizer, made again by its finalizer: the worker's ``gc.collect(1)`` after each
    command runs it. It peeks at the runner's next command line (left for the worker's ``readline``): before a
    ``null`` it sleeps, in the runner's clock on that block."""

    def __init__(self):
        self.cycle = self

    def __del__(self):
        try:
            if sys.stdin.buffer.peek(1).startswith(b"null "):
                time.sleep(SLEEP_S)
        finally:
            Tick()


def install():
    if ROUTE == "finalizer":
        Tick()
    elif ROUTE == "empty":  # the null forward's torch.empty, looked up when it runs (unwatched)
        real = torch.empty

        def empty(*args, **kwargs):
            if frame_named("allocate") is not None:
                time.sleep(SLEEP_S / 5)
            return real(*args, **kwargs)
        torch.empty = empty
    elif ROUTE == "loads":  # json.loads: only the null block parses its specs with it
        real_loads = json.loads

        def loads(text, *args, **kwargs):
            if frame_named("null_block") is not None:
                time.sleep(SLEEP_S)
            return real_loads(text, *args, **kwargs)
        json.loads = loads


def hook_late_timer():
    """From a forward: a weakref callback on the late null timer's inputs' maker (the worker replaced it at the start
    of its next null block, inside the runner's clock on that block)."""
    serve = frame_named("serve")
    timer = getattr(serve.f_locals.get("self"), "late_null_timer", None) if serve is not None else None
    if timer is None or STATE["hooked"] == id(timer.make_args):
        return
    STATE["hooked"] = id(timer.make_args)
    STATE["refs"].append(weakref.ref(timer.make_args, lambda _r: time.sleep(SLEEP_S)))
'''


def attacker(route: str | None) -> str:
    """The honest scaled-relu candidate with round 45's attack ``route`` (``None``: none)."""
    body = "        if ROUTE == 'callback':\n            hook_late_timer()\n        return launch(x)"
    return kernel_forward(body, init="install()", extra=ATTACKS.format(sleep_s=SLEEP_S, route=route))


def forced_late_round(monkeypatch) -> None:
    """The late null round on the CPU judge, as where the bound would raise the report (once per evaluation)."""
    from kernelgym.judge import session as session_module

    monkeypatch.setattr(session_module.Session, "_late_nulls_wanted", lambda self, bound, measured:
                        self.late_clock is None)


def overheads(result) -> dict:
    """The per-call overheads (ms) of an evaluation's null blocks before the candidate loaded (least and median) and
    its late null blocks (least: what the bound would subtract, before the floor and the cap)."""
    spread = result.runtime_spread
    return {"early": min(spread["null_overheads_ms"]), "early_median": statistics.median(spread["null_overheads_ms"]),
            "late": min(spread["late_null_overheads_ms"])}


@pytest.mark.timeout(900)
@pytest.mark.parametrize("route", [None, "finalizer", "empty", "loads", "callback"])
def test_candidate_code_cannot_slow_the_late_null_blocks(route, runtime_judge, relu_task, monkeypatch):
    forced_late_round(monkeypatch)
    result = runtime_judge.evaluate(relu_task, attacker(route))
    assert result.status == "ok", (result.status, result.message, result.flags)
    seen = overheads(result)
    print(route, seen, result.runtime_spread["late_null_overheads_ms"], result.runtime_spread["null_overheads_ms"])
    # the attacks add 10 ms a call (before round 45's mend: 17-21 ms of late overhead beside 1.2-1.5 early); the
    # honest candidate's late blocks paid 1.8-2.7 here: 40% of the sleep is far from both
    assert seen["late"] < seen["early_median"] + 0.4 * SLEEP_S * 1e3 / 5, seen


def test_a_flag_in_a_late_null_blocks_ready_frame_is_the_candidates_rejection():
    """The worker checks its integrity right before a late null block is timed (``Worker._late_null_ready``): a
    function the block calls replaced then (and put back by the block's end) is flagged in the ready frame, the
    candidate's rejection, before any of the block's frames."""
    from kernelgym.judge.result import EvalResult
    from kernelgym.judge.session import Session
    from kernelgym.judge.verdict import Verdict

    session = Session.__new__(Session)
    read = []
    session.__dict__.update({"result": EvalResult(task_id="t"), "send": lambda *words: None, "late_ready_ms": [],
                             "late_null_steps": [], "_read_block": lambda *a, **k: read.append(a) or ({}, []),
                             "expect": lambda *events: {"event": "timing_ready", "integrity_flags": [
                                 ["monkeypatch", "the candidate replaced kernelgym.judge.worker._json_loads"]]}})
    with pytest.raises(Verdict) as late:
        session.null_block(5, "[]", late=True)
    assert late.value.status == "rejected" and "_json_loads" in late.value.message and not read
