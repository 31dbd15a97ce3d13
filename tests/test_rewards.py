"""Reward formulas: gating, bounds, ordering of statuses, registry."""

from __future__ import annotations

import pytest

from kernelgym.judge.result import STATUSES, EvalResult
from kernelgym.rewards import REWARDS, get_reward, register_reward


def res(status="ok", speedup=None, meaningful=True):
    return EvalResult(task_id="t", status=status, stage="done" if status == "ok" else "correctness",
                      speedup=speedup, timing_meaningful=meaningful)


@pytest.mark.parametrize("name", sorted(REWARDS))
def test_no_failure_beats_a_correct_kernel(name):
    fn = get_reward(name)
    worst_correct = min(fn(res("ok", s), []) for s in (None, 0.01, 0.5, 1.0))
    for status in STATUSES:
        if status != "ok":
            assert fn(res(status, 100.0), []) <= worst_correct, status


def test_speedup_reward_values():
    fn = get_reward("speedup")
    assert fn(res("ok", 1.0), []) == pytest.approx(0.3)
    assert fn(res("ok", 10.0), []) == pytest.approx(1.0)
    assert fn(res("ok", 1000.0), []) == pytest.approx(1.0)
    assert fn(res("ok", 10 ** 0.5), []) == pytest.approx(0.65)
    assert fn(res("ok", 5.0, meaningful=False), []) == pytest.approx(0.3)
    assert fn(res("incorrect", 5.0), []) == 0.0


def test_fast_p_and_correct():
    assert get_reward("fast_p:1.5")(res("ok", 1.6), []) == 1.0
    assert get_reward("fast_p:1.5")(res("ok", 1.4), []) == 0.0
    assert get_reward("fast_p:0")(res("ok", None, False), []) == 1.0
    assert get_reward("correct")(res("ok"), []) == 1.0 and get_reward("correct")(res("incorrect"), []) == 0.0


def test_shaped_tiers_and_improvement_bonus():
    fn = get_reward("shaped")
    assert fn(res("rejected"), []) < fn(res("compile_error"), []) < fn(res("incorrect"), []) < fn(res("ok"), [])
    first = res("ok", 2.0)
    assert fn(res("ok", 3.0), [first]) == pytest.approx(fn(res("ok", 3.0), []) + 0.1)


def test_rewards_accept_dicts():
    assert get_reward("speedup")(res("ok", 10.0).to_dict(), []) == pytest.approx(1.0)


def test_registry_errors_are_clear():
    with pytest.raises(ValueError, match="unknown reward"):
        get_reward("nope")
    with pytest.raises(ValueError, match="already registered"):
        register_reward("speedup", lambda: None)


@pytest.mark.parametrize("name", ["speedup", "speedup_coverage", "fast_p:1.5", "shaped"])
def test_a_speedup_on_a_degenerate_task_earns_no_bonus(name):
    """On a task whose reference ignores its inputs any constant is correct: its speed counts as unmeasured."""
    fn = get_reward(name)
    fast = res("ok", 50.0)
    fast.kernel_coverage = 1.0
    degenerate = res("ok", 50.0)
    degenerate.kernel_coverage = 1.0
    degenerate.add_flag("degenerate_task", "the reference returned identical outputs")
    unmeasured = res("ok", None, meaningful=False)
    assert fn(degenerate, []) == fn(unmeasured, []) < fn(fast, [])
    assert fn(degenerate.to_dict(), []) == fn(unmeasured, [])
