"""The GPU scheduler's rules (kernelgym/judge/admission.py, Session.gpu): evaluations hold the GPU one step at a
time, so a timer waits for the steps in flight rather than for other evaluations' whole stages, sharers resume
between its blocks, and waiting is never charged to a candidate."""

from __future__ import annotations

import contextlib
import threading
import time

import pytest

from kernelgym.judge.admission import SharedExclusiveLock


class RecordingLock(SharedExclusiveLock):
    """A real SharedExclusiveLock that logs (kind, "in"/"out", thread name, time) for every hold."""

    def __init__(self):
        super().__init__()
        self.log: list[tuple[str, str, str, float]] = []
        self._log_lock = threading.Lock()

    def _note(self, kind: str, edge: str) -> None:
        with self._log_lock:
            self.log.append((kind, edge, threading.current_thread().name, time.monotonic()))

    @contextlib.contextmanager
    def shared(self, label=None):
        with super().shared(label):
            self._note("shared", "in")
            try:
                yield
            finally:
                self._note("shared", "out")

    @contextlib.contextmanager
    def exclusive(self):
        with super().exclusive():
            self._note("exclusive", "in")
            try:
                yield
            finally:
                self._note("exclusive", "out")


def test_a_timer_gets_the_gpu_within_one_step_and_sharers_resume_after_its_block():
    lock, step_s = RecordingLock(), 0.1
    asked = {}

    def sharer():
        for _ in range(8):
            with lock.shared():
                time.sleep(step_s)

    def timer():
        time.sleep(0.15)  # in the middle of the sharer's second step
        asked["at"] = time.monotonic()
        with lock.exclusive():
            asked["got"] = time.monotonic()
            time.sleep(0.05)

    threads = [threading.Thread(target=sharer, name="sharer"), threading.Thread(target=timer, name="timer")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert asked["got"] - asked["at"] <= step_s + 0.05  # waited for the step in flight only
    steps = [e for e in lock.log if e[2] == "sharer" and e[1] == "in"]
    assert len(steps) == 8  # every step of the sharer ran: it resumed after the timer
    out = next(e[3] for e in lock.log if e[0] == "exclusive" and e[1] == "out")
    assert any(e[3] >= out for e in steps)  # and some of them after the timer's block
    holding = 0
    for kind, edge, _, _ in lock.log:  # never a sharer inside the timer's hold
        holding += (1 if edge == "in" else -1) if kind == "shared" else 0
        if kind == "exclusive" and edge == "in":
            assert holding == 0


def test_a_stream_of_timers_delays_a_sharer_by_at_most_the_bound_and_one_block():
    bound_s, block_s = 0.3, 0.05
    lock = SharedExclusiveLock(sharer_wait_bound_s=bound_s)
    stop = threading.Event()
    waits: list[float] = []

    def timer():  # two of these: one always waits while the other holds, so without a bound no sharer gets in
        while not stop.is_set():
            with lock.exclusive():
                time.sleep(block_s)

    def sharer():
        for _ in range(3):
            asked = time.monotonic()
            with lock.shared():
                waits.append(time.monotonic() - asked)
                time.sleep(0.02)
            time.sleep(0.1)

    timers = [threading.Thread(target=timer, daemon=True) for _ in range(2)]
    for t in timers:
        t.start()
    time.sleep(0.1)
    s = threading.Thread(target=sharer)
    s.start()
    s.join(timeout=10)
    stop.set()
    for t in timers:
        t.join(timeout=5)
    assert len(waits) == 3, "the sharer never got in while timers kept coming"
    assert max(waits) <= bound_s + block_s + 0.15
    assert min(waits) >= bound_s - 0.05  # and timers kept their preference below the bound


def test_timers_still_pass_sharers_that_have_waited_less_than_the_bound():
    lock = SharedExclusiveLock(sharer_wait_bound_s=5.0)
    order: list[str] = []
    holding = threading.Event()

    def first_sharer():
        with lock.shared():
            holding.set()
            time.sleep(0.2)
        order.append("first sharer out")

    def timer():
        holding.wait()
        with lock.exclusive():
            order.append("timer")
            time.sleep(0.1)

    def late_sharer():  # asks after the timer: waits for it (writer preference)
        holding.wait()
        time.sleep(0.05)
        with lock.shared():
            order.append("late sharer")

    threads = [threading.Thread(target=f) for f in (first_sharer, timer, late_sharer)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=5)
    assert order == ["first sharer out", "timer", "late sharer"]


@pytest.mark.timeout(300)
def test_an_evaluation_holds_the_gpu_one_step_at_a_time(tmp_path, relu_task, monkeypatch):
    from conftest import GOOD
    from kernelgym.judge import admission
    from kernelgym.judge.runner import Judge

    # one slice for every round and the blocks the timing ends with, however slow this machine is today
    monkeypatch.setattr(admission, "TIMING_HOLD_SLICE_S", 1000.0)
    lock = RecordingLock()
    judge = Judge(device="cpu", cache_dir=tmp_path, gpu_lock=lock)
    held_at_reference: list[int] = []
    outputs = judge.reference.outputs

    def recorded_outputs(*args, **kwargs):  # the real reference forward, noting whether the GPU is held
        held_at_reference.append(sum(1 if edge == "in" else -1 for _, edge, _, _ in lock.log))
        return outputs(*args, **kwargs)

    judge.reference.outputs = recorded_outputs
    result = judge.evaluate(relu_task, GOOD, profile="quick")
    assert result.status == "ok", result.message
    holds = [(kind, t) for kind, edge, _, t in lock.log if edge == "in"]
    shared = sum(kind == "shared" for kind, _ in holds)
    exclusive = sum(kind == "exclusive" for kind, _ in holds)
    trials = sum(1 for t in result.trials if t.get("stage") in ("standard", "outlier"))
    assert shared >= trials + 2  # the build, every trial and the profiled forward: each its own hold
    # the warm-up and the timing rounds that follow it within one slice (admission.SlicedHold) share one exclusive
    # hold: on the CPU one round, of one block, reaches max_runs; so do the blocks of one probe the timing ends with
    # (Session.probe_for_block: a kind of outliers that had no probe in the round's blocks), in the slice still
    # held (each in a hold of its own waited for the other evaluations' steps to drain again); each block after
    # them has its own: where every block had a probe, one block without for the wall-clock bound
    # (Session.check_wall_clock)
    from kernelgym.judge.profiles import get_profile

    from conftest import bound_block_calls

    max_runs = get_profile("quick").cpu_timing.max_runs
    probed = result.runtime_spread["runner_block_probed"]
    plain = bound_block_calls(result.runtime_spread, max_runs)
    probe_blocks = len(probed) - 1 - result.runtime_spread["runner_blocks_added"]
    assert 0 <= probe_blocks <= 2 and all(probed[1:1 + probe_blocks])  # the blocks of one probe, each with one
    assert result.runtime_spread["n"] == max_runs + probe_blocks + plain
    assert exclusive == 1 + result.runtime_spread["runner_blocks_added"]
    # every reference forward (trials, the profiled forward, checked timed calls) runs inside a hold
    assert held_at_reference and set(held_at_reference) == {1}, held_at_reference
    depth = 0
    for kind, edge, _, _ in lock.log:  # holds never nest: the GPU is released between steps
        depth += 1 if edge == "in" else -1
        assert depth in (0, 1)


class SlowToGrantLock(RecordingLock):
    """Every exclusive hold is granted ``delay`` seconds after it is asked for, as when a timer waits behind other
    evaluations' steps on a loaded GPU."""

    def __init__(self, delay: float):
        super().__init__()
        self.delay = delay

    @contextlib.contextmanager
    def exclusive(self):
        time.sleep(self.delay)
        with super().exclusive():
            yield


@pytest.mark.timeout(300)
def test_waiting_for_the_gpu_does_not_spend_the_timing_budget(tmp_path, relu_task, monkeypatch):
    """Under load a timer takes as many samples as alone: the budget is spent by timing, not by lock waits. With the
    waits charged to it, the 1 s budget would end after two rounds (each round's wait for the GPU is 0.4 s), short
    of max_runs. (Slices of no length: every round takes a hold of its own, and waits for it.)"""
    from conftest import GOOD
    from kernelgym.judge import admission

    monkeypatch.setattr(admission, "TIMING_HOLD_SLICE_S", 0.0)
    from kernelgym.judge.profiles import get_profile
    from kernelgym.judge.runner import Judge
    from kernelgym.judge.timing import TimingConfig

    cfg = TimingConfig(warmup=1, min_runs=3, max_runs=13, block=5, budget_s=1.0, rel_ci=0.0)  # never converges
    quick = get_profile("quick").with_overrides(cpu_timing=cfg)
    judge = Judge(device="cpu", cache_dir=tmp_path, gpu_lock=SlowToGrantLock(0.4))
    result = judge.evaluate(relu_task, GOOD, profile=quick)
    assert result.status == "ok", result.message
    # 13 timed calls, and at most a block of one probe per kind of outliers after them (Session.probe_for_block),
    # and the wall-clock bound's block of 5 without a probe where every block had one
    from conftest import bound_block_calls

    plain = bound_block_calls(result.runtime_spread, 5)
    assert 13 + plain <= result.runtime_spread["n"] <= 15 + plain and result.runtime_spread["baseline_n"] == 13
    assert result.durations["timing"] >= 4 * 0.4  # the waits did happen (the warm-up and 3 rounds)
    assert 4 * 0.4 <= result.durations["gpu_wait"] <= result.durations["total"]  # and are reported as waits


def bootstrap_workers() -> set[int]:
    """The interpreters of judge workers descended from this process (one per live worker)."""
    import os

    from kernelgym.judge.launch import is_worker_interpreter
    from kernelgym.judge.process import descendants

    return {pid for pid in descendants(os.getpid())[1:] if is_worker_interpreter(pid)}


class WorkerWatchingLock(RecordingLock):
    """Notes, as each shared hold starts and ends, its label and how many judge workers started after the lock was
    made are alive (workers of other judges in this process, such as a fixture's spares, are not counted)."""

    def __init__(self):
        super().__init__()
        self.workers_at_release: list[int] = []
        self.watched: list[tuple[str | None, int, int]] = []  # (label, workers at entry, workers at release)
        self.earlier = bootstrap_workers()

    @contextlib.contextmanager
    def shared(self, label=None):
        with super().shared(label):
            entry = len(bootstrap_workers() - self.earlier)
            try:
                yield
            finally:
                self.workers_at_release.append(len(bootstrap_workers() - self.earlier))
                self.watched.append((label, entry, self.workers_at_release[-1]))


@pytest.mark.timeout(300)
def test_a_worker_is_killed_with_the_gpu_held(tmp_path, relu_task):
    """A CUDA context's teardown slows the whole GPU, so the worker dies inside a shared hold, never during another
    evaluation's timed block: one teardown hold starts with the worker alive and ends with none, and every hold
    after it (the runner's cached memory given back) starts with none."""
    from conftest import GOOD
    from kernelgym.judge.runner import Judge

    lock = WorkerWatchingLock()
    result = Judge(device="cpu", cache_dir=tmp_path, gpu_lock=lock, prestart_workers=False).evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    assert lock.log[-1][:2] == ("shared", "out")  # the evaluation ends in a shared hold
    died = [i for i, (_, entry, release) in enumerate(lock.watched) if entry >= 1 and release == 0]
    assert len(died) == 1 and lock.watched[died[0]][0] == "teardown", lock.watched
    assert all(entry == 0 for _, entry, _ in lock.watched[died[0] + 1:]), lock.watched


def test_a_reservation_of_the_whole_budget_is_not_starved_by_smaller_ones():
    from kernelgym.judge.admission import MemoryBudget

    budget, order = MemoryBudget(10), []
    first = budget.reserve(4)
    first.__enter__()  # an evaluation holding part of the memory

    def whole():
        with budget.reserve(10):
            order.append("whole")

    def small():
        with budget.reserve(2):  # would fit beside the first: admitted at once without the rule
            order.append("small")

    waiting = threading.Thread(target=whole)
    waiting.start()
    time.sleep(0.1)
    late = threading.Thread(target=small)
    late.start()
    time.sleep(0.1)
    assert order == []  # the smaller one waits behind the whole-budget reservation
    first.__exit__(None, None, None)
    for t in (waiting, late):
        t.join(timeout=10)
    assert order == ["whole", "small"]


def test_a_large_reservation_is_not_starved_by_a_stream_of_small_ones():
    """Past the bypass bound no later reservation passes the earliest waiting one: it waits at most the bound plus
    the holds running then (on the H200 a 99 GiB reservation waited 275-321 s behind small ones without this)."""
    from kernelgym.judge.admission import MemoryBudget

    budget, stop, admitted = MemoryBudget(10, bypass_bound_s=0.5), threading.Event(), {}

    def small_stream():  # three of these overlap: some small evaluation always holds memory
        while not stop.is_set():
            with budget.reserve(2):
                time.sleep(0.1)

    streams = [threading.Thread(target=small_stream) for _ in range(3)]
    for t in streams:
        t.start()
    time.sleep(0.2)
    started = time.monotonic()

    def large():
        with budget.reserve(9):
            admitted["after_s"] = time.monotonic() - started

    waiting = threading.Thread(target=large)
    waiting.start()
    waiting.join(timeout=10)
    stop.set()
    for t in streams:
        t.join(timeout=10)
    assert "after_s" in admitted, "the large reservation was starved"
    assert admitted["after_s"] < 0.5 + 0.1 + 1.0  # the bound, one small hold, scheduling slack


def test_past_the_bound_a_reservation_passes_only_where_it_cannot_delay_the_earliest_waiting_one():
    """Backfilling: past the bound, a later reservation that fits passes a waiting large one only where, with the
    reservations admitted since the large one began to wait, it leaves the large one room once the holders from
    before it are gone. The large one then enters the moment those end, beside what passed it."""
    from kernelgym.judge.admission import MemoryBudget

    budget, order = MemoryBudget(10, bypass_bound_s=0.05), []
    holder = budget.reserve(6)  # before the large one: it must wait for this one whatever passes it
    holder.__enter__()

    def reserve(name, nbytes, hold: threading.Event | None = None):
        with budget.reserve(nbytes):
            order.append(name)
            if hold is not None:
                hold.wait(timeout=10)

    large = threading.Thread(target=reserve, args=("large", 8))
    large.start()
    time.sleep(0.2)  # past the bound
    keep = threading.Event()
    fits_beside = threading.Thread(target=reserve, args=("2 beside", 2, keep))  # 2 + 8 <= 10: cannot delay it
    fits_beside.start()
    time.sleep(0.2)
    assert order == ["2 beside"]
    would_delay = threading.Thread(target=reserve, args=("1 more", 1))  # fits now (6 + 2 + 1), but 2 + 1 + 8 > 10
    would_delay.start()
    time.sleep(0.2)
    assert order == ["2 beside"]
    holder.__exit__(None, None, None)
    large.join(timeout=5)
    assert order[:2] == ["2 beside", "large"]  # the large one entered beside the one that passed it
    keep.set()
    fits_beside.join(timeout=5)
    would_delay.join(timeout=5)
    assert order == ["2 beside", "large", "1 more"] and budget.holders == 0 and budget.reserved == 0


def test_small_reservations_pass_a_waiting_large_one_within_the_bound():
    """Below the bound, memory a large reservation cannot use yet goes to smaller ones that fit."""
    from kernelgym.judge.admission import MemoryBudget

    budget, order = MemoryBudget(10, bypass_bound_s=30.0), []
    holder = budget.reserve(4)
    holder.__enter__()

    def reserve(name, nbytes):
        with budget.reserve(nbytes):
            order.append(name)

    large = threading.Thread(target=reserve, args=("large", 8))
    large.start()
    time.sleep(0.1)
    small = threading.Thread(target=reserve, args=("small", 2))
    small.start()
    small.join(timeout=5)
    assert order == ["small"]  # it fitted beside the holder, ahead of the large one still waiting
    holder.__exit__(None, None, None)
    large.join(timeout=5)
    assert order == ["small", "large"]


def test_a_reservation_tried_for_a_while_is_made_or_given_up_without_a_trace():
    """``try_reserve`` waits in the same queue as ``reserve``, at most its timeout: admitted once the memory is free
    within it, else given up with nothing reserved and nobody left waiting behind it."""
    from kernelgym.judge.admission import MemoryBudget

    budget = MemoryBudget(10)
    with budget.try_reserve(6, 0.0) as first:
        assert first and budget.reserved == 6
        started = time.monotonic()
        with budget.try_reserve(6, 0.3) as second:
            assert not second and time.monotonic() - started >= 0.3
            assert budget.reserved == 6 and budget.holders == 1
        with budget.try_reserve(4, 0.0) as beside:  # the one given up holds no place in the queue
            assert beside and budget.reserved == 10
    assert budget.reserved == 0 and budget.holders == 0

    holder = budget.reserve(8)
    holder.__enter__()
    threading.Timer(0.2, holder.__exit__, (None, None, None)).start()
    with budget.try_reserve(6, 10.0) as later:  # admitted when the holder left, well within the timeout
        assert later and budget.reserved == 6
    assert budget.reserved == 0


def test_a_reservation_asked_ahead_does_not_wait_behind_the_queue_but_still_for_the_memory():
    """``try_reserve(..., ahead=True)`` (a witness's memory, beside an evaluation that holds its own): admitted as soon
    as the memory is there, whoever waits before it; never beyond the capacity."""
    from kernelgym.judge.admission import MemoryBudget

    budget = MemoryBudget(10, bypass_bound_s=0.0)
    holder = budget.reserve(4)
    holder.__enter__()
    waiting = budget.reserve(8)
    entered = []
    large = threading.Thread(target=lambda: entered.append(waiting.__enter__()))
    large.start()
    deadline = time.monotonic() + 5
    while not budget._waiting and time.monotonic() < deadline:
        time.sleep(0.01)
    assert budget._waiting and not entered  # 4 + 8 > 10: the large one waits
    with budget.try_reserve(3, 0.1) as behind:
        assert behind is None  # in the queue, behind the large one
    with budget.try_reserve(3, 0.1, ahead=True) as ahead:
        assert ahead is not None and budget.reserved == 7
        with budget.try_reserve(4, 0.1, ahead=True) as beyond:
            assert beyond is None and budget.reserved == 7  # 7 + 4 > 10: ahead, but never beyond the capacity
    holder.__exit__(None, None, None)
    large.join(timeout=5)
    assert entered and budget.reserved == 8
    waiting.__exit__(None, None, None)
    assert budget.reserved == 0 and not budget._ahead


def recorded_reservations(budget) -> list[int]:
    """The whole bytes of every reservation ``budget`` is asked for from now on, in order (a list that grows)."""
    reserved: list[int] = []
    reserve = budget.reserve
    budget.reserve = lambda nbytes, first=None: (reserved.append(nbytes), reserve(nbytes, first=first))[1]
    return reserved


def cpu_judge_with_budget(tmp_path, budget):
    """A CPU judge whose evaluations reserve memory from ``budget`` as on a GPU (a real MemoryBudget)."""
    from kernelgym.judge.admission import GpuAdmission
    from kernelgym.judge.runner import Judge

    judge = Judge(device="cpu", cache_dir=tmp_path, prestart_workers=False)
    judge.admission = GpuAdmission(SharedExclusiveLock(), budget)
    return judge


@pytest.mark.timeout(300)
def test_the_memory_reservation_ends_only_after_the_worker_is_dead(tmp_path, relu_task):
    from conftest import GOOD
    from kernelgym.judge.admission import MemoryBudget

    earlier = bootstrap_workers()

    class WatchedBudget(MemoryBudget):
        released_with: list[int] = []

        @contextlib.contextmanager
        def reserve(self, nbytes, first=None):
            with super().reserve(nbytes, first=first) as reservation:
                try:
                    yield reservation
                finally:
                    self.released_with.append(len(bootstrap_workers() - earlier))

    budget = WatchedBudget(1 << 30)
    result = cpu_judge_with_budget(tmp_path, budget).evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    assert budget.released_with == [0] and budget.holders == 0


@pytest.mark.timeout(300)
def test_the_timing_is_recorded_and_the_reference_confirmed_within_the_memory_reservation(tmp_path, relu_task,
                                                                                         monkeypatch):
    """The eager reference's confirming block runs at full size in the runner after the worker is dead; it holds
    the evaluation's memory reservation still, and the worker is gone by then."""
    from conftest import GOOD
    from kernelgym.judge.admission import MemoryBudget
    from kernelgym.judge.runner import Judge

    budget, seen = MemoryBudget(1 << 30), []
    record = Judge._record_timing

    def watched(self, res, task, prof, session):
        seen.append((budget.holders, session.worker.killed))
        return record(self, res, task, prof, session)

    monkeypatch.setattr(Judge, "_record_timing", watched)
    result = cpu_judge_with_budget(tmp_path, budget).evaluate(relu_task, GOOD)
    assert result.status == "ok" and result.runtime_ms, result.message
    assert seen == [(1, True)] and budget.holders == 0


@pytest.mark.timeout(300)
def test_waiting_for_gpu_memory_is_reported_as_gpu_wait(tmp_path, relu_task):
    from conftest import GOOD
    from kernelgym.judge.admission import MemoryBudget

    class SlowBudget(MemoryBudget):  # another evaluation holds the memory for 1.5 s
        @contextlib.contextmanager
        def reserve(self, nbytes, first=None):
            time.sleep(1.5)
            with super().reserve(nbytes, first=first) as reservation:
                yield reservation

    result = cpu_judge_with_budget(tmp_path, SlowBudget(1 << 30)).evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    assert result.durations["gpu_wait"] >= result.durations["memory_wait"] >= 1.5  # memory's part of the wait


@pytest.mark.timeout(300)
def test_running_out_of_gpu_memory_is_retried_once_with_the_memory_alone(tmp_path, relu_task):
    """Out of memory with the GPU shared is the judge's doing: the evaluation runs again with the whole budget; an
    out-of-memory error then is the candidate's verdict. Any other error is not retried."""
    from kernelgym.judge.admission import MemoryBudget
    from kernelgym.testing.candidates import indent, kernel_forward

    budget = MemoryBudget(1 << 30)
    reserved = recorded_reservations(budget)
    judge = cpu_judge_with_budget(tmp_path, budget)
    oom = kernel_forward(indent('raise RuntimeError("CUDA out of memory. Tried to allocate 4.58 GiB")'))
    result = judge.evaluate(relu_task, oom)
    assert result.status == "runtime_error" and "CUDA out of memory" in result.message, result.message
    assert [f for f in result.flags if f["name"] == "retried_alone"], result.flags
    assert judge.launcher.stats["started"] == 2 and reserved == [0, 1 << 30]  # the second with the whole budget

    other = judge.evaluate(relu_task, kernel_forward(indent('raise RuntimeError("an ordinary failure")')))
    assert other.status == "runtime_error" and not [f for f in other.flags if f["name"] == "retried_alone"]
    assert judge.launcher.stats["started"] == 3


def test_a_timer_holds_the_gpu_in_slices_not_once_per_round():
    """Consecutive timing rounds run inside one exclusive hold until it has lasted a slice; then the next round takes
    a new one (sharers get in between), and a round that raises releases the GPU at once."""
    from kernelgym.judge.admission import SlicedHold

    lock = RecordingLock()
    now = [0.0]
    hold = SlicedHold(lock.exclusive, slice_s=1.0, clock=lambda: now[0])
    for _ in range(3):  # 0.4 s each: the third reaches the slice, the hold ends after it
        with hold.round():
            now[0] += 0.4
    assert hold.holds == 1 and [edge for _, edge, _, _ in lock.log] == ["in", "out"]
    with lock.shared():  # a sharer between slices
        pass
    with hold.round():
        now[0] += 0.1
    assert hold.holds == 2 and hold._held is not None  # the new slice is still open
    with pytest.raises(RuntimeError):
        with hold.round():
            raise RuntimeError("the worker died")
    assert hold._held is None
    hold.close()  # nothing held: nothing to do
    kinds = [(kind, edge) for kind, edge, _, _ in lock.log]
    assert kinds == [("exclusive", "in"), ("exclusive", "out"), ("shared", "in"), ("shared", "out"),
                     ("exclusive", "in"), ("exclusive", "out")]


@pytest.mark.timeout(300)
def test_an_evaluations_shared_holds_name_their_steps(tmp_path, relu_task):
    """What a timer drains for is measurable: every shared hold of an evaluation carries its step's name."""
    from conftest import GOOD
    from kernelgym.judge.runner import Judge

    lock = SharedExclusiveLock(keep_holds=200)
    result = Judge(device="cpu", cache_dir=tmp_path, gpu_lock=lock).evaluate(relu_task, GOOD, profile="quick")
    assert result.status == "ok", result.message
    kinds = {kind for kind, _, _ in lock.holds}
    assert {"shared:build", "shared:trial", "shared:profile", "shared:recheck", "shared:reference_warmup",
            "shared:teardown", "exclusive"} <= kinds
    assert "shared" not in kinds  # no step unnamed


@pytest.mark.timeout(300)
def test_a_trials_time_is_split_into_its_steps(tmp_path, relu_task):
    """Where a trial's time goes is reported: waiting for the candidate, taking its outputs over, comparing, and
    the reference's outputs; together no more than the trials themselves."""
    from conftest import GOOD
    from kernelgym.judge.runner import Judge

    result = Judge(device="cpu", cache_dir=tmp_path).evaluate(relu_task, GOOD, profile="quick")
    assert result.status == "ok", result.message
    d = result.durations
    parts = [d[k] for k in ("candidate", "handover", "compare")]
    assert all(v > 0 for v in parts)
    assert sum(parts) <= d["correctness"] + d["timing"] + d["recheck"]


def test_the_timing_slice_can_be_set_for_a_measurement():
    """``KERNELGYM_TIMING_HOLD_SLICE_S`` sets the slice in a fresh process (the benchmark's A/B of slicing: Ray's
    actors inherit the driver's environment); without it the slice is 1 s."""
    import os
    import subprocess
    import sys

    code = "from kernelgym.judge import admission; print(admission.TIMING_HOLD_SLICE_S)"
    env = {k: v for k, v in os.environ.items() if k != "KERNELGYM_TIMING_HOLD_SLICE_S"}
    assert subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip() == "1.0"
    env["KERNELGYM_TIMING_HOLD_SLICE_S"] = "0"
    assert subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=True).stdout.strip() == "0.0"


#: a candidate whose first forward compiles three times, 0.4 s each (Triton's own compile entry point, on a source
#: whose options take that long to read and then fail), as a Triton kernel's first launch does on a GPU
SLOW_COMPILES = '''
import time
import triton.compiler
from triton.backends.compiler import GPUTarget

class SlowSource(triton.compiler.ASTSource):
    def __init__(self):
        pass

    def parse_options(self):
        time.sleep(0.4)
        raise RuntimeError("nothing to compile")

COMPILED = []

def compile_slowly(n):
    if COMPILED:
        return
    COMPILED.append(n)
    for _ in range(n):
        try:
            triton.compiler.compile(SlowSource(), target=GPUTarget("cuda", 90, 32))
        except RuntimeError:
            pass
'''


def judged_with_slow_compiles(tmp_path, relu_task):
    """The verdict on a candidate whose first forward compiles three times (:data:`SLOW_COMPILES`), asserted ``ok``,
    and the (start, end) of every ``build`` hold the lock kept. The static checks are off: the candidate catches the
    compilations' errors."""
    from kernelgym.judge.runner import Judge
    from kernelgym.testing.candidates import candidate

    lock = SharedExclusiveLock(keep_holds=400)
    text = candidate(imports=SLOW_COMPILES, pre="compile_slowly(3)")
    result = Judge(device="cpu", cache_dir=tmp_path, gpu_lock=lock, static_checks=False).evaluate(
        relu_task, text, profile="quick")
    assert result.status == "ok", result.message
    return result, [(start, end) for kind, start, end in lock.holds if kind == "shared:build"]


@pytest.mark.timeout(300)
def test_the_gpu_is_given_back_while_a_build_compiles(tmp_path, relu_task):
    """A build that compiles holds the GPU only around its compilations (``kernelgym.judge.compile_pause``): each
    compilation of the first forward ends the build's shared hold and a new one is taken after it, so a timer waits
    for the GPU work of a build, not for its compiler. The compilation's time is the candidate's (its stage's
    clock), reported as ``compile_paused``; the verdict is unchanged."""
    result, builds = judged_with_slow_compiles(tmp_path, relu_task)
    assert len(builds) == 4  # before the first compilation, and after each of the three
    gaps = [later[0] - earlier[1] for earlier, later in zip(builds, builds[1:])]
    # no hold while a compilation ran (0.4 s each; the runner hears of it a moment after it started)
    assert all(gap >= 0.3 for gap in gaps), gaps
    assert result.durations["compile_paused"] >= 0.9  # 3 x 0.4 s, each heard of a moment after it started
    assert result.durations["compile_paused"] <= result.durations["compile"]


@pytest.mark.timeout(300)
def test_a_build_gets_a_bounded_number_of_compile_pauses(tmp_path, relu_task, monkeypatch):
    """Past ``MAX_COMPILE_PAUSES`` the build keeps its hold through its compilations (an evaluation cannot linger
    by announcing compilations, each of which waits for the GPU again); the verdict is unchanged."""
    from kernelgym.judge import session

    monkeypatch.setattr(session, "MAX_COMPILE_PAUSES", 1)
    result, builds = judged_with_slow_compiles(tmp_path, relu_task)
    assert len(builds) == 2
    assert builds[1][1] - builds[1][0] >= 0.75  # the last two compilations (0.4 s each) ran inside the second hold
    assert 0.3 <= result.durations["compile_paused"] < 0.8  # one pause of 0.4 s, heard of a moment after it began


@pytest.mark.timeout(300)
@pytest.mark.parametrize("calls_before", [0, 1])
def test_a_forged_compile_notice_ends_the_evaluation_crashed(tmp_path, relu_task, calls_before):
    """A ``compiling`` frame the candidate writes itself on the worker's result channel: during ``go`` (its first
    forward) the runner gives the hold back and waits for ``compiled``, which never comes before ``loaded``; in a
    trial no pause is expected at all. Either way the protocol is broken and the verdict is ``crashed``, never a
    score."""
    from kernelgym.judge.runner import Judge
    from kernelgym.testing.candidates import candidate

    imports = f'''
import sys
from kernelgym.judge.protocol import write_frame

CALLS = []

def forge():
    CALLS.append(1)
    if len(CALLS) == {calls_before + 1}:
        write_frame(int(sys.argv[1]), {{"event": "compiling"}})
'''
    text = candidate(imports=imports, pre="forge()")
    result = Judge(device="cpu", cache_dir=tmp_path, static_checks=False).evaluate(relu_task, text, profile="quick")
    assert result.status == "crashed", (result.status, result.message)
    assert "'compiling'" in result.message or "'compiled'" in result.message, result.message


@pytest.mark.timeout(300)
@pytest.mark.parametrize("runner_gib, need_gib, status, flag", [(30, 0, "crashed", "judge_error"),
                                                                (2, 0, "runtime_error", "out_of_memory_alone"),
                                                                (30, 20, "runtime_error", "out_of_memory_alone")])
def test_running_out_of_memory_alone_is_the_judges_fault_only_where_others_held_the_memory(
        tmp_path, relu_task, monkeypatch, runner_gib, need_gib, status, flag):
    """With the whole budget to itself, a worker that runs out of GPU memory gets its verdict unless the driver's
    account shows processes outside its tree (here the runner) holding more than the budget leaves outside its
    reservations (20% of the GPU) for other work than this evaluation: the runner's memory up to the evaluation's
    own need is the evaluation's (a candidate can make the runner compute a float64 result, then run out itself)."""
    from kernelgym.judge import gpu_memory
    from kernelgym.judge.admission import MemoryBudget
    from kernelgym.testing.candidates import indent, kernel_forward

    gib, taken = 1 << 30, []

    def account(device, worker_pid, runner_pid):  # the real split, over the real worker tree, of made-up figures
        taken.append(worker_pid)
        return gpu_memory.real_account(device, worker_pid, runner_pid, held={worker_pid: 14 * gib,
                                                                              runner_pid: runner_gib * gib},
                                       free_total=(gib, 80 * gib))

    monkeypatch.setattr(gpu_memory, "real_account", gpu_memory.account, raising=False)
    monkeypatch.setattr(gpu_memory, "account", account)
    judge = cpu_judge_with_budget(tmp_path, MemoryBudget(1 << 30))
    monkeypatch.setattr(judge, "memory_need", lambda task: need_gib * gib)
    result = judge.evaluate(relu_task, kernel_forward(indent('raise RuntimeError("CUDA out of memory. Tried to '
                                                             'allocate 4.58 GiB")')))
    assert result.status == status, result.message
    names = [f["name"] for f in result.flags]
    assert "retried_alone" in names and flag in names, result.flags
    assert result.judge_fault == (flag == "judge_error") and result.to_dict()["judge_fault"] == result.judge_fault
    reason = next(f["reason"] for f in result.flags if f["name"] == flag)
    assert f"the runner {runner_gib:.2f} GiB" in reason and "the candidate's processes 14.00 GiB" in reason
    assert len(taken) == 2 and taken[0] != taken[1]  # each attempt's own worker, accounted while it lived


def test_memory_held_outside_the_reservations_leaves_them_less_room():
    """Holds outside every reservation (live workers' CUDA contexts) count against the budget until released; one
    reservation alone still always enters."""
    from kernelgym.judge.admission import MemoryBudget

    budget = MemoryBudget(10)
    context = budget.hold_outside(4)
    with budget.try_reserve(5, 0.05) as alone:  # nothing reserved: admitted whatever is held outside
        assert alone and budget.reserved == 5
        with budget.try_reserve(2, 0.2) as beside:  # 5 + 4 + 2 > 10
            assert not beside
        threading.Timer(0.2, context.release).start()
        with budget.try_reserve(2, 10.0) as later:  # woken by the release: 5 + 0 + 2 <= 10
            assert later and budget.outside == 0
    context.release()  # a second release changes nothing
    assert budget.outside == 0 and budget.reserved == 0


@pytest.mark.timeout(300)
def test_a_workers_cuda_context_is_counted_outside_until_its_evaluation_reserves_memory(tmp_path, relu_task):
    """Every live worker the judge's launcher started (spares too) is counted in the GPU's budget outside the
    reservations; its evaluation's reservation takes it in, and its death ends the count."""
    from conftest import GOOD
    from kernelgym.judge.admission import MemoryBudget
    from kernelgym.judge.launch import WORKER_CONTEXT_BYTES

    class WatchedBudget(MemoryBudget):
        outside_at_reserve: list[int] = []

        @contextlib.contextmanager
        def reserve(self, nbytes, first=None):
            self.outside_at_reserve.append(self.outside)
            with super().reserve(nbytes, first=first) as reservation:
                yield reservation

    budget = WatchedBudget(1 << 40)
    judge = cpu_judge_with_budget(tmp_path, budget)
    judge.launcher.gpu_budget = budget  # as a GPU judge's launcher is made
    try:
        assert judge.evaluate(relu_task, GOOD).status == "ok"
        assert budget.outside_at_reserve == [WORKER_CONTEXT_BYTES] and budget.outside == 0
        spare = judge.launcher.start()
        assert budget.outside == WORKER_CONTEXT_BYTES  # a worker that has not reached its reservation
        spare.discard()
        assert budget.outside == 0
    finally:
        judge.close()


@pytest.mark.timeout(300)
@pytest.mark.parametrize("fails", [1, 2])
def test_the_judges_own_out_of_memory_error_is_retried_alone_then_is_the_judges_fault(tmp_path, relu_task,
                                                                                     monkeypatch, fails):
    """An out-of-memory error of the runner's own work (here its reference outputs) with the GPU shared runs the
    evaluation again with the whole budget; raised again alone, the evaluation is ``crashed``, the judge's fault,
    with a flag that says where it was raised."""
    import torch

    from conftest import GOOD
    from kernelgym.judge.admission import MemoryBudget

    budget = MemoryBudget(1 << 30)
    reserved = recorded_reservations(budget)
    judge = cpu_judge_with_budget(tmp_path, budget)
    outputs, raised = judge.reference.outputs, []

    def out_of_memory_at_first(*args, **kwargs):
        if len(raised) < fails:
            raised.append(1)
            raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 4.58 GiB.")
        return outputs(*args, **kwargs)

    monkeypatch.setattr(judge.reference, "outputs", out_of_memory_at_first)
    result = judge.evaluate(relu_task, GOOD)
    names = [f["name"] for f in result.flags]
    assert "retried_alone" in names and reserved == [0, 1 << 30], result.flags
    assert next(f["reason"] for f in result.flags if f["name"] == "retried_alone").count("out_of_memory_at_first")
    if fails == 1:
        assert result.status == "ok" and "judge_error" not in names, result.message
    else:
        assert result.status == "crashed" and result.judge_fault, result.message
        reason = next(f["reason"] for f in result.flags if f["name"] == "judge_error")
        assert "raised at test_scheduler.py" in reason and "in out_of_memory_at_first" in reason
    assert budget.holders == 0 and budget.reserved == 0


def test_a_staged_reservation_holds_its_first_part_until_it_grows():
    from kernelgym.judge.admission import MemoryBudget

    budget = MemoryBudget(10)
    with budget.reserve(6, first=2) as reservation:
        assert (budget.reserved, reservation.held, reservation.growth) == (2, 2, 4)
        assert reservation.grow() < 0.5 and budget.reserved == 6 and reservation.growth == 0
        assert reservation.grow() == 0.0 and budget.reserved == 6  # grown once only
    assert budget.reserved == 0 and budget.holders == 0
    with budget.reserve(4) as plain:  # unstaged: whole at once, nothing to grow
        assert budget.reserved == 4 and plain.growth == 0
    assert budget.reserved == 0


def test_a_staged_reservation_enters_only_where_every_holder_could_still_grow():
    """The banker's rule: a first part that fits is still refused where, beside it, no order lets every holder
    grow; refused, it waits, and enters once a holder has grown and ended."""
    from kernelgym.judge.admission import MemoryBudget

    budget, order = MemoryBudget(10), []
    a = budget.reserve(8, first=3)
    held_a = a.__enter__()
    with budget.try_reserve(4, 0.1, first=2) as safe:  # A grows into 10-3-2=5, ends; then B grows: safe
        assert safe is not None and budget.reserved == 5
    with budget.try_reserve(8, 0.2, first=3) as unsafe:  # 3+3 held, 4 free: neither could grow by 5
        assert unsafe is None and budget.reserved == 3

    def late():
        with budget.reserve(8, first=3) as c:
            order.append("entered")
            c.grow()
            order.append("grown")

    waiting = threading.Thread(target=late)
    waiting.start()
    time.sleep(0.2)
    assert order == []
    assert held_a.grow() < 0.5 and budget.reserved == 8  # A grows at once: nothing else holds memory
    time.sleep(0.1)
    assert order == []  # 8 held: C's first part does not fit
    a.__exit__(None, None, None)
    waiting.join(timeout=5)
    assert order == ["entered", "grown"] and budget.reserved == 0 and budget.holders == 0


def test_a_grow_waits_for_memory_and_then_enters_before_later_reservations_past_the_bound():
    from kernelgym.judge.admission import MemoryBudget

    budget, order = MemoryBudget(10, bypass_bound_s=0.1), []
    holder = budget.reserve(5)
    holder.__enter__()
    staged = budget.reserve(6, first=2)
    reservation = staged.__enter__()  # 5 + 2 held; it grows once the holder of 5 ends
    grower = threading.Thread(target=lambda: order.append(("grown", round(reservation.grow(), 1))))
    grower.start()
    time.sleep(0.3)  # the grow has waited past the bound
    with budget.try_reserve(2, 0.2) as small:  # fits beside (5+2+2 <= 10) but takes the overdue grow's room
        assert small is None
    assert order == []
    holder.__exit__(None, None, None)
    grower.join(timeout=5)
    assert order and order[0][0] == "grown" and order[0][1] >= 0.3 and budget.reserved == 6
    staged.__exit__(None, None, None)
    assert budget.reserved == 0 and budget.holders == 0


def test_where_every_holder_waits_to_grow_the_smallest_grows():
    """Memory held outside the reservations can grow after they entered (a spare worker's CUDA context): where
    then no holder's grow fits and none will give memory back, the smallest grow goes ahead instead of none."""
    from kernelgym.judge.admission import MemoryBudget

    budget, grown = MemoryBudget(10), []
    first = budget.reserve(5, first=2)
    second = budget.reserve(6, first=2)
    a, b = first.__enter__(), second.__enter__()  # 4 held: A grows by 3, then B by 4 (safe)
    context = budget.hold_outside(5)  # 4 + 5 held: neither grow fits now
    threads = [threading.Thread(target=lambda r=r, n=n: (r.grow(), grown.append(n))) for r, n in ((b, "B"), (a, "A"))]
    for t in threads:
        t.start()
        time.sleep(0.1)
    threads[1].join(timeout=5)
    assert grown == ["A"]  # the smaller grow, although it asked last
    first.__exit__(None, None, None)
    context.release()
    threads[0].join(timeout=5)
    assert grown == ["A", "B"] and budget.reserved == 6
    second.__exit__(None, None, None)
    assert budget.reserved == 0 and budget.holders == 0


@pytest.mark.timeout(300)
def test_an_evaluation_holds_its_build_need_until_built_and_its_whole_need_after(tmp_path, relu_task, monkeypatch):
    """The worker compiles inside the build, with no GPU work: the evaluation holds :meth:`Judge.build_memory_need`
    until the candidate has loaded and the whole :meth:`Judge.memory_need` from before its first trial on."""
    from conftest import GOOD
    from kernelgym.judge.admission import MemoryBudget
    from kernelgym.judge.runner import Judge
    from kernelgym.judge.session import Session

    budget, seen = MemoryBudget(100), []
    monkeypatch.setattr(Judge, "memory_need", lambda self, task: 30)
    monkeypatch.setattr(Judge, "build_memory_need", lambda self, task: 12)
    for name in ("build", "trial"):
        original = getattr(Session, name)

        def watched(self, *args, _original=original, _name=name, **kwargs):
            seen.append((_name, budget.reserved))
            return _original(self, *args, **kwargs)

        monkeypatch.setattr(Session, name, watched)
    result = cpu_judge_with_budget(tmp_path, budget).evaluate(relu_task, GOOD)
    assert result.status == "ok", result.message
    assert seen[0] == ("build", 12) and {held for name, held in seen if name == "trial"} == {30}
    assert budget.reserved == 0 and budget.holders == 0


@pytest.mark.timeout(300)
def test_the_float64_reference_first_runs_inside_a_reservation_where_the_budget_has_room(tmp_path, relu_task,
                                                                                        monkeypatch):
    """A comparison that needs the float64 reference (a wrong candidate fails the plain check) reserves its memory
    beside the evaluation's own before the float64 model first runs, where the budget has room for it then."""
    from conftest import candidate
    from kernelgym.judge.admission import MemoryBudget
    from kernelgym.judge.reference import ReferenceSide
    from kernelgym.judge.runner import Judge

    budget, seen = MemoryBudget(100), []
    monkeypatch.setattr(Judge, "memory_need", lambda self, task: 30)
    monkeypatch.setattr(Judge, "build_memory_need", lambda self, task: 30)
    monkeypatch.setattr(Judge, "exact_memory_need", lambda self, task: 20)
    exact_outputs = ReferenceSide.exact_outputs

    def watched(self, *args, **kwargs):
        seen.append(budget.reserved)
        return exact_outputs(self, *args, **kwargs)

    monkeypatch.setattr(ReferenceSide, "exact_outputs", watched)
    result = cpu_judge_with_budget(tmp_path, budget).evaluate(relu_task, candidate(expr="tl.maximum(x, 0.0) * 2.1"))
    assert result.status == "incorrect", result.message
    assert seen and set(seen) == {50}  # the evaluation's 30 and the float64 reference's 20
    assert budget.reserved == 0 and budget.holders == 0
