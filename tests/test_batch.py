"""Paying for the reference once per batch (kernelgym/judge/batch.py): evaluations of one task in a batch share the
trials' secret seeds and the reference's outputs, and nothing of one candidate reaches another."""

from __future__ import annotations

import pytest

from conftest import GOOD
from kernelgym.judge.batch import BatchPlan
from kernelgym.judge.runner import Judge
from kernelgym.testing.candidates import indent, kernel_forward

#: where a candidate might leave its outputs for a later one: the places a worker can write to or read from
_PLACES = '["/tmp", "/dev/shm", "/var/tmp", os.getcwd(), os.path.dirname(os.getcwd()), os.path.expanduser("~")]'

#: honest, and leaves every output it computes, named by its input, wherever it can write
LEAVES_OUTPUTS = kernel_forward(indent(f'''
y = launch(x)
key = "%.17g_%d" % (float(x.double().sum()), x.numel())
for place in {_PLACES}:
    try:
        torch.save(y.cpu(), os.path.join(place, "kg_leak_" + key + ".pt"))
    except Exception:
        pass
return y'''), imports="import os")

#: wrong on large inputs (the outlier trials), right on ordinary ones (so timed calls pass); before computing it
#: looks for an output an earlier candidate left for the very same inputs
READS_LEFTOVERS = kernel_forward(indent(f'''
y = launch(x)
key = "%.17g_%d" % (float(x.double().sum()), x.numel())
for place in {_PLACES}:
    path = os.path.join(place, "kg_leak_" + key + ".pt")
    if os.path.exists(path):
        return torch.load(path).to(x.device)
return torch.where(x.abs() > 8, torch.zeros_like(y), y)'''), imports="import os")


#: a CI target (relative to the median) that every figure meets: the CPU interpreter's timing is a token one
CPU_ANY_CI = 1e9


@pytest.fixture(scope="module")
def runtime_judge(tmp_path_factory):
    return Judge(device="cpu", cache_dir=tmp_path_factory.mktemp("cache"), static_checks=False)


@pytest.mark.timeout(300)
def test_the_reference_runs_once_per_trial_for_the_whole_batch(judge, relu_task):
    plan = BatchPlan(relu_task)
    first = judge.evaluate(relu_task, GOOD, batch=plan)
    assert first.status == "ok", first.message
    after_first = plan.computed
    assert after_first >= len(first.trials)  # every trial's reference computed once (the profiled forward too)
    second = judge.evaluate(relu_task, GOOD, batch=plan)
    assert second.status == "ok", second.message
    assert plan.computed == after_first  # nothing computed again for the second candidate's trials
    assert sorted(t["trial"] for t in first.trials) == sorted(t["trial"] for t in second.trials)  # order drawn


@pytest.mark.timeout(300)
def test_a_batch_times_the_eager_reference_once_and_shares_the_figure(judge, relu_task):
    """Under ``quick`` the first evaluation times the reference interleaved and offers its figure; the next one of
    the batch uses it (no reference blocks of its own); an evaluation outside the batch times its own. The CPU's
    token timing gets a CI target no figure misses (``CPU_ANY_CI``): a loaded CI machine left an eager relu of
    microseconds with a CI above its median, and an unconverged figure is rightly not offered (that rule is
    :func:`test_a_plan_keeps_the_first_converged_eager_figure_per_key`'s)."""
    from kernelgym.judge.profiles import get_profile
    from kernelgym.judge.timing import TimingConfig

    quick = get_profile("quick").with_overrides(cpu_timing=TimingConfig(warmup=1, min_runs=8, max_runs=8,
                                                                        budget_s=5.0, rel_ci=CPU_ANY_CI))
    plan = BatchPlan(relu_task)
    first = judge.evaluate(relu_task, GOOD, batch=plan, profile=quick)
    assert first.status == "ok", first.message
    assert first.runtime_spread["baseline"].startswith("interleaved")
    assert plan.baselines() == 1, first.runtime_spread
    second = judge.evaluate(relu_task, GOOD, batch=plan, profile=quick)
    assert second.status == "ok", second.message
    assert second.runtime_spread["baseline"] == "batch" and second.baseline_ms == first.baseline_ms
    alone = judge.evaluate(relu_task, GOOD, profile=quick)
    assert alone.runtime_spread["baseline"].startswith("interleaved")
    full = judge.evaluate(relu_task, GOOD, batch=plan, profile="full")  # full times it every time, batch or not
    assert full.status == "ok" and full.runtime_spread["baseline"].startswith("interleaved")
    # the same profile name with another timing configuration does not take a figure measured under the first
    looser = quick.with_overrides(cpu_timing=TimingConfig(warmup=1, min_runs=9, max_runs=9, budget_s=5.0,
                                                          rel_ci=CPU_ANY_CI))
    other = judge.evaluate(relu_task, GOOD, batch=plan, profile=looser)
    assert other.runtime_spread["baseline"].startswith("interleaved") and plan.baselines() == 2


@pytest.mark.timeout(300)
def test_an_evaluation_carrying_any_flag_offers_its_batch_no_eager_figure(relu_task, tmp_path):
    """Only an evaluation whose timing was accepted without a flag sets its batch-mates' denominator (a red-team
    helper found a candidate rejected on its timing offering first); here the flag is the judge's own
    ``unsandboxed``, on every evaluation (with a CI target no figure misses, so the flag alone stops the offer)."""
    from kernelgym.judge.profiles import get_profile
    from kernelgym.judge.timing import TimingConfig

    quick = get_profile("quick").with_overrides(cpu_timing=TimingConfig(warmup=1, min_runs=8, max_runs=8,
                                                                        budget_s=5.0, rel_ci=CPU_ANY_CI))
    judge = Judge(device="cpu", cache_dir=tmp_path, sandbox="unsafe")
    plan = BatchPlan(relu_task)
    for _ in range(2):
        result = judge.evaluate(relu_task, GOOD, batch=plan, profile=quick)
        assert result.status == "ok" and [f["name"] for f in result.flags] == ["unsandboxed"], result.flags
        assert result.runtime_spread["baseline"].startswith("interleaved")
    assert plan.baselines() == 0


def test_a_plan_keeps_the_first_converged_eager_figure_per_key(relu_task):
    plan = BatchPlan(relu_task)
    key = ("cuda:0", "synchronized", "quick")
    assert not plan.offer_baseline(key, {"median_ms": 1.0, "ci95_ms": 0.05}, rel_ci=0.02)  # CI too wide
    assert not plan.offer_baseline(key, {"median_ms": 1.0}, rel_ci=0.02)  # no CI: not offered
    assert plan.baseline(key) is None
    assert plan.offer_baseline(key, {"median_ms": 1.0, "ci95_ms": 0.01}, rel_ci=0.02)
    assert not plan.offer_baseline(key, {"median_ms": 0.5, "ci95_ms": 0.001}, rel_ci=0.02)  # the first one stays
    assert plan.baseline(key)["median_ms"] == 1.0
    assert plan.baseline(("cuda:1", "synchronized", "quick")) is None  # another device measures its own


def test_a_plan_serves_one_task_only(judge, relu_task, tmp_path):
    from kernelgym.testing.candidates import resized_relu_task

    other = resized_relu_task(tmp_path, 4, 8)  # same id, other problem: a different digest
    with pytest.raises(ValueError, match="belongs to"):
        judge.evaluate(other, GOOD, batch=BatchPlan(relu_task))


@pytest.mark.timeout(600)
def test_a_candidate_cannot_pick_up_an_earlier_candidates_outputs_for_the_same_inputs(runtime_judge, relu_task):
    plan = BatchPlan(relu_task)
    assert runtime_judge.evaluate(relu_task, LEAVES_OUTPUTS, batch=plan).status == "ok"
    result = runtime_judge.evaluate(relu_task, READS_LEFTOVERS, batch=plan)
    assert result.status == "incorrect" and ("outlier trial" in result.message or "wide trial" in result.message), \
        result.message


@pytest.mark.timeout(600)
def test_without_the_sandbox_the_same_leak_works_which_is_why_the_sandbox_is_on(tmp_path, relu_task, no_probes):
    """The control: with plain child processes (``sandbox="unsafe"``) the two candidates share /tmp, the leftover
    outputs are found and the outlier-blind kernel passes the trials — flagged ``unsandboxed``, as every such result
    is. (Probes are off here: their inputs are fresh for every evaluation, so nothing is left for them, and they
    would fail the outlier-blind kernel on their own.)"""
    judge = Judge(device="cpu", cache_dir=tmp_path, static_checks=False, sandbox="unsafe")
    plan = BatchPlan(relu_task)
    assert judge.evaluate(relu_task, LEAVES_OUTPUTS, batch=plan).status == "ok"
    result = judge.evaluate(relu_task, READS_LEFTOVERS, batch=plan)
    assert result.status == "ok" and "unsandboxed" in [f["name"] for f in result.flags], result.message


@pytest.mark.timeout(600)
def test_a_local_evaluators_batch_pays_the_reference_once_per_task(relu_task, tmp_path, monkeypatch):
    import kernelgym.evaluators.local as evaluators  # LocalEvaluator looks batch_plans up here

    made: list[dict] = []
    real = evaluators.batch_plans
    monkeypatch.setattr(evaluators, "batch_plans", lambda tasks: made.append(real(tasks)) or made[-1])
    with evaluators.LocalEvaluator(device="cpu", cache_dir=tmp_path, max_workers=2) as pool:
        results = pool.evaluate_many([(relu_task, GOOD)] * 3)
    assert [r.status for r in results] == ["ok"] * 3, [r.message for r in results]
    (plans,) = made
    (plan,) = plans.values()
    # every trial's and the profiled forward's reference output computed once for the three candidates
    assert plan.computed == len(results[0].trials) + 1


def reference_blocks(monkeypatch) -> list:
    """From now on, every eager-reference block timed (``ReferenceTimer.time_block``) is recorded, once it has run,
    as ``(calls, keep, after_call)`` in the returned list."""
    from kernelgym.judge import reference

    seen: list = []
    original = reference.ReferenceTimer.time_block

    def spy(self, calls, keep=None, after_call=None):
        times = original(self, calls, keep, after_call)
        seen.append((calls, keep, after_call))
        return times

    monkeypatch.setattr(reference.ReferenceTimer, "time_block", spy)
    return seen


def test_the_reference_blocks_keep_one_copy_of_outputs_at_a_time(judge, relu_task, monkeypatch):
    """Every eager-reference block the session times copies its calls' outputs into a list emptied after each call
    (``ReferenceTimer.copied_block``): a block's worth of L1/15's copies filled the runner."""
    seen = reference_blocks(monkeypatch)
    result = judge.evaluate(relu_task, GOOD, profile="full")
    assert result.status == "ok", result.message
    assert seen and all(keep == [] and after_call == keep.clear for _, keep, after_call in seen), seen
    assert any(calls > 1 for calls, _, _ in seen), seen


def test_the_allocators_unused_cache_is_given_back_before_the_reference_is_timed(judge, relu_task, monkeypatch):
    """Between the correctness stage and the first eager-reference block the session asks the reference side to
    give back what its allocator caches unused beyond ``RELEASE_CACHE_BYTES`` (the trials' freed blocks belong to
    another stream than the timing's)."""
    from kernelgym.judge import reference, session

    events: list = []
    release, block = reference.ReferenceSide.release_cached_memory, reference.ReferenceTimer.time_block
    monkeypatch.setattr(reference.ReferenceSide, "release_cached_memory",
                        lambda self, min_unused=0: (events.append(("release", min_unused)), release(self, min_unused)))
    monkeypatch.setattr(reference.ReferenceTimer, "time_block",
                        lambda self, calls, keep=None, after_call=None: (
                            events.append(("block", calls)), block(self, calls, keep, after_call))[1])
    result = judge.evaluate(relu_task, GOOD, profile="full")
    assert result.status == "ok", result.message
    first_block = next(i for i, (kind, _) in enumerate(events) if kind == "block")
    assert ("release", session.RELEASE_CACHE_BYTES) in events[:first_block], events


def test_the_confirmation_block_alone_keeps_one_copy_of_outputs_at_a_time(tmp_path, relu_task, monkeypatch):
    """The eager block timed alone to confirm a figure (``Judge._confirm_baseline``, GPU only: here the judge is
    told it is not on the CPU) copies its calls' outputs as every reference block does, one copy at a time."""
    from kernelgym.judge.profiles import get_profile

    seen = reference_blocks(monkeypatch)
    judge = Judge(device="cpu", cache_dir=tmp_path)
    judge.on_cpu = False
    judge._confirm_baseline(relu_task, get_profile("quick"), {"median_ms": 1e6, "how": "interleaved"})
    assert len(seen) == 1, seen
    calls, keep, after_call = seen[0]
    assert calls > 1 and keep == [] and after_call == keep.clear, seen


def test_the_null_calls_reference_outputs_are_kept_only_for_a_first_standard_trial(judge, relu_task, monkeypatch):
    """The reference's outputs computed for the null calls (``Session._early_refs``) are those of the first standard
    trial: kept for it where it comes first, dropped at once where other trials come first (the order is drawn),
    so they never sit in memory through other trials."""
    from kernelgym.judge import session as session_module

    held: list = []
    original = session_module.Session.trial

    def spy(self, index, kind):
        held.append((index, kind, self._early_refs is not None))
        return original(self, index, kind)

    monkeypatch.setattr(session_module.Session, "trial", spy)
    monkeypatch.setattr(session_module, "trial_order",
                        lambda *args: list(reversed(session_module.fixed_trial_order(*args))))
    result = judge.evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    assert held and held[0][:2] != (0, "standard") and not any(kept for _, _, kept in held), held
    held.clear()
    monkeypatch.setattr(session_module, "trial_order", session_module.fixed_trial_order)
    result = judge.evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    assert held[0] == (0, "standard", True) and not any(kept for _, _, kept in held[1:]), held


def test_a_plans_kept_outputs_are_counted_by_the_budget_until_closed_or_collected(relu_task):
    """Kept reference outputs outlive the evaluation that computed them: the budget counts them outside its
    reservations while the plan keeps them, and stops when the plan is closed (an actor dropping an old plan) or
    collected (a local batch's plans)."""
    import gc

    import torch

    from kernelgym.judge.admission import MemoryBudget

    budget = MemoryBudget(1 << 30)
    plan = BatchPlan(relu_task, max_bytes=3 * 4096)
    kept = plan.outputs(lambda: (torch.zeros(1024),), seed=1, outlier=0, budget=budget)
    assert budget.outside == 4096 == plan.kept_bytes
    assert plan.outputs(lambda: pytest.fail("computed twice"), seed=1, outlier=0, budget=budget) is kept
    plan.outputs(lambda: (torch.zeros(1024),), seed=2, outlier=0, budget=budget)
    plan.outputs(lambda: (torch.zeros(4096),), seed=3, outlier=0, budget=budget)  # beyond max_bytes: not kept
    assert budget.outside == 8192 == plan.kept_bytes
    plan.close()
    assert budget.outside == 0 and plan.kept_bytes == 0
    plan.close()  # idempotent
    assert budget.outside == 0
    again = BatchPlan(relu_task)
    again.outputs(lambda: (torch.zeros(1024),), seed=1, outlier=0, budget=budget)
    assert budget.outside == 4096
    del again
    gc.collect()
    assert budget.outside == 0


def test_a_failed_sessions_tensors_are_freed_before_the_runner_gives_its_cached_memory_back(judge, relu_task,
                                                                                              monkeypatch):
    """A verdict raised inside a comparison carries that frame's tensors in its traceback until the caller has
    handled it: the runner drops them (and the session's kept outputs) before it gives its allocator's unused
    memory back, else their blocks stay cached outside every reservation."""
    import weakref

    import torch

    from kernelgym.judge.reference import ReferenceSide
    from kernelgym.judge.session import Session
    from kernelgym.judge.verdict import Verdict

    alive: list[bool] = []
    held: list = []

    def failing_compare(self, seed, outlier, where, trial=None, refs=None):
        outputs = (torch.ones(1 << 16),)  # a frame local, as a comparison's outputs are
        held.append(weakref.ref(outputs[0]))
        self._early_refs = (seed, (torch.ones(1 << 16),))  # kept by the session between steps
        held.append(weakref.ref(self._early_refs[1][0]))
        raise Verdict("incorrect", f"{where}: wrong")

    def recording_release(self, min_unused=0):
        alive.append(any(ref() is not None for ref in held))

    monkeypatch.setattr(Session, "compare", failing_compare)
    monkeypatch.setattr(ReferenceSide, "release_cached_memory", recording_release)
    result = judge.evaluate(relu_task, GOOD, profile="quick")
    assert result.status == "incorrect", result.message
    assert held and alive == [False], alive
