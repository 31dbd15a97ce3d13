"""kernelgym.judge.activity: how device activities are given to timed calls (the ``activity`` timing method, which
leaves host latency out; GPU figures in docs/BENCHMARKS.md once measured). The attribution is a pure function of
the profiler's records, checked here on records laid out as the profiler reports them; the recorder itself needs
CUDA activities (tests/gpu)."""

from __future__ import annotations

import math

import pytest

from kernelgym.judge.activity import attribute, merge

MS = 1_000_000  # ns


def test_activities_go_to_the_call_that_launched_them_on_any_stream():
    """Call 0 launches at 1 ms (op 11) and 1.2 ms (op 12, a side stream whose kernel ends late, at 9 ms, while the
    host has moved on); the judge's own flush (op 20, outside every annotation) runs between the calls; call 1
    launches one kernel. The late side-stream kernel is call 0's; the flush is nobody's."""
    annotations = {0: (1 * MS, 2 * MS), 1: (10 * MS, 11 * MS)}
    op_starts = {11: 1 * MS, 12: int(1.2 * MS), 20: 5 * MS, 21: int(10.1 * MS)}
    device = [(11, int(1.3 * MS), 3 * MS), (12, int(1.4 * MS), 9 * MS), (20, 6 * MS, 7 * MS),
              (21, int(10.5 * MS), int(10.75 * MS))]
    calls = attribute(annotations, op_starts, device)
    assert calls[0]["n"] == 2 and calls[0]["span_ms"] == (9 - 1.3)
    assert calls[1]["n"] == 1 and abs(calls[1]["span_ms"] - 0.25) < 1e-9
    assert calls[0]["unlinked"] == calls[1]["unlinked"] == 0


def test_an_unlinked_activity_goes_to_the_window_holding_its_start():
    """No link (or a link to an op the profiler did not keep): the call whose window (its annotation's start up to
    the next one's) holds the activity's start; before the first call it is nobody's."""
    annotations = {0: (1 * MS, 2 * MS), 1: (10 * MS, 11 * MS)}
    device = [(0, int(0.5 * MS), int(0.6 * MS)), (0, 4 * MS, 8 * MS), (99, 12 * MS, 13 * MS)]
    calls = attribute(annotations, {}, device)
    assert calls[0]["n"] == 1 and calls[0]["unlinked"] == 1 and calls[0]["span_ms"] == 4
    assert calls[1]["n"] == 1 and calls[1]["span_ms"] == 1


def test_an_activity_without_a_link_is_never_taken_for_the_work_of_a_host_record_numbered_0():
    """Seen on the H200: a Triton kernel (launched through the driver, outside torch's operators) came with linked id
    0, and a host record of the profiler's own had correlation id 0; the kernel is still its call's."""
    annotations = {0: (1 * MS, 2 * MS)}
    op_starts = {0: 0, 12: int(1.5 * MS)}
    calls = attribute(annotations, op_starts, [(0, int(1.6 * MS), int(3.6 * MS))])
    assert calls[0]["n"] == 1 and calls[0]["unlinked"] == 1 and calls[0]["span_ms"] == 2


def test_a_call_without_activity_has_no_span():
    calls = attribute({0: (1 * MS, 2 * MS)}, {5: 3 * MS}, [(5, 4 * MS, 5 * MS)])
    assert calls[0]["n"] == 0 and calls[0]["span_ms"] is None


def test_a_span_only_lowers_a_calls_time_and_a_missing_span_keeps_it():
    assert merge([2.0, 2.0, 2.0], [1.5, None, 3.0]) == [1.5, 2.0, 2.0]
    assert merge([], []) == []


@pytest.mark.parametrize("spans", [[1.0], [1.0, 1.0, 1.0], None, {"0": 1.0, "1": 1.0}, [1.0, -0.5], [1.0, math.nan],
                                   [1.0, math.inf], [1.0, "0.1"], [1.0, True], [1.0, [0.1]]])
def test_spans_a_worker_sent_are_refused_unless_one_number_or_null_per_call(spans):
    """What the runner takes from the worker: anything but one finite, non-negative number or null per timed call
    is a lie (the worker's own code cannot send it), refused as a whole."""
    with pytest.raises(ValueError):
        merge([2.0, 2.0], spans)


def test_records_forged_through_a_patched_profiler_never_reach_the_spans_and_the_patch_is_watched(monkeypatch):
    """A red-team helper's forgery: the profiler's ``__exit__`` patched on its class to swap the records for made-up
    ones. The recorder calls the exit bound at import (the patch never runs) and the worker's watch sees the patch;
    a records object whose class was swapped on the instance is refused by type (the spans are void, so every call
    keeps its synchronized figure)."""
    import torch

    from kernelgym.judge import worker
    from kernelgym.judge.activity import ActivityRecorder

    before = worker._watched()
    original, called = torch.profiler.profile.__exit__, []

    def forged_exit(self, *args):
        called.append(True)
        return original(self, *args)

    monkeypatch.setattr(torch.profiler.profile, "__exit__", forged_exit)
    after = worker._watched()
    assert [k for k in before if before[k] is not after[k]] == ["torch.profiler.profiler.profile.__exit__"]
    recorder = ActivityRecorder().start()
    with recorder.call(0):
        torch.ones(8).sum()
    recorder.finish()
    assert not called and recorder.error is None and recorder.spans_ms() == {0: None}  # no device records on a CPU

    class Swapped(torch.autograd.profiler.profile):
        pass

    recorder = ActivityRecorder().start()
    with recorder.call(0):
        torch.ones(8).sum()
    assert recorder.error is None
    recorder._prof.profiler.__class__ = Swapped  # what code that found the live profiler in memory could do
    recorder.finish()
    assert recorder.error == "TypeError: the profiler's records object was replaced" and recorder.spans_ms() == {}
