"""A timed call's device time from the device's own record of what the call launched (GPU only).

The ``activity`` timing method (:data:`kernelgym.judge.timing.TIMING_METHOD`). The ``synchronized`` method times
from an idle GPU to a device-wide synchronize, so host time at both ends (the first launch, the wake from the
synchronize) is inside every call's figure: 0.03-0.29 ms per call on the H200, more when the CPUs are busy
compiling other evaluations' kernels. Here each call runs inside a profiler annotation, CUPTI records every kernel,
copy and memset with device timestamps on any stream, and the call's time is the last end minus the first start of
the activities it launched (:func:`attribute`). Work left running on a side stream or a copy engine is still the
call's; host time before the first launch is not (as in ``triton.testing.do_bench``), host time between launches is
(the device waits).

Contract of :class:`ActivityRecorder`: a context around a block of calls; :meth:`~ActivityRecorder.call` around
each call (index ``i``); after the block, :meth:`~ActivityRecorder.spans_ms` maps each index to its span, or to
``None`` when no activity of that call was recorded (the caller then keeps its synchronized figure, never a smaller
one). A profiler that cannot start leaves every span ``None``. Code inside the worker can still stop or patch the
profiler, as it can patch CUDA events: the runner's wall clock bounds what it gains (docs/SECURITY.md).

The profiler is bound at import, before any candidate code is loaded in the worker.
"""

from __future__ import annotations

import contextlib
import secrets

from torch.autograd import DeviceType as _DeviceType
from torch.profiler import ProfilerActivity as _ProfilerActivity
from torch.profiler import profile as _profile
from torch.profiler import record_function as _record_function

#: the name of a timed call's annotation, followed by its index in the block
ANNOTATION = "kernelgym.timed_call."


def attribute(annotations: dict[int, tuple[int, int]], op_starts: dict[int, int],
              device: list[tuple[int, int, int]]) -> dict[int, dict]:
    """Per call index: the span (ms) of the device activities it launched, and how they were attributed.

    ``annotations``: call index -> host (start_ns, end_ns) of its annotation; ``op_starts``: correlation id of each
    host op -> its start (ns); ``device``: (linked correlation id, start_ns, end_ns) of each device activity. An
    activity belongs to the call whose annotation holds the start of the op it links to; without a link (or to an
    op not recorded), to the call whose window (its annotation's start to the next annotation's start) holds the
    activity's own start. Activities of no call (the judge's own flush, inputs, snapshots) are left out.
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
        owner = by_link(op_starts[linked]) if linked in op_starts else None
        unlinked = owner is None
        if unlinked:
            owner = by_window(start)
            if owner is None or linked in op_starts:  # linked to an op outside every call: the judge's own work
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

    def __enter__(self) -> "ActivityRecorder":
        try:
            self._prof = _profile(activities=[_ProfilerActivity.CPU, _ProfilerActivity.CUDA])
            self._prof.__enter__()
        except Exception as exc:  # noqa: BLE001 - e.g. a profiler already running: every call keeps its figure
            self._prof, self.error = None, f"{type(exc).__name__}: {exc}"
        return self

    def call(self, index: int):
        """The annotation of call ``index`` (a no-op when the profiler did not start)."""
        return _record_function(f"{self._prefix}{index}") if self._prof is not None else contextlib.nullcontext()

    def __exit__(self, *exc) -> None:
        if self._prof is None:
            return
        try:
            self._prof.__exit__(None, None, None)
            events = self._prof.profiler.kineto_results.events()
        except Exception as err:  # noqa: BLE001 - stopped or broken from inside the block: no spans
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
