"""Where the judge's per-call times differ from ``triton.testing.do_bench``: each step of the judge's method varied
alone, on the same modules in one process. GPU only.

    python benchmarks/timing_method.py [--tasks L1/15_relu,L1/28_softmax] [--calls 60] [--json out.json]

On the H200 the judge's medians were 0.06-0.29 ms above do_bench's for the bundled solutions and 0.1-0.18 ms above
for eager (docs/results/do_bench_h200_2026-12-04_8bf5ba5.txt), a per-call offset rather than a ratio. The judge times
one call at a time on an idle GPU: fresh inputs, L2 flush, device synchronize, start event, the call, device
synchronize (so work on any stream is counted), end event. do_bench queues its calls back to back and records both
events on the stream without waiting. The variants, for the eager reference and the bundled solution of each task:

- ``judge``: :class:`kernelgym.judge.timing.CallTimer` itself (fresh inputs every call);
- ``same_inputs``: the judge's loop with one set of inputs for every call;
- ``end_before_sync``: the end event recorded right after the call, then the device synchronize;
- ``prequeued``: a GPU sleep of about 0.5 ms queued before the start event, so the host has launched the call's
  first kernels by the time the start event runs (the host's launch latency leaves the interval); otherwise the judge's;
- ``prequeued_end_before_sync``: both changes (what do_bench measures, one call at a time);
- ``do_bench``: ``triton.testing.do_bench`` median.

All of it runs twice: as is, then after one profiled forward in the process (``profiled``), as in the judge's worker
and runner. Prints the median of each (ms) and its difference from do_bench's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from do_bench_agreement import do_bench_ms, load_candidate  # noqa: E402
from kernelgym.data.policies import ReplayPolicy  # noqa: E402
from kernelgym.judge.inputs import build_model, make_inputs  # noqa: E402
from kernelgym.judge.timing import CallTimer, L2Flusher  # noqa: E402
from kernelgym.tasks import load_tasks  # noqa: E402

SLEEP_CYCLES = 1_000_000  # about 0.5 ms at the H200's clocks: longer than a forward's launch latency


def loop_ms(fn, make_args, flusher, calls: int, prequeue: bool, end_before_sync: bool) -> list[float]:
    """The judge's loop (:meth:`CallTimer.time_block`) with one or both of the two changes."""
    import torch

    times = []
    with torch.no_grad():
        for i in range(calls):
            args = make_args(i)
            flusher()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            if prequeue:
                torch.cuda._sleep(SLEEP_CYCLES)
            start.record()
            fn(*args)
            if end_before_sync:
                end.record()
                torch.cuda.synchronize()
            else:
                torch.cuda.synchronize()
                end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    return times


def variants(model, module, calls: int) -> dict[str, float]:
    import torch

    flusher = L2Flusher("cuda:0")
    fixed = make_inputs(module, 1, "cuda:0")

    def fresh(i):
        return make_inputs(module, 1000 + i, "cuda:0")

    def same(i):
        return fixed

    timer = CallTimer(model, fresh, "cuda:0", flusher)
    timer.warm_up(3)
    out = {"judge": statistics.median(timer.time_block(calls))}
    out["same_inputs"] = statistics.median(loop_ms(model, same, flusher, calls, False, False))
    out["end_before_sync"] = statistics.median(loop_ms(model, fresh, flusher, calls, False, True))
    out["prequeued"] = statistics.median(loop_ms(model, fresh, flusher, calls, True, False))
    out["prequeued_end_before_sync"] = statistics.median(loop_ms(model, fresh, flusher, calls, True, True))
    out["do_bench"] = do_bench_ms(model, fixed)
    del fixed
    torch.cuda.empty_cache()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default="L1/15_relu,L1/28_softmax,L1/1_matmul_square")
    ap.add_argument("--calls", type=int, default=60)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    import torch

    if not torch.cuda.is_available():
        print("the timing method comparison needs a GPU", file=sys.stderr)
        return 2
    tasks, policy = load_tasks(), ReplayPolicy()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for profiled in (False, True):
            if profiled:  # from here on the process has run the profiler once, as the judge's processes have
                from kernelgym.judge.profile import profiler

                with profiler("cuda:0"):
                    torch.zeros(1, device="cuda:0").add_(1)
            for task_id in args.tasks.split(","):
                task = tasks.get(task_id)
                module = task.load_module(small=False)
                sides = {"eager": module.Model,
                         "solution": load_candidate(policy({"task_id": task_id}), Path(tmp))}
                for side, cls in sides.items():
                    model = build_model(module, cls, 0, "cuda:0", task.dtype, task.mode)
                    row = {"task": task_id, "side": side, "after_profiler": profiled, **variants(model, module,
                                                                                                args.calls)}
                    rows.append(row)
                    base = row["do_bench"]
                    print(f"{task_id:<28} {side:<8} {'profiled' if profiled else 'plain':<8} " + "  ".join(
                        f"{k} {v:.3f} ({v - base:+.3f})" for k, v in row.items() if isinstance(v, float)), flush=True)
                    del model
                    torch.cuda.empty_cache()
                    if args.json:
                        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
