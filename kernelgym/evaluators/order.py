"""Which evaluation of a batch a pool submits next: light tasks beside heavy ones, no task hoarding the slots.

A GRPO batch lists the samples of one task after another, and a pool keeps only a few evaluations in flight (its
backpressure). In input order every evaluation in flight belongs to the same task: while the samples of a task whose
GPU memory need lets one or two run at once are evaluated, the other slots wait for memory and the GPU idles (batch
B on an H100 at 9997a63: L1/100's samples took the first 51 s of 165 and waited 143 s for memory in all, L1/15's
and L2/20's the last 71 s, while the five light tasks ran by themselves in between; docs/BENCHMARKS.md). A fixed
interleaving does not cure it: a heavy task's samples finish slowly, so they pile up in flight until they hold every
slot again.

:class:`TaskFeeder` decides at each submission, when a slot is free: among the tasks under way (at most
``active``, default :data:`ACTIVE_TASKS`, the batch plans an actor keeps) it submits the next sample of the one with
the fewest evaluations in flight, so a task whose samples are slow keeps few in flight and the others fill the rest.
Tasks join as others run out, alternately from the heavy end and the light end of the tasks ranked by weight, so
heavy and light ones are under way together. The weight is the task's eager memory footprint
(:func:`kernelgym.judge.footprint.footprint`, traced on the meta device: the reference program runs, never a
candidate); a task whose footprint cannot be had weighs 0. The feeder only decides when each evaluation is
submitted: every evaluation is judged as it would be in any order, and results still come back in input order.
"""

from __future__ import annotations

import threading
from typing import Callable, Sequence

from kernelgym.tasks import Task

__all__ = ["ACTIVE_TASKS", "TaskFeeder", "footprint_weight"]

#: tasks under way at once (an actor keeps this many batch plans: :data:`kernelgym.evaluators.ray_pool.ACTOR_PLANS`)
ACTIVE_TASKS = 4


def footprint_weight(task: Task) -> int:
    """Bytes of one eager forward of ``task`` at its default shapes
    (:func:`kernelgym.judge.footprint.footprint_bound`), 0 when it cannot be had."""
    from kernelgym.judge.footprint import footprint_bound

    try:
        return int(footprint_bound(task)[0])
    except Exception:  # noqa: BLE001 - an unweighable task is light: it is ordered, never refused, here
        return 0


class TaskFeeder:
    """The positions of a batch's items, one per :meth:`next`, as the module says. Thread-safe (:meth:`done` is
    called from futures' callbacks).

    Args:
        tasks: the task of each item, by position.
        weight: a task's weight (asked once per distinct :attr:`Task.key <kernelgym.tasks.Task.key>`, only when
            the batch has more than one task).
        active: tasks under way at once (at least 1).
    """

    def __init__(self, tasks: Sequence[Task], weight: Callable[[Task], int] = footprint_weight,
                 active: int = ACTIVE_TASKS):
        if active < 1:
            raise ValueError(f"a feeder needs at least one task under way, got {active}")
        groups: dict[str, list[int]] = {}
        first: dict[str, Task] = {}
        for position, task in enumerate(tasks):
            groups.setdefault(task.key, []).append(position)
            first.setdefault(task.key, task)
        weights = {key: int(weight(task)) for key, task in first.items()} if len(groups) > 1 else {}
        ranked = sorted(groups, key=lambda key: -weights.get(key, 0))  # stable: ties keep first appearance
        self._waiting = [ranked.pop(0 if i % 2 == 0 else -1) for i in range(len(ranked))]  # heavy, light, ...
        self._left = groups  # key -> its positions not submitted yet, in input order
        self._key_of = {p: key for key, positions in groups.items() for p in positions}
        self._in_flight = dict.fromkeys(groups, 0)
        self._active: list[str] = []  # keys under way, in the order they joined
        self._limit = int(active)
        self._lock = threading.Lock()

    def next(self) -> int | None:
        """The position to submit now (counted in flight until :meth:`done`); ``None`` once every one was."""
        with self._lock:
            while len(self._active) < self._limit and self._waiting:
                self._active.append(self._waiting.pop(0))
            if not self._active:
                return None
            key = min(self._active, key=lambda k: self._in_flight[k])  # ties: the earliest to join
            position = self._left[key].pop(0)
            self._in_flight[key] += 1
            if not self._left[key]:
                self._active.remove(key)
            return position

    def done(self, position: int) -> None:
        """The evaluation submitted at ``position`` has ended (however it ended)."""
        with self._lock:
            self._in_flight[self._key_of[position]] -= 1
