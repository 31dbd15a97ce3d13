"""Device activity spans (CUPTI through torch's profiler) as the judge's per-call time: an experiment for the timing
method (issue #16 item 5, #13 fidelity). GPU only.

    python benchmarks/activity_timing.py [--tasks L1/15_relu,L1/28_softmax] [--calls 40] [--json out.json]

The judge's interval today runs from an idle GPU to a device-wide synchronize, so it holds host time at both ends
(the first launch, the wake from the synchronize): 0.03-0.29 ms above ``triton.testing.do_bench`` on the H200
(docs/results/timing_method_h200_2026-12-04_043f1cd.txt). Both ends are defences: side-stream work is counted by the
synchronize, host work before the first launch by the idle start. A span measured on the device keeps the first and
leaves out the host time: every kernel, copy and memset the call launched, on any stream, is recorded by CUPTI with
device timestamps; the call's time is the last end minus the first start. Each call runs inside a profiler
annotation; an activity belongs to the call whose annotation contains the host op that launched it (its
``linked_correlation_id``), or, where it has no link, whose window holds its start
(:func:`kernelgym.judge.activity.attribute`).

Printed per row (ms): ``judge`` (the judge's CallTimer), ``activity`` (median span), ``gap`` (judge minus activity,
per call, median), ``do_bench``, the activities per call, how many had no link, the host time per call with the
profiler and without, and the profiler's stop and parse per block. The recorder is the judge's own
(:mod:`kernelgym.judge.activity`). Then adversarial forwards, each against its honest twin (what a method must count):

- ``side_tail``: a trivial kernel on the current stream, the real work (a matmul) on a low-priority side stream that
  the forward never joins: the judge's synchronize counts it, an end event before the synchronize would not;
- ``copy_tail``: the output filled by a copy on a side stream (copy engine or copy kernel), never joined;
- ``host_first``: 1 ms of host work before the first launch: the judge counts it, a device span does not;
- ``host_between``: the same 1 ms between two launches: both count it (the device waits).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

def activity_block(fn, make_args, flusher, calls: int) -> tuple[list[float | None], list[float], dict]:
    """``calls`` calls timed the judge's way (events around a device-wide synchronize), each also recorded by
    :class:`kernelgym.judge.activity.ActivityRecorder`; returns the activity spans, the judge's times and per-block
    figures."""
    import torch

    from kernelgym.judge.activity import ActivityRecorder

    judge_ms = []
    host0 = time.perf_counter()
    with torch.no_grad(), ActivityRecorder() as recorder:
        for i in range(calls):
            args = make_args(i)
            flusher()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            with recorder.call(i):
                fn(*args)
            torch.cuda.synchronize()
            end.record()
            end.synchronize()
            judge_ms.append(start.elapsed_time(end))
        stop0 = time.perf_counter()  # the profiler stops and its records are parsed on leaving the block
    loop_s, stop_s = time.perf_counter() - host0, time.perf_counter() - stop0
    if recorder.error:
        print("profiler:", recorder.error, flush=True)
    spans = recorder.calls
    figures = {"activities_per_call": statistics.mean(c["n"] for c in spans.values()) if spans else 0.0,
               "unlinked_per_call": statistics.mean(c["unlinked"] for c in spans.values()) if spans else 0.0,
               "loop_ms_per_call": loop_s * 1e3 / calls, "stop_and_parse_ms": stop_s * 1e3}
    return [spans[i]["span_ms"] if i in spans else None for i in range(calls)], judge_ms, figures


def plain_loop_ms(fn, make_args, flusher, calls: int) -> float:
    """Host time per call of the same loop without the profiler (its cost is the difference)."""
    import torch

    t0 = time.perf_counter()
    with torch.no_grad():
        for i in range(calls):
            args = make_args(i)
            flusher()
            torch.cuda.synchronize()
            fn(*args)
            torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / calls


def measure(fn, make_args, fixed_args, calls: int) -> dict:
    from do_bench_agreement import do_bench_ms
    from kernelgym.judge.timing import L2Flusher

    flusher = L2Flusher("cuda:0")
    with_profiler = activity_block(fn, make_args, flusher, 3)  # warm-up, profiler included
    del with_profiler
    spans, judge_ms, figures = activity_block(fn, make_args, flusher, calls)
    measured = [(s, j) for s, j in zip(spans, judge_ms) if s is not None]
    row = {"judge": statistics.median(judge_ms),
           "activity": statistics.median(s for s, _ in measured) if measured else None,
           "gap": statistics.median(j - s for s, j in measured) if measured else None,
           "calls_without_activity": len(spans) - len(measured),
           "do_bench": do_bench_ms(fn, fixed_args), **figures}
    row["plain_loop_ms_per_call"] = plain_loop_ms(fn, make_args, flusher, calls)
    return row


def adversaries():
    """(name, module, honest twin) for the adversarial forwards of the module docstring, on 4096 x 4096 fp16."""
    import torch
    import torch.nn as nn

    n = 4096

    class Base(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.randn(n, n, device="cuda:0", dtype=torch.float16) / n ** 0.5)
            self.side = torch.cuda.Stream(device="cuda:0", priority=0)
            self.buffer = torch.randn(n, n, device="cuda:0", dtype=torch.float16)

    class Honest(Base):
        def forward(self, x):
            return x @ self.w

    class SideTail(Base):
        def forward(self, x):
            y = torch.empty_like(x)
            y[0].zero_()  # the current stream's only work
            self.side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.side):
                torch.matmul(x, self.w, out=y)
            return y

    class HonestCopy(Base):
        def forward(self, x):
            return self.buffer.clone()

    class CopyTail(Base):
        def forward(self, x):
            y = torch.empty_like(x)
            y[0].zero_()
            self.side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(self.side):
                y.copy_(self.buffer, non_blocking=True)
            return y

    class HostFirst(Base):
        def forward(self, x):
            time.sleep(0.001)
            return x @ self.w

    class HostBetween(Base):
        def forward(self, x):
            h = x @ self.w
            torch.cuda.synchronize()  # the host waits for the first matmul, then works for 1 ms
            time.sleep(0.001)
            return h @ self.w

    class TwoMatmuls(Base):
        def forward(self, x):
            return (x @ self.w) @ self.w

    return [("side_tail", SideTail(), Honest()), ("copy_tail", CopyTail(), HonestCopy()),
            ("host_first", HostFirst(), Honest()), ("host_between", HostBetween(), TwoMatmuls())]


def probe(model, args: list) -> None:
    """Print every record the profiler keeps of one annotated call (and how many device records a CUDA-only
    profile keeps of the same call): which records a launch path leaves, for a call without spans."""
    import torch
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile, record_function

    with torch.no_grad():
        model(*args)
        torch.cuda.synchronize()
        for activities in ([ProfilerActivity.CPU, ProfilerActivity.CUDA], [ProfilerActivity.CUDA]):
            with profile(activities=activities) as prof:
                with record_function("probe.call"):
                    model(*args)
                torch.cuda.synchronize()
            events = prof.profiler.kineto_results.events()
            t0 = min(ev.start_ns() for ev in events) if events else 0
            print(f"probe activities={[a.name for a in activities]} records={len(events)}", flush=True)
            for ev in events[:40]:
                kind = "cuda" if ev.device_type() == DeviceType.CUDA else "cpu"
                print(f"  {kind} {ev.name()[:48]!r} corr {ev.correlation_id()} linked {ev.linked_correlation_id()} "
                      f"start {(ev.start_ns() - t0) / 1e3:.1f}us end {(ev.end_ns() - t0) / 1e3:.1f}us", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default="L1/15_relu,L1/28_softmax,L1/1_matmul_square,L3/19_multi_head_self_attention")
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--json", default=None)
    ap.add_argument("--probe", action="store_true", help="print the profiler's records of one call of the first "
                                                          "task's solution, then stop")
    args = ap.parse_args()

    import torch

    if not torch.cuda.is_available():
        print("the activity timing experiment needs a GPU", file=sys.stderr)
        return 2
    from do_bench_agreement import load_candidate
    from kernelgym.data.policies import ReplayPolicy
    from kernelgym.judge.inputs import build_model, make_inputs
    from kernelgym.tasks import load_tasks

    rows = []

    def emit(row):
        rows.append(row)
        print("  ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}" for k, v in row.items()), flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps(rows, indent=1))

    with tempfile.TemporaryDirectory() as tmp:
        tasks, policy = load_tasks(), ReplayPolicy()
        for task_id in args.tasks.split(","):
            task = tasks.get(task_id)
            module = task.load_module(small=False)
            fixed = make_inputs(module, 1, "cuda:0")
            if args.probe:
                solution = load_candidate(policy({"task_id": task_id}), Path(tmp))
                probe(build_model(module, solution, 0, "cuda:0", task.dtype, task.mode), fixed)
                return 0
            for side, cls in (("eager", module.Model),
                              ("solution", load_candidate(policy({"task_id": task_id}), Path(tmp)))):
                model = build_model(module, cls, 0, "cuda:0", task.dtype, task.mode)
                emit({"task": task_id, "side": side,
                      **measure(model, lambda i: make_inputs(module, 1000 + i, "cuda:0"), fixed, args.calls)})
                del model
                torch.cuda.empty_cache()
            del fixed
        gen = torch.Generator(device="cuda:0").manual_seed(0)

        def make_x(i):
            return [torch.randn(4096, 4096, device="cuda:0", dtype=torch.float16, generator=gen)]

        for name, adversary, honest in adversaries():
            fixed = make_x(0)
            for side, model in (("adversary", adversary), ("honest_twin", honest)):
                emit({"task": name, "side": side, **measure(model, make_x, fixed, args.calls)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
