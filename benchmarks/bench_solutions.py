"""Evaluate bundled solutions through the judge and print per-stage durations, runtimes, speedups and their spread.

    python benchmarks/bench_solutions.py [--repeats 5] [--profile full] [--pattern 'L1/*'] [--backend triton]
                                         [--json out.json] [--device cuda:0]

Each repeat is an independent evaluation (new worker process, new seeds, new timing, and the eager baseline timed
again, interleaved with the candidate's calls, as in normal use). The speedup's CV over the repeats is printed, and
the JSON (written again after every task, so a run cut short keeps what finished) also has each repeat's figures and
the CVs of the candidate's and eager's medians alone: which side the speedup's spread comes from. A task is not
started where the last one's time would take the run past ``--budget-s``.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelgym.data.policies import ReplayPolicy  # noqa: E402
from kernelgym.judge.runner import Judge  # noqa: E402
from kernelgym.tasks import load_tasks  # noqa: E402


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="kernelgym bench", description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5,
                    help="independent evaluations of each solution (default 5); the speedup CV is over these")
    ap.add_argument("--profile", default="full", choices=["quick", "full"],
                    help="evaluation profile (default full: fresh interleaved eager timing every time)")
    ap.add_argument("--pattern", default="*", help="fnmatch pattern over task ids, e.g. 'L1/*' (default: all)")
    ap.add_argument("--backend", default="triton", choices=["triton", "cuda"],
                    help="which bundled solutions to time (default triton)")
    ap.add_argument("--device", default=None, help="cpu or cuda[:i] (default: the GPU if present, else cpu)")
    ap.add_argument("--cache-dir", default=None, help="baseline cache folder (default ~/.cache/kernelgym)")
    ap.add_argument("--json", default=None, metavar="FILE", help="also write every row to this JSON file")
    ap.add_argument("--budget-s", type=float, default=None, help="stop starting new tasks after this many seconds")
    return ap


def main() -> int:
    from kernelgym.hardware import require_device

    args = build_parser().parse_args()
    args.device = require_device(args.device)

    tasks = load_tasks()
    policy = ReplayPolicy(backend=args.backend)
    ids = [i for i in policy.task_ids() if fnmatch.fnmatch(i, args.pattern) and i in tasks]
    if not ids:
        print(f"kernelgym: error: no bundled {args.backend} solution matches --pattern {args.pattern!r} "
              f"({len(policy.task_ids())} solutions, e.g. {', '.join(policy.task_ids()[:2])})", file=sys.stderr)
        return 2
    judge = Judge(device=args.device, cache_dir=args.cache_dir)
    print(f"device: {judge.describe_device()}  versions: {judge.versions()}  profile: {args.profile}  "
          f"tasks: {len(ids)}  repeats: {args.repeats}", flush=True)
    header = (f"{'task':<44} {'status':<10} {'eager ms':>9} {'kernel ms':>10} {'speedup':>8} {'cv %':>6} "
              f"{'compile s':>9} {'correct s':>9} {'timing s':>8} {'total s':>8}")
    print(header, flush=True)
    rows = []
    for task_id in within_budget(ids, args.budget_s):
        task = tasks.get(task_id)
        text = policy({"task_id": task_id})
        results = [judge.evaluate(task, text, backend=args.backend, profile=args.profile)
                   for _ in range(args.repeats)]
        ok = [r for r in results if r.status == "ok"]
        speedups = [r.speedup for r in ok if r.speedup]
        cv = cv_pct(speedups)
        first = results[0]
        dur = {k: statistics.median(r.durations.get(k, 0.0) for r in results)
               for k in ("startup", "compile", "correctness", "timing", "total")}
        status = "ok" if len(ok) == len(results) else f"{len(ok)}/{len(results)} ok"
        row = {"task": task_id, "status": status, "eager_ms": first.baseline_ms,
               "kernel_ms": statistics.median([r.runtime_ms for r in ok]) if ok else None,
               "speedup": statistics.median(speedups) if speedups else None, "speedup_cv_pct": cv,
               "speedup_compile": statistics.median([r.speedup_compile for r in ok if r.speedup_compile] or [0])
               or None,
               "iou": first.iou, "mfu": first.mfu, "kernel_coverage": first.kernel_coverage,
               "kernel_cv_pct": cv_pct([r.runtime_ms for r in ok]), "eager_cv_pct": cv_pct([r.baseline_ms for r in ok]),
               "repeats": [{"status": r.status, "kernel_ms": r.runtime_ms, "eager_ms": r.baseline_ms,
                            "speedup": r.speedup, "baseline": (r.runtime_spread or {}).get("baseline")}
                           for r in results],
               "durations_median_s": dur, "messages": sorted({r.message for r in results if r.status != "ok"})}
        rows.append(row)
        fmt = lambda v, f: (format(v, f) if isinstance(v, (int, float)) and v == v else "-")  # noqa: E731
        print(f"{task_id:<44} {status:<10} {fmt(row['eager_ms'], '9.3f')} {fmt(row['kernel_ms'], '10.3f')} "
              f"{fmt(row['speedup'], '8.2f')} {fmt(cv, '6.2f')} {dur['compile']:9.2f} {dur['correctness']:9.2f} "
              f"{dur['timing']:8.2f} {dur['total']:8.2f}", flush=True)
        for m in row["messages"]:
            print(f"    ! {m[:300]}", flush=True)
        if args.json:
            Path(args.json).write_text(json.dumps({"device": judge.describe_device(), "versions": judge.versions(),
                                                   "profile": args.profile, "rows": rows}, indent=1))
    return 0


def within_budget(task_ids: list, budget_s: float | None):
    """``task_ids`` one by one, stopping (and saying so) where the next, taking as long as the last did, would not
    end within ``budget_s`` seconds of the first (``None`` or 0: all of them)."""
    started, last_s = time.monotonic(), 0.0
    for task_id in task_ids:
        if budget_s and time.monotonic() - started + last_s > budget_s:
            print(f"(budget of {budget_s:.0f} s: skipped the rest from {task_id})", flush=True)
            return
        task_started = time.monotonic()
        yield task_id
        last_s = time.monotonic() - task_started


def cv_pct(values: list) -> float:
    """The coefficient of variation in percent (NaN for fewer than two values)."""
    values = [v for v in values if v]
    return 100 * statistics.stdev(values) / statistics.mean(values) if len(values) > 1 else float("nan")


if __name__ == "__main__":
    sys.exit(main())
