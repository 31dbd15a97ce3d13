"""The GPU memory one evaluation really takes, against the memory budget's estimate of it (``Judge.memory_need``).

    python benchmarks/memory_peaks.py [--pattern 'L1/15*,L2/*'] [--order largest] [--interval-s 0.05] [--budget-s 180]
        [--json out.json]

Each bundled Triton solution whose task id matches ``--pattern`` is evaluated once, alone on the GPU (one judge, no
spare workers), while a thread asks the driver every ``--interval-s`` (``nvidia-smi --query-compute-apps``) what each
process holds on the device: the runner (this process) and everything else (the evaluation's worker: nothing else
runs). Printed per task: its eager footprint (the peak the needs count: :func:`kernelgym.judge.footprint.footprint`), the budget's estimate, the highest runner, worker and combined
figures seen, the runner allocator's own peak (``torch.cuda.max_memory_reserved``, exact where the polls are not),
and the combined peak over the estimate; the combined peak until the candidate was built against
``Judge.build_memory_need`` (what the evaluation holds until then); then the runner's allocated peak within each of
the session's steps (:meth:`kernelgym.judge.session.Session.step`, nested steps counted in each enclosing one too;
``(between)``: outside every step), exact from the allocator's own peak, which shows where the runner's memory goes.
Where that ratio stays well below 1 on every task, the estimate is loose and big tasks (L1/15: 39.6 GiB, so one at a
time on an H100) could share a GPU; above 1, the budget overfills it.
The polls miss short peaks (a dozen ms), so the figures are lower bounds. A task is not started where the last
one's time would take the run past ``--budget-s``; the JSON is written again after every task.
"""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
import os
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_solutions import within_budget  # noqa: E402
from kernelgym.data.policies import ReplayPolicy  # noqa: E402
from kernelgym.judge.footprint import footprint as eager_footprint  # noqa: E402
from kernelgym.judge.gpu_memory import memory_by_process  # noqa: E402
from kernelgym.judge.runner import Judge  # noqa: E402
from kernelgym.judge.session import Session  # noqa: E402
from kernelgym.tasks import load_tasks  # noqa: E402

GIB = 1 << 30


class PeakSampler:
    """Polls the driver's per-process account of ``device`` until stopped, keeping the highest runner (``pid``),
    other and combined figures seen (bytes) and the number of polls that answered."""

    def __init__(self, device: str, runner_pid: int, interval_s: float):
        self.device, self.runner_pid, self.interval_s = device, runner_pid, interval_s
        self.runner = self.others = self.together = self.polls = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="memory-peaks", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            held = memory_by_process(self.device)
            if held is not None:
                runner = held.get(self.runner_pid, 0)
                others = sum(n for pid, n in held.items() if pid != self.runner_pid)
                self.runner, self.others = max(self.runner, runner), max(self.others, others)
                self.together = max(self.together, runner + others)
                self.polls += 1
            self._stop.wait(self.interval_s)

    def __enter__(self) -> "PeakSampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


class StepPeaks:
    """While entered, every :meth:`Session.step` of this process is wrapped: at each step's start and end the
    allocator's peak since the last such point (``torch.cuda.max_memory_allocated``, then reset) is credited to
    every step open then (``(between)`` where none is), so ``peaks[name]`` is the most the runner had allocated at
    any moment inside a step of that name (bytes), and ``reserved`` the allocator's reserved peak over the whole
    time (the resets clear that one too). One evaluation at a time: the allocator's figures are the process's."""

    def __init__(self, device: str):
        import torch

        self.device, self.torch = torch.device(device), torch
        self.peaks: dict[str, int] = {}
        self.reserved = torch.cuda.memory_reserved(self.device)
        self._open: list[str] = []
        self._original = Session.step

    def _credit(self) -> None:
        peak = self.torch.cuda.max_memory_allocated(self.device)
        self.reserved = max(self.reserved, self.torch.cuda.max_memory_reserved(self.device))
        for name in self._open or ["(between)"]:
            self.peaks[name] = max(self.peaks.get(name, 0), peak)
        self.torch.cuda.reset_peak_memory_stats(self.device)

    def __enter__(self) -> "StepPeaks":
        original, peaks = self._original, self

        @contextlib.contextmanager
        def step(session, name: str):
            peaks._credit()
            peaks._open.append(name)
            try:
                with original(session, name):
                    yield
            finally:
                peaks._credit()
                peaks._open.pop()

        self._credit()
        Session.step = step
        return self

    def __exit__(self, *exc) -> None:
        self._credit()
        Session.step = self._original


class BuildPeak:
    """While entered, :meth:`Session.grow_memory` notes ``sampler.together`` (both processes' highest figure so
    far) just before the reservation grows: the evaluation's peak while it held only ``Judge.build_memory_need``
    (its null calls and its build, the candidate's compilation included), in :attr:`bytes` (``None`` where the
    evaluation never grew: it ended in its build). One evaluation at a time."""

    def __init__(self, sampler: PeakSampler):
        self.sampler, self.bytes = sampler, None
        self._original = Session.grow_memory

    def __enter__(self) -> "BuildPeak":
        original, peak = self._original, self

        def grow_memory(session) -> None:
            peak.bytes = peak.sampler.together
            original(session)

        Session.grow_memory = grow_memory
        return self

    def __exit__(self, *exc) -> None:
        Session.grow_memory = self._original


def chosen(ids: list[str], pattern: str, order: str = "listed", footprint=None) -> list[str]:
    """The ids matching any of ``pattern``'s comma-separated fnmatch patterns, in their order (``listed``) or the
    largest ``footprint(id)`` first (``largest``; ties in their order)."""
    patterns = [p.strip() for p in pattern.split(",") if p.strip()]
    picked = [i for i in ids if any(fnmatch.fnmatch(i, p) for p in patterns)]
    return sorted(picked, key=lambda i: -footprint(i)) if order == "largest" else picked


def footprint_ratios(rows: list[dict], fixed_bytes: int = 3 * GIB) -> list[str]:
    """What ``Judge.memory_need``'s multiple of the eager footprint would have had to be for every measured task:
    per task, (both processes' peak - ``fixed_bytes``, the estimate's constant part) over its footprint; the
    largest, the median, and the task of the largest. Tasks of a footprint under 1 GiB, where the constant part
    dominates, are left out; none left: no line."""
    ratios = sorted(((r["together_peak_bytes"] - fixed_bytes) / r["footprint_bytes"], r["task"]) for r in rows
                    if r.get("footprint_bytes") and r["footprint_bytes"] >= GIB)
    if not ratios:
        return []
    median = ratios[len(ratios) // 2][0]
    return [f"footprints needed beyond {fixed_bytes / GIB:.0f} GiB (tasks of 1 GiB or more, {len(ratios)}): largest "
            f"{ratios[-1][0]:.2f} ({ratios[-1][1]}), median {median:.2f}"]


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="memory_peaks", description=__doc__.splitlines()[0])
    ap.add_argument("--pattern", default="*",
                    help="fnmatch patterns over task ids, comma-separated (default: every solution)")
    ap.add_argument("--order", default="listed", choices=["listed", "largest"],
                    help="listed: the solutions' order; largest: the largest eager footprint first (default listed)")
    ap.add_argument("--device", default="cuda:0", help="the GPU (default cuda:0)")
    ap.add_argument("--profile", default="quick", choices=["quick", "full"], help="evaluation profile (default quick)")
    ap.add_argument("--interval-s", type=float, default=0.05, help="seconds between the driver's polls (default 0.05)")
    ap.add_argument("--budget-s", type=float, default=None, help="stop starting new tasks after this many seconds")
    ap.add_argument("--json", default=None, metavar="FILE", help="also write every row to this JSON file")
    return ap


def main() -> int:
    import torch

    args = build_parser().parse_args()
    if not torch.cuda.is_available():
        print("memory_peaks: error: no GPU here: the driver's account is what it measures", file=sys.stderr)
        return 2
    tasks, policy = load_tasks(), ReplayPolicy(backend="triton")
    ids = [i for i in policy.task_ids() if i in tasks]
    bounds = {task_id: eager_footprint(tasks.get(task_id)) for task_id in chosen(ids, args.pattern)}
    ids = chosen(ids, args.pattern, args.order, lambda task_id: bounds[task_id].peak)
    if not ids:
        print(f"memory_peaks: error: no bundled Triton solution matches --pattern {args.pattern!r}", file=sys.stderr)
        return 2
    judge = Judge(device=args.device, prestart_workers=False)
    print(f"device: {judge.describe_device()}  budget {judge.admission.budget.capacity / GIB:.1f} GiB  "
          f"tasks: {len(ids)}", flush=True)
    print(f"{'task':<44} {'status':<8} {'foot GiB':>8} {'need GiB':>8} {'runner':>7} {'alloc':>7} {'worker':>7} "
          f"{'both':>7} {'both/need':>9} {'polls':>5}", flush=True)
    rows = []
    for task_id in within_budget(ids, args.budget_s):
        task = tasks.get(task_id)
        footprint, traced = bounds[task_id].peak, bounds[task_id].traced  # the footprint the needs count
        need, build_need = judge.memory_need(task), judge.build_memory_need(task)
        torch.cuda.reset_peak_memory_stats(torch.device(args.device))
        with PeakSampler(args.device, os.getpid(), args.interval_s) as peaks, StepPeaks(args.device) as steps, \
                BuildPeak(peaks) as build:
            result = judge.evaluate(task, policy({"task_id": task_id}), profile=args.profile)
        allocator = steps.reserved
        row = {"task": task_id, "status": result.status, "footprint_bytes": footprint, "footprint_traced": traced,
               "footprint_sum_bytes": bounds[task_id].total,
               "need_bytes": need, "runner_peak_bytes": peaks.runner, "runner_allocator_peak_bytes": allocator,
               "worker_peak_bytes": peaks.others, "together_peak_bytes": peaks.together, "polls": peaks.polls,
               "together_over_need": peaks.together / need if need else None,
               "runner_allocated_by_step": steps.peaks, "build_need_bytes": build_need, "build_peak_bytes": build.bytes,
               "build_over_need": build.bytes / build_need if build.bytes is not None and build_need else None}
        rows.append(row)
        ratio = row["together_over_need"]
        print(f"{task_id:<44} {result.status:<8} {footprint / GIB:8.2f} {need / GIB:8.2f} {peaks.runner / GIB:7.2f} "
              f"{allocator / GIB:7.2f} {peaks.others / GIB:7.2f} {peaks.together / GIB:7.2f} "
              f"{ratio if ratio is not None else float('nan'):9.3f} {peaks.polls:5d}", flush=True)
        if build.bytes is not None:
            print(f"    until built: both {build.bytes / GIB:.2f} GiB against its need {build_need / GIB:.2f} "
                  f"({row['build_over_need']:.3f})", flush=True)
        print("    runner allocated GiB by step: " + ", ".join(
            f"{name} {n / GIB:.2f}" for name, n in sorted(steps.peaks.items(), key=lambda kv: -kv[1])), flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps({"device": judge.describe_device(), "rows": rows}, indent=1))
    judge.close()
    for line in footprint_ratios(rows):
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
