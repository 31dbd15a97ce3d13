"""A timed call's device time from the device's own record of what the call launched (GPU only).

The ``activity`` timing method (:data:`kernelgym.judge.timing.TIMING_METHOD`). The ``synchronized`` method times
from an idle GPU to a device-wide synchronize, so host time at both ends (the first launch, the wake from the
synchronize) is inside every call's figure: 0.03-0.29 ms per call on the H200, more when the CPUs are busy
compiling other evaluations' kernels. Here each call runs inside a profiler annotation, CUPTI records every kernel,
copy and memset with device timestamps on any stream, and the call's time is the last end minus the first start of
the activities it launched (:func:`attribute`). Work left running on a side stream or a copy engine is still the
call's; host time before the first launch is not (as in ``triton.testing.do_bench``), host time between launches is
(the device waits).

Contract of :class:`ActivityRecorder`: a context (or :meth:`~ActivityRecorder.start` ...
:meth:`~ActivityRecorder.finish`) around the calls; :meth:`~ActivityRecorder.call` around each call (index ``i``);
after it, :meth:`~ActivityRecorder.spans_ms` maps each index to its span, or to ``None`` when no activity of that
call was recorded (the caller then keeps its synchronized figure, never a smaller one: :func:`merge`). A profiler
that cannot start leaves every span ``None``. Code inside the worker can still stop or patch the profiler, as it
can patch CUDA events: the runner's wall clock bounds what it gains (docs/SECURITY.md).

Where it stops matters. Stopping the profiler and parsing its records costs host time that grows with the records
(tens of ms for a block on the H200). The runner's clock on the candidate's blocks
(:mod:`kernelgym.judge.wallclock`) must not hold that cost, or an honest candidate's lower bound is inflated by it:
so the worker records its whole timing stage with one recorder, started before its warm-up and finished only when
the runner asks for the spans after the last block (``Command.SPANS``). The runner's own reference blocks are
recorded one block at a time (one profiler per process, shared by concurrent evaluations); their recorder's own
host cost (:attr:`ActivityRecorder.host_ms`) is left out of their block clock, so the two sides' per-call overheads
hold the same steps.

The profiler is bound at import, before any candidate code is loaded in the worker.
"""

from __future__ import annotations

import contextlib
import math
import secrets
import time

from torch._C._autograd import _KinetoEvent, _ProfilerResult
from torch.autograd import DeviceType as _DeviceType
from torch.autograd.profiler import profile as _autograd_profile
from torch.profiler import ProfilerActivity as _ProfilerActivity
from torch.profiler import profile as _profile
from torch.profiler import record_function as _record_function
from torch.profiler.profiler import _KinetoProfile

#: every class whose methods stand between a recorded call and the records read back; the worker watches each of
#: their methods by identity (:func:`watched_methods`), and :meth:`ActivityRecorder.finish` checks the types of
#: what it reads, so a replaced method or a forged object voids the spans instead of lowering them
RECORD_PATH_CLASSES = (_profile, _KinetoProfile, _autograd_profile, _record_function, _ProfilerResult, _KinetoEvent)
_profile_exit = _profile.__exit__
_results_events = _ProfilerResult.events

#: the name of a timed call's annotation, followed by its index in the block
ANNOTATION = "kernelgym.timed_call."


def watched_methods() -> dict:
    """``{"module.Class.name": function}`` for every method of :data:`RECORD_PATH_CLASSES` (for the worker's watch
    on patched functions: a method replaced on the class is seen, although the class itself stays the same)."""
    out = {}
    for cls in RECORD_PATH_CLASSES:
        for name, value in vars(cls).items():
            if callable(value) or isinstance(value, (staticmethod, classmethod, property)):
                out[f"{cls.__module__}.{cls.__qualname__}.{name}"] = value
    return out


def attribute(annotations: dict[int, tuple[int, int]], op_starts: dict[int, int],
              device: list[tuple[int, int, int]]) -> dict[int, dict]:
    """Per call index: the span (ms) of the device activities it launched, and how they were attributed.

    ``annotations``: call index -> host (start_ns, end_ns) of its annotation; ``op_starts``: correlation id of each
    host op -> its start (ns); ``device``: (linked correlation id, start_ns, end_ns) of each device activity, 0 for
    no link. An activity belongs to the call whose annotation holds the start of the op it links to; without a link
    (or to an op not recorded), to the call whose window (its annotation's start to the next annotation's start)
    holds the activity's own start. Activities of no call (the judge's own flush, inputs, snapshots) are left out.
    A kernel launched outside torch's operators (Triton's launcher calls the driver directly) has no link: on the
    H200 the profiler gave it linked id 0 while a host record of its own had correlation id 0, so 0 is never
    looked up as an op.
    """
    order = sorted(annotations.items(), key=lambda kv: kv[1][0])
    windows = [(i, start, order[k + 1][1][0] if k + 1 < len(order) else None)
               for k, (i, (start, _end)) in enumerate(order)]

    def by_link(t: int):
        for i, (start, end) in annotations.items():
            if start <= t <= end:
                return i
        return None

    def by_window(t: int):
        for i, start, nxt in windows:
            if t >= start and (nxt is None or t < nxt):
                return i
        return None

    calls = {i: {"first": None, "last": None, "n": 0, "unlinked": 0} for i in annotations}
    for linked, start, end in device:
        linked_op = bool(linked) and linked in op_starts
        owner = by_link(op_starts[linked]) if linked_op else None
        unlinked = owner is None
        if unlinked:
            owner = by_window(start)
            if owner is None or linked_op:  # linked to an op outside every call: the judge's own work
                continue
        call = calls[owner]
        call["first"] = start if call["first"] is None else min(call["first"], start)
        call["last"] = end if call["last"] is None else max(call["last"], end)
        call["n"] += 1
        call["unlinked"] += unlinked
    for call in calls.values():
        call["span_ms"] = (call["last"] - call["first"]) / 1e6 if call["n"] else None
    return calls


class ActivityRecorder:
    """Records the device activities of a block of calls (module docstring)."""

    def __init__(self):
        self._prof = None
        self.calls: dict[int, dict] = {}
        self.error: str | None = None
        # a fresh name per block: an annotation of the candidate's own cannot be taken for a call's by its name
        # alone; one that still repeats a call's name voids that call's span (the synchronized figure stays)
        self._prefix = f"{ANNOTATION}{secrets.token_hex(6)}."
        #: host time (ms) spent starting, stopping and parsing: the recorder's own cost, outside every call
        self.host_ms = 0.0

    def __enter__(self) -> "ActivityRecorder":
        return self.start()

    def start(self) -> "ActivityRecorder":
        """Start recording (its host time is added to :attr:`host_ms`)."""
        began = time.perf_counter()
        try:
            self._prof = _profile(activities=[_ProfilerActivity.CPU, _ProfilerActivity.CUDA])
            self._prof.__enter__()
        except Exception as exc:  # noqa: BLE001 - e.g. a profiler already running: every call keeps its figure
            self._prof, self.error = None, f"{type(exc).__name__}: {exc}"
        self.host_ms += (time.perf_counter() - began) * 1e3
        return self

    def call(self, index: int):
        """The annotation of call ``index`` (a no-op when the profiler did not start)."""
        return _record_function(f"{self._prefix}{index}") if self._prof is not None else contextlib.nullcontext()

    def __exit__(self, *exc) -> None:
        self.finish()

    def finish(self) -> None:
        """Stop recording and attribute what was recorded (its host time is added to :attr:`host_ms`)."""
        began = time.perf_counter()
        try:
            self._finish()
        finally:
            self.host_ms += (time.perf_counter() - began) * 1e3

    def _finish(self) -> None:
        if self._prof is None:
            return
        prof, self._prof = self._prof, None
        try:
            if type(prof) is not _profile:
                raise TypeError("the recorder's profiler was replaced")
            _profile_exit(prof, None, None, None)  # bound at import, whatever was set on the class or instance
            if type(prof.profiler) is not _autograd_profile:
                raise TypeError("the profiler's records object was replaced")
            results = prof.profiler.kineto_results
            if type(results) is not _ProfilerResult:
                raise TypeError("the profiler's results were replaced")
            events = _results_events(results)
            if any(type(ev) is not _KinetoEvent for ev in events):
                raise TypeError("the profiler returned records of another type")
        except Exception as err:  # noqa: BLE001 - stopped, broken or forged from inside the block: no spans
            self.error = f"{type(err).__name__}: {err}"
            return
        annotations, repeated, op_starts, device = {}, set(), {}, []
        prefix = self._prefix
        for ev in events:
            if ev.device_type() == _DeviceType.CPU:
                if ev.linked_correlation_id():  # a CUDA runtime call, itself linked to an op: ids of another kind
                    continue
                op_starts[ev.correlation_id()] = ev.start_ns()
                name = ev.name()
                if name.startswith(prefix) and name[len(prefix):].isdigit():
                    index = int(name[len(prefix):])
                    if index in annotations:
                        repeated.add(index)
                    annotations[index] = (ev.start_ns(), ev.end_ns())
            elif ev.device_type() == _DeviceType.CUDA:
                device.append((ev.linked_correlation_id(), ev.start_ns(), ev.end_ns()))
        self.calls = attribute(annotations, op_starts, device)
        for index in repeated:
            self.calls[index]["span_ms"] = None

    def spans_ms(self) -> dict[int, float | None]:
        return {i: call["span_ms"] for i, call in self.calls.items()}


def merge(times_ms: list[float], spans_ms) -> list[float]:
    """Each call's time by the activity method: its span where one was recorded and is below its synchronized
    figure ``times_ms[i]``, else that figure. ``spans_ms`` is what a worker sent (a list aligned with ``times_ms``
    of numbers or ``None``), so anything else in it is refused with :class:`ValueError`: a list of another length,
    an entry neither ``None`` nor a finite number >= 0. A span can only lower a call's time, to no less than what
    the device recorded; the runner's bounds (:mod:`kernelgym.judge.wallclock`) still apply to the result."""
    if not isinstance(spans_ms, list) or len(spans_ms) != len(times_ms):
        raise ValueError(f"expected {len(times_ms)} spans, got {type(spans_ms).__name__} "
                         f"of {len(spans_ms) if isinstance(spans_ms, list) else '?'}")
    merged = []
    for time_ms, span in zip(times_ms, spans_ms):
        if span is None:
            merged.append(time_ms)
            continue
        if type(span) not in (int, float) or not math.isfinite(span) or span < 0:
            raise ValueError(f"a span is not a finite number >= 0: {span!r}")
        merged.append(min(time_ms, float(span)))
    return merged
