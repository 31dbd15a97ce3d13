"""Which evaluation of a batch a pool submits next (kernelgym.evaluators.order.TaskFeeder)."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kernelgym.evaluators.order import TaskFeeder, footprint_weight


@dataclass(frozen=True)
class FakeTask:
    """Only what the feeder reads of a task: its key."""

    key: str


def batch(samples: dict[str, int]) -> list[FakeTask]:
    """A GRPO-shaped batch: each task's samples one after another, in the dict's order."""
    return [FakeTask(key) for key, n in samples.items() for _ in range(n)]


def weights(table: dict[str, int]):
    asked = []

    def weight(task):
        asked.append(task.key)
        return table[task.key]

    return weight, asked


def drain(feeder: TaskFeeder) -> list[int]:
    """Every position, each marked done as soon as it is submitted."""
    order = []
    while (position := feeder.next()) is not None:
        order.append(position)
        feeder.done(position)
    return order


def test_one_task_comes_in_input_order_without_asking_its_weight():
    weight, asked = weights({"a": 1})
    assert drain(TaskFeeder(batch({"a": 5}), weight)) == [0, 1, 2, 3, 4]
    assert asked == []


def test_every_position_once_each_tasks_samples_in_their_order_and_weights_asked_once_per_task():
    tasks = batch({"a": 3, "b": 4, "c": 2, "d": 5, "e": 1})
    weight, asked = weights({"a": 5, "b": 1, "c": 4, "d": 2, "e": 3})
    order = drain(TaskFeeder(tasks, weight, active=2))
    assert sorted(order) == list(range(len(tasks)))
    for key in "abcde":
        mine = [p for p in order if tasks[p].key == key]
        assert mine == sorted(mine)
    assert sorted(asked) == list("abcde")


def test_heavy_and_light_tasks_are_under_way_together():
    """Nothing done yet: the heaviest and the lightest task alternate (the fewest in flight, ties to the earlier
    joined); the middle one joins when the heaviest runs out and, with none in flight, goes first."""
    tasks = batch({"mid": 2, "light": 3, "heavy": 3})
    weight, _ = weights({"mid": 2, "light": 1, "heavy": 9})
    feeder = TaskFeeder(tasks, weight, active=2)
    order = [feeder.next() for _ in range(len(tasks))]
    assert [tasks[p].key for p in order] == ["heavy", "light"] * 2 + ["heavy", "mid", "mid", "light"]
    assert feeder.next() is None


def test_a_task_whose_samples_are_slow_keeps_few_in_flight():
    """Heavy samples never finish while light ones finish at once: with ten slots, input order would put all ten
    heavy samples in flight; the feeder keeps one heavy sample in flight while light ones remain."""
    tasks = batch({"heavy": 10, "light1": 10, "light2": 10})
    weight, _ = weights({"heavy": 100, "light1": 1, "light2": 2})
    feeder = TaskFeeder(tasks, weight)
    heavy_in_flight, most = 0, 0
    light_left = 20
    while light_left:
        position = feeder.next()
        if tasks[position].key == "heavy":
            heavy_in_flight += 1
        else:
            light_left -= 1
            feeder.done(position)
        most = max(most, heavy_in_flight)
    assert most == 1


def test_no_more_tasks_under_way_than_asked():
    tasks = batch({k: 3 for k in "abcdefg"})
    weight, _ = weights({k: i for i, k in enumerate("abcdefg")})
    feeder = TaskFeeder(tasks, weight, active=3)
    submitted = []
    while (position := feeder.next()) is not None:  # none done: the worst case for tasks piling up
        submitted.append(tasks[position].key)
        started = set(submitted)
        unfinished = {k for k in started if submitted.count(k) < 3}
        assert len(unfinished) <= 3


def test_a_feeder_needs_a_task_under_way():
    with pytest.raises(ValueError, match="at least one"):
        TaskFeeder(batch({"a": 1}), active=0)


def test_a_tasks_weight_is_its_traced_footprint_and_zero_when_it_cannot_be_had(test_tasks, tmp_path):
    from kernelgym.judge.footprint import footprint

    task = test_tasks.get("L1/1_scaled_relu")
    assert footprint_weight(task) == footprint(task).total > 0

    class Unloadable:
        key = "x"

        def load_module(self, small=False):
            raise ImportError("no such module")

    assert footprint_weight(Unloadable()) == 0
