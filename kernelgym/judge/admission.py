"""GPU admission: which evaluations may use a GPU at once, and for what.

A writer-preferring readers-writer lock (many evaluations may share a GPU to compile and check, one times alone)
and a memory budget (evaluations reserve their estimated GPU memory for their whole run, what their build needs
first and the rest once built), bundled per device as a
:class:`GpuAdmission` that the judge hands to each session.
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
import time
from typing import Callable, ContextManager


#: longest a sharer waits while timers keep coming (seconds): past it, no new timer starts until the sharers
#: waiting then have entered. Timers keep their preference below it, so short waits never split a timing stage
SHARER_WAIT_BOUND_S = 5.0


class SharedExclusiveLock:
    """``shared()`` may be held by many threads at once; ``exclusive()`` by one thread with no sharer.

    A waiting exclusive holder blocks new sharers (writer preference), so timing is never starved by a stream of
    compilations; but not for ever: a sharer that has waited ``sharer_wait_bound_s`` opens the door to every sharer
    waiting at that moment, and no exclusive holder enters until they all have. So a stream of timers (many
    evaluations timing one block after another) delays a sharer by at most the bound plus one exclusive hold, and a
    timer by at most the steps of the sharers admitted before it.

    With ``keep_holds`` > 0 the lock also keeps its last ``keep_holds`` records in :attr:`holds`, each
    ``(kind, start, end)`` in ``time.monotonic()`` seconds (the system-wide monotonic clock: comparable across the
    processes of one Linux machine, and unmoved when the wall clock is stepped):
    - ``"exclusive"``, ``"shared"`` or ``"shared:<label>"`` (``shared(label=...)``: the step it was, e.g.
      ``build`` or ``trial``): a hold, from acquiring to releasing;
    - ``"drain"``: an exclusive hold's wait that began with sharers holding, from the request to the grant: the time
      a timer waited for steps in flight, while no new step could start (the GPU partly idle).
    What GPU occupancy is measured from (``RayEvalPool.gpu_holds``, ``benchmarks/throughput.py``).
    """

    def __init__(self, keep_holds: int = 0, sharer_wait_bound_s: float = SHARER_WAIT_BOUND_S):
        self._cond = threading.Condition()
        self._sharers = 0
        self._writer = False
        self._writers_waiting = 0
        self.sharer_wait_bound_s = float(sharer_wait_bound_s)
        self._tickets = 0  # sharers that have asked so far; each waiting sharer holds its number
        self._waiting: set[int] = set()  # tickets of the sharers waiting now
        self._admit_upto = 0  # sharers with a ticket up to this one enter even while timers wait
        self.holds: collections.deque = collections.deque(maxlen=max(0, int(keep_holds)))

    @contextlib.contextmanager
    def _held(self, kind: str):
        """Note the hold in :attr:`holds` when they are kept (the lock is already acquired)."""
        if not self.holds.maxlen:
            yield
            return
        start = time.monotonic()
        try:
            yield
        finally:
            self.holds.append((kind, start, time.monotonic()))

    def _admitted_waiting(self) -> bool:
        """Whether a sharer let in past the timers is still waiting (then no timer may enter)."""
        return any(ticket <= self._admit_upto for ticket in self._waiting)

    @contextlib.contextmanager
    def shared(self, label: str | None = None):
        with self._cond:
            self._tickets += 1
            ticket, overdue_at = self._tickets, time.monotonic() + self.sharer_wait_bound_s
            self._waiting.add(ticket)
            try:
                while self._writer or (self._writers_waiting and ticket > self._admit_upto):
                    remaining = overdue_at - time.monotonic()
                    if remaining <= 0 and ticket > self._admit_upto:  # waited long enough: every sharer waiting
                        self._admit_upto = self._tickets                # now goes before the next timer
                        self._cond.notify_all()
                        continue
                    self._cond.wait(remaining if ticket > self._admit_upto else None)
            finally:
                self._waiting.discard(ticket)
            self._sharers += 1
        try:
            with self._held(f"shared:{label}" if label else "shared"):
                yield
        finally:
            with self._cond:
                self._sharers -= 1
                self._cond.notify_all()

    @contextlib.contextmanager
    def exclusive(self):
        with self._cond:
            asked, draining = time.monotonic(), self._sharers > 0
            self._writers_waiting += 1
            try:
                while self._writer or self._sharers or self._admitted_waiting():
                    self._cond.wait()
            finally:
                self._writers_waiting -= 1
            self._writer = True
            if draining and self.holds.maxlen:
                self.holds.append(("drain", asked, time.monotonic()))
        try:
            with self._held("exclusive"):
                yield
        finally:
            with self._cond:
                self._writer = False
                self._cond.notify_all()


#: longest a timer keeps the GPU to itself across consecutive timing rounds (seconds): a round that starts while the
#: hold is younger than this runs inside it; the hold ends after the round that reaches it, and with the timing
#: stage. Each new exclusive hold first waits for every sharer's current step to end, and the GPU is partly idle
#: while they drain, so one hold per round cost a timer as many drains as rounds (``quick`` takes 2-10 rounds,
#: ``full`` up to 200); a slice of 1 s keeps a sharer's wait behind a timer near one slice, well below
#: :data:`SHARER_WAIT_BOUND_S`. ``KERNELGYM_TIMING_HOLD_SLICE_S`` (seconds, read at import) changes it for measuring
#: (``0``: one hold per round, as before slices)
TIMING_HOLD_SLICE_S = float(os.environ.get("KERNELGYM_TIMING_HOLD_SLICE_S", "1.0"))


class SlicedHold:
    """Consecutive exclusive holds of one evaluation merged into slices of about ``slice_s`` seconds (default:
    :data:`TIMING_HOLD_SLICE_S` when the hold is made).

    ``acquire()`` returns the context manager of one exclusive hold (the session's ``gpu(alone=True)``). Each
    :meth:`round` runs inside the current hold, taking a new one when there is none; after a round the hold is
    released once it has lasted ``slice_s`` (on ``clock``), or at once when the round raised. :meth:`close` releases
    what is held (call it when the rounds are over). Not thread-safe: one evaluation's timing thread uses it."""

    def __init__(self, acquire: Callable[[], ContextManager], slice_s: float | None = None,
                 clock: Callable[[], float] = time.monotonic):
        self.acquire, self.clock = acquire, clock
        self.slice_s = float(TIMING_HOLD_SLICE_S if slice_s is None else slice_s)
        self._held: ContextManager | None = None
        self._since = 0.0
        self.holds = 0  # exclusive holds taken so far

    @contextlib.contextmanager
    def round(self):
        if self._held is None:
            held = self.acquire()
            held.__enter__()
            self._held, self._since = held, self.clock()
            self.holds += 1
        try:
            yield
        except BaseException:
            self.close()
            raise
        if self.clock() - self._since >= self.slice_s:
            self.close()

    def close(self) -> None:
        held, self._held = self._held, None
        if held is not None:
            held.__exit__(None, None, None)

    def __enter__(self) -> "SlicedHold":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class NoLock:
    """Stand-in when evaluations never overlap (a single local Judge)."""

    @contextlib.contextmanager
    def shared(self, label: str | None = None):
        yield

    @contextlib.contextmanager
    def exclusive(self):
        yield


#: longest a reservation that does not fit yet lets later, smaller ones pass it freely (seconds): past it, a later
#: reservation passes only where it cannot delay it (:meth:`MemoryBudget._may_enter`). Below it, small evaluations
#: fill the memory a large one cannot use yet; above it, the large one waits at most for the evaluations holding
#: memory then to end. Without the bound a 99 GiB reservation waited 275-321 s behind a stream of small ones on the
#: H200 (docs/BENCHMARKS.md, tenth session)
MEMORY_BYPASS_BOUND_S = 10.0


class MemoryBudget:
    """Admission by GPU memory: evaluations reserve their estimated need for their whole run, and wait while the
    reservations would exceed ``capacity`` bytes. One evaluation alone is always admitted, however large, so a
    task bigger than the budget runs by itself instead of never.

    No reservation is starved. Waiting reservations queue in arrival order; a later one that fits may pass the
    earliest waiting one freely while that has waited less than ``bypass_bound_s``, and past the bound only where it
    cannot delay it: where the reservations admitted since the earliest began to wait, the passing one included,
    leave room for it (backfilling: once the holders from before it are gone, it fits). None passes while a
    reservation of the whole capacity (an evaluation that must have the memory to itself) waits. So the earliest
    waiting reservation waits at most the bound plus the run of the evaluations holding memory when the bound
    passed, and each later one in turn; and a large one waiting does not idle the memory it leaves free (on the
    H100, batch B's L2/20 rows, 14.0 GiB each, waited up to 90 s behind L1/15's 39.6 GiB reservations while 23.7 GiB
    of the budget stood unused).

    Memory used outside every reservation is counted too (:meth:`hold_outside`): the CUDA context of each live
    worker not yet inside its evaluation's reservation (spares, and workers waiting for their reservation). A
    reservation enters only where reservations and those holds together leave it room (one evaluation alone still
    always enters). Without them, 12 evaluations at once with a pool's spares held, by count, about 21 GiB of
    contexts beside L1/15's 39.6 GiB reservation on the H100, more than the budget leaves outside its reservations,
    and the runner ran out of memory (docs/BENCHMARKS.md, twenty-sixth session).

    A reservation may be *staged* (``reserve(whole, first=...)``): it holds ``first`` bytes from its admission and
    the rest once its holder calls :meth:`Reservation.grow`. An evaluation holds only what its build needs while its
    worker compiles (no GPU, and a third to two thirds of the time its reservation was held in batch B on the H100),
    and the rest for its trials and timing. Growing never deadlocks: a reservation, staged or not, enters only where
    the holders could still all grow in some order (each in turn growing into the free memory, then giving back all
    it holds; those that will not grow count as given back), the banker's rule for one resource. A grow waits while
    it does not fit; one that has waited ``bypass_bound_s`` keeps later reservations from taking the room it needs;
    where every holder is a grow waiting (memory held outside the reservations grew since they entered), the
    smallest grows anyway, as one reservation alone always enters.
    """

    def __init__(self, capacity: int, bypass_bound_s: float = MEMORY_BYPASS_BOUND_S):
        self.capacity = int(capacity)
        self.bypass_bound_s = float(bypass_bound_s)
        self._cond = threading.Condition()
        self.reserved = 0
        self.holders = 0
        self.outside = 0  # bytes of the holds outside reservations (:meth:`hold_outside`)
        #: waiting tickets in arrival order: (since, bytes of the whole reservation)
        self._waiting: collections.OrderedDict[object, tuple[float, int]] = collections.OrderedDict()
        self._holding: dict[object, Reservation] = {}  # admitted tickets
        self._ahead: set[object] = set()  # waiting tickets that need not wait for those before them (try_reserve)

    def _may_enter(self, ticket: object, first: int, whole: int) -> bool:
        if self.holders and self.reserved + self.outside + first > self.capacity:
            return False
        if self.holders and not (self._safe_beside(first, whole) and self._leaves_overdue_grow_room(first)):
            return False
        if ticket in self._ahead:
            return self.reserved + self.outside + first <= self.capacity
        oldest = next(iter(self._waiting))
        if oldest is ticket:
            return True
        if any(waiting >= self.capacity > 0 for _, waiting in self._waiting.values()):
            return False  # nobody passes a reservation of the whole capacity
        since, need = self._waiting[oldest]
        if time.monotonic() - since < self.bypass_bound_s:
            return True
        admitted_since = sum(r.whole for r in self._holding.values() if r.admitted_at > since)
        return admitted_since + self.outside + whole + need <= self.capacity

    def _safe_beside(self, first: int, whole: int) -> bool:
        """Whether, with a reservation of ``first`` bytes growing to ``whole`` admitted beside the holders, they
        could all still grow: in order of the growth each still needs, each fits into the free memory and then
        gives back all it holds; holders that will not grow give theirs back without waiting for memory."""
        free = self.capacity - self.reserved - self.outside - first
        pending = [(whole - first, first)] if whole > first else []
        for held in self._holding.values():
            if held.growth:
                pending.append((held.growth, held.held))
            else:
                free += held.held
        for growth, held in sorted(pending, key=lambda p: p[0]):
            if growth > free:
                return False
            free += held
        return True

    def _leaves_overdue_grow_room(self, first: int) -> bool:
        """Whether ``first`` more bytes leave room for every grow that has waited the bypass bound."""
        now = time.monotonic()
        overdue = [r.growth for r in self._holding.values()
                   if r.growing_since is not None and now - r.growing_since >= self.bypass_bound_s]
        return not overdue or self.reserved + self.outside + first + max(overdue) <= self.capacity

    def _may_grow(self, reservation: "Reservation") -> bool:
        if self.reserved + self.outside + reservation.growth <= self.capacity or self.holders == 1:
            return True
        growing = [r for r in self._holding.values() if r.growing_since is not None]
        if len(growing) < self.holders:
            return False  # a holder that is not waiting to grow will give memory back
        # every holder waits to grow (memory outside the reservations grew since they entered): the smallest grows
        return min(growing, key=lambda r: (r.growth, r.admitted_at)) is reservation

    def _grow(self, reservation: "Reservation") -> float:
        """:meth:`Reservation.grow`: the seconds it waited."""
        asked = time.monotonic()
        with self._cond:
            if not reservation.growth or reservation.released:
                return 0.0
            reservation.growing_since = asked
            try:
                while not self._may_grow(reservation):
                    self._cond.wait()
                self.reserved += reservation.growth
                reservation.held = reservation.whole
            finally:
                reservation.growing_since = None
                self._cond.notify_all()
        return time.monotonic() - asked

    def hold_outside(self, nbytes: int) -> "OutsideHold":
        """Count ``nbytes`` of GPU memory used outside every reservation until the returned hold is released
        (:meth:`OutsideHold.release`, idempotent, from any thread): later reservations enter only beside it."""
        nbytes = max(0, int(nbytes))
        with self._cond:
            self.outside += nbytes
        return OutsideHold(self, nbytes)

    def _release_outside(self, nbytes: int) -> None:
        with self._cond:
            self.outside -= nbytes
            self._cond.notify_all()  # a waiting reservation may fit now

    @contextlib.contextmanager
    def reserve(self, nbytes: int, first: int | None = None):
        """Hold ``nbytes`` for the block (``first`` bytes of them until :meth:`Reservation.grow`, where given);
        yields the :class:`Reservation`."""
        with self.try_reserve(nbytes, None, first=first) as reservation:
            yield reservation

    @contextlib.contextmanager
    def try_reserve(self, nbytes: int, timeout_s: float | None, first: int | None = None, ahead: bool = False):
        """:meth:`reserve`, waiting at most ``timeout_s`` (``None``: as long as it takes); yields the
        :class:`Reservation` held for the block, or ``None`` where it was not made in time (in the same queue and
        by the same rules). ``ahead``: it enters as soon as the memory is there and every holder could still grow,
        whoever waits before it (a short-lived addition to an evaluation that holds a reservation already, a
        witness's: :mod:`kernelgym.judge.witness`; the waiting evaluations have nothing to run yet, this one ends
        sooner and gives back all it holds)."""
        whole = max(0, min(int(nbytes), self.capacity))
        first = whole if first is None else max(0, min(int(first), whole))
        ticket = object()
        give_up = None if timeout_s is None else time.monotonic() + timeout_s
        with self._cond:
            self._waiting[ticket] = (time.monotonic(), whole)
            if ahead:
                self._ahead.add(ticket)
            try:
                while not self._may_enter(ticket, first, whole):
                    left = None if give_up is None else give_up - time.monotonic()
                    if left is not None and left <= 0:
                        break
                    self._cond.wait(left)  # woken by every release and every admission
                else:
                    self.reserved += first
                    self.holders += 1
                    self._holding[ticket] = Reservation(self, first, whole)
            finally:
                del self._waiting[ticket]
                self._ahead.discard(ticket)
                self._cond.notify_all()  # the next in line may enter now
        reservation = self._holding.get(ticket)
        try:
            yield reservation
        finally:
            if reservation is not None:
                with self._cond:
                    self.reserved -= reservation.held
                    self.holders -= 1
                    reservation.released = True
                    del self._holding[ticket]
                    self._cond.notify_all()


class Reservation:
    """Bytes held in a :class:`MemoryBudget` (:meth:`MemoryBudget.reserve`): :attr:`held` now, :attr:`whole` once
    grown."""

    def __init__(self, budget: "MemoryBudget | None", held: int, whole: int):
        self._budget, self.held, self.whole = budget, held, whole
        self.admitted_at = time.monotonic()
        self.growing_since: float | None = None  # while :meth:`grow` waits
        self.released = False

    @property
    def growth(self) -> int:
        """Bytes still to be held once grown."""
        return self.whole - self.held

    def grow(self) -> float:
        """Hold the whole reservation, waiting until it fits (never for ever: see :class:`MemoryBudget`); the
        seconds waited. Once grown (or unstaged), returns 0 at once."""
        return 0.0 if self._budget is None else self._budget._grow(self)


class OutsideHold:
    """Memory counted by a :class:`MemoryBudget` outside its reservations until :meth:`release`."""

    def __init__(self, budget: "MemoryBudget | None", nbytes: int):
        self._budget, self.nbytes = budget, nbytes
        self._lock = threading.Lock()

    def release(self) -> None:
        """Stop counting the memory (once; later calls do nothing)."""
        with self._lock:
            budget, self._budget = self._budget, None
        if budget is not None:
            budget._release_outside(self.nbytes)


class NoBudget:
    """Stand-in on the CPU: no admission control."""

    capacity = None

    def hold_outside(self, nbytes: int) -> OutsideHold:
        return OutsideHold(None, 0)

    @contextlib.contextmanager
    def reserve(self, nbytes: int, first: int | None = None):
        yield Reservation(None, 0, 0)

    @contextlib.contextmanager
    def try_reserve(self, nbytes: int, timeout_s: float | None, first: int | None = None, ahead: bool = False):
        yield Reservation(None, 0, 0)


#: share of a GPU's memory that reservations may take (the rest: CUDA contexts, allocator slack, fragmentation)
GPU_MEMORY_SHARE = 0.8
_PER_DEVICE: dict[str, tuple[SharedExclusiveLock, MemoryBudget]] = {}
_REGISTRY_LOCK = threading.Lock()


def for_device(device: str) -> tuple[SharedExclusiveLock, MemoryBudget]:
    """The process-wide timing lock and memory budget of one GPU: every Judge of this process on ``device`` shares
    them, so evaluations in threads (JudgePool, collect, a Ray actor) never time at once or overfill the GPU."""
    import torch

    index = torch.device(device).index or 0
    key = f"cuda:{index}"
    with _REGISTRY_LOCK:
        if key not in _PER_DEVICE:
            total = torch.cuda.get_device_properties(index).total_memory
            _PER_DEVICE[key] = (SharedExclusiveLock(), MemoryBudget(int(total * GPU_MEMORY_SHARE)))
        return _PER_DEVICE[key]


class GpuAdmission:
    """What a session asks before it uses the GPU: ``memory(nbytes)`` for the whole run, ``shared()`` to compile
    and check, ``exclusive()`` to time. :meth:`for_device` gives the process-wide admission of a GPU (judges in
    threads of one process coordinate without being told); :meth:`none` admits everything (the CPU, one judge)."""

    def __init__(self, lock, budget):
        self.lock, self.budget = lock, budget

    @classmethod
    def none(cls) -> "GpuAdmission":
        return cls(NoLock(), NoBudget())

    @classmethod
    def for_device(cls, device: str, lock=None) -> "GpuAdmission":
        device_lock, budget = for_device(device)
        return cls(lock if lock is not None else device_lock, budget)

    def memory(self, nbytes: int, first: int | None = None):
        """A :class:`Reservation` of ``nbytes`` for the block, ``first`` of them until it grows (where given)."""
        return self.budget.reserve(nbytes, first=first)

    def try_memory(self, nbytes: int, timeout_s: float, ahead: bool = False):
        """:meth:`memory`, waiting at most ``timeout_s``: yields the :class:`Reservation`, or ``None`` where it was
        not made in time; ``ahead``: not behind the reservations waiting already (for more memory of an evaluation
        that holds its own: :meth:`MemoryBudget.try_reserve`)."""
        return self.budget.try_reserve(nbytes, timeout_s, ahead=ahead)

    def shared(self, label: str | None = None):
        """A shared hold; ``label`` names the step in the lock's kept holds (``build``, ``trial``, ...)."""
        return self.lock.shared(label=label)

    def exclusive(self):
        return self.lock.exclusive()
