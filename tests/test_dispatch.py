"""Which queued evaluation a free judge thread starts next (kernelgym.evaluators.dispatch)."""

from __future__ import annotations

import threading

import pytest

from conftest import run_threads
from kernelgym.evaluators.dispatch import MemoryAwareQueue

GIB = 1 << 30


class Clock:
    """A clock the test moves."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def needs(table: dict):
    asked = []

    def need_of(item):
        asked.append(item)
        return table[item]

    return need_of, asked


def take_all(queue: MemoryAwareQueue, need_of, n: int) -> list:
    return [queue.take(need_of)[0] for _ in range(n)]


def test_without_a_budget_items_come_in_arrival_order_and_needs_are_not_asked():
    queue = MemoryAwareQueue(None)
    for item in "abc":
        queue.put(item)
    need_of, asked = needs({})
    assert take_all(queue, need_of, 3) == ["a", "b", "c"] and asked == []
    assert queue.take(need_of) is None and queue.running_need == 0


def test_a_later_item_that_fits_passes_one_that_does_not():
    queue = MemoryAwareQueue(100 * GIB, clock=Clock())
    need_of, _ = needs({"big1": 40 * GIB, "big2": 40 * GIB, "big3": 40 * GIB, "small": 10 * GIB})
    for item in ("big1", "big2", "big3", "small"):
        queue.put(item)
    assert take_all(queue, need_of, 3) == ["big1", "big2", "small"]  # big3 does not fit beside 80 GiB
    assert queue.running_need == 90 * GIB
    queue.done(40 * GIB)  # big1 ended: big3 fits now
    assert queue.take(need_of) == ("big3", 40 * GIB)


def test_memory_held_outside_the_reservations_leaves_less_room():
    """Spare workers' contexts and a batch plan's kept outputs are counted by the budget outside its reservations:
    an item that fits beside the running needs but not beside those too is passed by one that fits."""
    held = [0]
    table = {"running": 1 * GIB, "large": 6 * GIB, "small": 2 * GIB}
    need_of, _ = needs(table)
    for outside, expected in ((0, "large"), (4 * GIB, "small")):
        held[0] = outside
        queue = MemoryAwareQueue(10 * GIB, clock=Clock(), outside=lambda: held[0])
        for item in table:
            queue.put(item)
        assert queue.take(need_of)[0] == "running"
        assert queue.take(need_of)[0] == expected, outside


def test_the_first_in_line_is_passed_for_at_most_the_bound():
    clock = Clock()
    queue = MemoryAwareQueue(100 * GIB, pass_bound_s=10.0, clock=clock)
    need_of, _ = needs({"big": 80 * GIB, "huge": 60 * GIB, "s1": GIB, "s2": GIB, "s3": GIB})
    for item in ("big", "huge", "s1", "s2", "s3"):
        queue.put(item)
    assert queue.take(need_of)[0] == "big"
    clock.now = 1.0  # huge became first in line at 0.0 (when big was taken)
    assert queue.take(need_of)[0] == "s1"
    clock.now = 9.9
    assert queue.take(need_of)[0] == "s2"
    clock.now = 10.0  # first in line for the whole bound: taken although it does not fit (the budget holds it)
    assert queue.take(need_of)[0] == "huge"
    assert queue.take(need_of)[0] == "s3"


def test_the_first_in_line_starts_when_nothing_runs_or_nothing_fits():
    queue = MemoryAwareQueue(100 * GIB, clock=Clock())
    need_of, _ = needs({"a": 300 * GIB, "b": 90 * GIB, "c": 95 * GIB})
    for item in "abc":
        queue.put(item)
    assert queue.take(need_of) == ("a", 100 * GIB)  # nothing runs: first in line; a need counts at most the capacity
    assert queue.take(need_of)[0] == "b"  # nothing fits beside a: first in line
    queue.done(100 * GIB)
    queue.done(90 * GIB)
    assert queue.take(need_of)[0] == "c" and queue.running_need == 95 * GIB


def test_each_need_is_asked_once_and_drain_empties_the_queue():
    queue = MemoryAwareQueue(100 * GIB, clock=Clock())
    need_of, asked = needs({"a": 70 * GIB, "b": 70 * GIB, "c": 70 * GIB})
    for item in "abc":
        queue.put(item)
    queue.take(need_of)
    queue.take(need_of)  # b and c do not fit: b, first in line, is taken
    assert sorted(asked) == ["a", "b", "c"] and len(asked) == 3
    assert queue.drain() == ["c"] and len(queue) == 0 and queue.take(need_of) is None


def test_takers_on_many_threads_take_every_item_once():
    queue = MemoryAwareQueue(100 * GIB)
    items = list(range(400))
    for item in items:
        queue.put(item)
    taken, lock = [], threading.Lock()

    def worker():
        while (got := queue.take(lambda item: (item % 7) * GIB)) is not None:
            with lock:
                taken.append(got[0])
            queue.done(got[1])

    run_threads([worker] * 8)
    assert sorted(taken) == items and queue.running_need == 0


@pytest.mark.parametrize("abort", [False, True])
def test_closing_cancels_the_queued_evaluations(relu_task, tmp_path, abort):
    from conftest import GOOD
    from kernelgym.evaluators import LocalEvaluator
    from test_torch_policy import SHORT

    local = LocalEvaluator(device="cpu", cache_dir=tmp_path, max_workers=1)
    futures = [local.submit(relu_task, GOOD, profile=SHORT) for _ in range(4)]
    while not (futures[0].running() or futures[0].done()):  # the first has started (one thread: the others wait)
        threading.Event().wait(0.01)
    local.close(abort=abort)
    assert all(f.done() for f in futures)
    assert all(f.cancelled() for f in futures[1:])  # queued, not started: cancelled
    first = futures[0].result()
    assert first.status == ("crashed" if abort else "ok"), first.message  # started: ended at once, or finished


def test_a_gate_lets_in_at_most_its_slots_and_hands_each_slot_to_one_holder():
    from kernelgym.evaluators.dispatch import SlotGate

    gate = SlotGate(3, None)
    inside, most, lock = set(), [0], threading.Lock()
    errors = []

    def caller():
        with gate.slot(0) as number:
            with lock:
                if number in inside:
                    errors.append(number)
                inside.add(number)
                most[0] = max(most[0], len(inside))
            threading.Event().wait(0.01)
            with lock:
                inside.discard(number)

    run_threads([caller] * 24)
    assert errors == [] and most[0] == 3 and gate.queue.running_need == 0


def test_a_gate_starts_a_waiting_caller_that_fits_before_an_earlier_one_that_does_not():
    from kernelgym.evaluators.dispatch import SlotGate

    gate = SlotGate(2, 100 * GIB)
    order, lock = [], threading.Lock()
    inside = {name: threading.Event() for name in ("a", "big")}
    release = {name: threading.Event() for name in ("a", "big")}

    def holder(name, need):  # holds its slot until released
        with gate.slot(need):
            inside[name].set()
            release[name].wait(10)

    def waiter(name, need):
        with gate.slot(need):
            with lock:
                order.append(name)

    holders = [threading.Thread(target=holder, args=("a", 10 * GIB)),
               threading.Thread(target=holder, args=("big", 80 * GIB))]
    for t in holders:
        t.start()
    assert inside["a"].wait(10) and inside["big"].wait(10)
    waiters = [threading.Thread(target=waiter, args=("big2", 80 * GIB))]
    waiters[0].start()
    while len(gate.queue) < 1:
        threading.Event().wait(0.001)
    waiters.append(threading.Thread(target=waiter, args=("small", GIB)))
    waiters[1].start()
    while len(gate.queue) < 2:
        threading.Event().wait(0.001)
    release["a"].set()  # a slot frees beside big's 80 GiB: small fits, big2 does not
    while not order:
        threading.Event().wait(0.001)
    assert order[0] == "small"  # (then big2 takes small's slot: nothing else waits, it waits in the budget)
    release["big"].set()
    for t in holders + waiters:
        t.join(10)
    assert order == ["small", "big2"] and gate.queue.running_need == 0


def test_a_gate_needs_a_slot():
    from kernelgym.evaluators.dispatch import SlotGate

    with pytest.raises(ValueError, match="at least one slot"):
        SlotGate(0, None)
