"""Which queued evaluation a free judge thread starts next: arrival order, unless the next one's GPU memory does not fit.

A :class:`~kernelgym.evaluators.LocalEvaluator` runs a fixed number of evaluations at once, one per thread. An
evaluation reserves its GPU memory need for its whole run (:class:`kernelgym.judge.admission.MemoryBudget`) after
its worker has started, so one whose need does not fit beside those running waits there, on its thread. In arrival
order the waits pile up: a GRPO batch submits the samples of one task one after another, and on the H200 batch B's
sixteen L1/15 samples (39.6 GiB each, two fit at once) held six of the eight threads waiting for memory for 16-28 s
each, 424 s in all, while the samples of the next task queued behind them (docs/BENCHMARKS.md).

:class:`MemoryAwareQueue` gives a free thread the first queued evaluation whose need fits beside the needs of the
evaluations it has started and that have not ended, so a later one that fits passes one that does not. A passed
evaluation is passed for at most ``pass_bound_s``: once it has been first in line that long, it is the next one
started whether it fits or not (it then waits in the memory budget, whose own bypass rule bounds its wait from
there). Where nothing queued fits, the first in line starts, as in plain arrival order. Without a memory budget (the
CPU) the order is arrival order. The needs counted are this queue's own evaluations and, where the queue is given
the budget's count of memory held outside its reservations (``outside``: spare workers' CUDA contexts, a batch
plan's kept reference outputs, about 10 GiB at 8 evaluations at once with their spares), that too; the memory
budget, shared by every judge of the process, stays what enforces the GPU's memory.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any, Callable

from kernelgym.judge.admission import MEMORY_BYPASS_BOUND_S


def device_memory(device: str) -> dict[str, Any]:
    """``capacity`` and ``outside`` for a :class:`MemoryAwareQueue` or :class:`SlotGate` on ``device``: its GPU
    memory budget's capacity and a reading of what that budget holds outside its reservations now (every judge of
    the process on the device shares the budget, :func:`kernelgym.judge.admission.for_device`); both ``None`` on
    the CPU."""
    if not str(device).startswith("cuda"):
        return {"capacity": None, "outside": None}
    from kernelgym.judge.admission import for_device

    budget = for_device(device)[1]
    return {"capacity": budget.capacity, "outside": lambda: budget.outside}


class MemoryAwareQueue:
    """Queued items with GPU memory needs, taken as the module says. Thread-safe.

    Args:
        capacity: the bytes evaluations may reserve at once (the memory budget's capacity); ``None`` or 0: no
            budget, arrival order.
        pass_bound_s: longest the first item in line is passed by later ones (default: the memory budget's
            :data:`~kernelgym.judge.admission.MEMORY_BYPASS_BOUND_S`).
        clock: seconds, monotonic (tests give their own).
        outside: bytes held outside the budget's reservations now (``lambda: budget.outside``), counted against
            the room; ``None``: none counted.
    """

    def __init__(self, capacity: int | None, pass_bound_s: float = MEMORY_BYPASS_BOUND_S,
                 clock: Callable[[], float] = time.monotonic, outside: Callable[[], int] | None = None):
        self.capacity = int(capacity or 0)
        self.pass_bound_s = float(pass_bound_s)
        self._clock = clock
        self._outside = outside
        self._lock = threading.Lock()
        self._queued: OrderedDict[int, Any] = OrderedDict()  # ticket -> item, in arrival order
        self._needs: dict[int, int] = {}  # ticket -> need, once asked for
        self._tickets = 0
        self._head: tuple[int, float] | None = None  # (the ticket first in line, since when it is)
        self.running_need = 0  # needs of the items taken and not yet done

    def put(self, item: Any) -> None:
        """Queue ``item`` last."""
        with self._lock:
            self._tickets += 1
            self._queued[self._tickets] = item
            self._note_head()

    def take(self, need_of: Callable[[Any], int]) -> tuple[Any, int] | None:
        """The next item and its need in bytes, ``need_of(item)`` (asked once per item, only where the choice
        depends on it; a need above the capacity counts as the capacity, as the memory budget clips it), counted
        as running until :meth:`done`; ``None`` when nothing is queued."""
        with self._lock:
            if not self._queued:
                return None
            first, since = self._head
            chosen = first
            if self.capacity and self.running_need and self._clock() - since < self.pass_bound_s:
                room = self.capacity - self.running_need - (int(self._outside()) if self._outside else 0)
                chosen = next((t for t in self._queued if self._need(t, need_of) <= room), first)
            need = self._need(chosen, need_of) if self.capacity else 0
            item = self._queued.pop(chosen)
            self._needs.pop(chosen, None)
            self.running_need += need
            self._note_head()
            return item, need

    def done(self, need: int) -> None:
        """An item taken with ``need`` has ended (however it ended)."""
        with self._lock:
            self.running_need -= need

    def drain(self) -> list[Any]:
        """Remove and return every queued item (closing: their futures are cancelled)."""
        with self._lock:
            items = list(self._queued.values())
            self._queued.clear()
            self._needs.clear()
            self._head = None
            return items

    def __len__(self) -> int:
        with self._lock:
            return len(self._queued)

    def _need(self, ticket: int, need_of: Callable[[Any], int]) -> int:
        if ticket not in self._needs:
            self._needs[ticket] = min(max(0, int(need_of(self._queued[ticket]))), self.capacity)
        return self._needs[ticket]

    def _note_head(self) -> None:
        """Start the first item's time in line when it became first (the lock is held)."""
        first = next(iter(self._queued), None)
        if first is None:
            self._head = None
        elif self._head is None or self._head[0] != first:
            self._head = (first, self._clock())


class SlotGate:
    """At most ``slots`` callers inside :meth:`slot` at once; callers waiting to enter start in
    :class:`MemoryAwareQueue`'s order (arrival order, passed by later ones whose memory need fits). For evaluators
    whose callers bring their own threads (a Ray actor runs each call on a thread of its own): more calls than slots
    may arrive, and the gate, not the order of arrival, decides which evaluates next. Thread-safe.

    Args:
        slots: callers inside at once.
        capacity, pass_bound_s, clock, outside: as :class:`MemoryAwareQueue`'s.
    """

    def __init__(self, slots: int, capacity: int | None, pass_bound_s: float = MEMORY_BYPASS_BOUND_S,
                 clock: Callable[[], float] = time.monotonic, outside: Callable[[], int] | None = None):
        if slots < 1:
            raise ValueError(f"a gate needs at least one slot, got {slots}")
        self.queue = MemoryAwareQueue(capacity, pass_bound_s, clock, outside)
        self._lock = threading.Lock()
        self._free = list(range(slots))  # slot numbers not held

    def slot(self, need: int) -> "_Entry":
        """A context manager: waits to enter (the need in bytes as the queue counts it), yields the slot number
        (0 to ``slots`` - 1, each held by one caller at a time: a judge per slot), leaves on exit."""
        return _Entry(self, need)

    def _dispatch(self) -> None:
        """Let waiting callers in while slots are free."""
        with self._lock:
            while self._free:
                taken = self.queue.take(lambda entry: entry.need)
                if taken is None:
                    return
                entry, entry.counted = taken
                entry.number = self._free.pop(0)
                entry.admitted.set()

    def _leave(self, entry: "_Entry") -> None:
        with self._lock:
            self._free.append(entry.number)
        self.queue.done(entry.counted)
        self._dispatch()


class _Entry:
    """One caller's passage through a :class:`SlotGate`."""

    def __init__(self, gate: SlotGate, need: int):
        self.gate, self.need = gate, need
        self.admitted = threading.Event()
        self.number, self.counted = -1, 0

    def __enter__(self) -> int:
        self.gate.queue.put(self)
        self.gate._dispatch()
        self.admitted.wait()
        return self.number

    def __exit__(self, *exc) -> None:
        self.gate._leave(self)
