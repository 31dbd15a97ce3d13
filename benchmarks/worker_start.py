"""Worker start-up off the critical path, and the cost of the sandbox: the same candidates through one Judge per
mode: ``plain`` (sandboxed, started on demand), ``prestart`` (sandboxed, ``--spares`` workers started ahead,
kernelgym/judge/launch.py) and ``unsafe`` (no sandbox, on demand; every result flagged ``unsandboxed``).

    python benchmarks/worker_start.py [--n 24] [--device cpu|cuda:0] [--profile quick] [--modes plain,prestart,unsafe]
                                      [--spares 2] [--json out.json]

The candidates cycle through an honest kernel, a wrong one and one that fails to compile at its first launch, on
the scaled-relu test task, evaluated back to back as an RL loop or the Ray pool does. Prints, for each mode, the
wall time, evaluations per hour, the median ``startup`` stage (request sent -> worker ready) and the median total,
and the verdict counts (they must be the same in both modes).
"""

from __future__ import annotations

import argparse
import collections
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def run(judge, task, texts, profile, mode: str) -> dict:
    """Evaluate ``texts`` one after another (after one warm-up evaluation), printing each result as it comes."""
    results = []
    warm = judge.evaluate(task, texts[0], profile=profile)  # warm the baseline cache and (with prestart) a spare
    print(f"{mode:>8} warm-up: {warm.status} in {warm.durations.get('total', 0.0):.2f} s", flush=True)
    started = time.monotonic()
    for i, text in enumerate(texts):
        r = judge.evaluate(task, text, profile=profile)
        results.append(r)
        print(f"{mode:>8} {i + 1}/{len(texts)}: {r.status:<13} startup {r.durations.get('startup', 0.0):.3f} s, "
              f"total {r.durations.get('total', 0.0):.3f} s", flush=True)
    wall = time.monotonic() - started
    return {"n": len(texts), "wall_s": round(wall, 2), "evals_per_hour": round(len(texts) / wall * 3600, 1),
            "median_startup_s": round(statistics.median(r.durations.get("startup", 0.0) for r in results), 3),
            "median_total_s": round(statistics.median(r.durations["total"] for r in results), 3),
            "statuses": dict(collections.Counter(r.status for r in results))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=24)
    ap.add_argument("--device", default=None)
    ap.add_argument("--profile", default="quick")
    ap.add_argument("--cache-dir", default="/tmp/kg-worker-start")
    ap.add_argument("--json", default=None)
    ap.add_argument("--shape", default=None, help="ROWSxCOLS of the scaled-relu task (default: its own, 4096x65536)")
    ap.add_argument("--modes", default="plain,prestart,unsafe")
    ap.add_argument("--spares", type=int, default=2, help="workers started ahead in the prestart mode")
    args = ap.parse_args()

    from kernelgym.judge.runner import Judge
    from kernelgym.tasks import load_tasks
    from kernelgym.testing.candidates import GOOD, TEST_TASKS, candidate

    task = load_tasks(TEST_TASKS).get("L1/1_scaled_relu")
    if args.shape:
        import tempfile

        from kernelgym.testing.candidates import resized_relu_task

        task = resized_relu_task(tempfile.mkdtemp(prefix="kg-task-"), *map(int, args.shape.split("x")))
    kinds = [GOOD, candidate(expr="x"), candidate(expr="tl.maximum(x, 0.0) * tl.undefined_name_kg")]
    texts = [kinds[i % len(kinds)] for i in range(args.n)]
    report = {}
    settings = {"plain": {}, "prestart": {"prestart_workers": args.spares}, "unsafe": {"sandbox": "unsafe"}}
    for mode in args.modes.split(","):
        judge = Judge(device=args.device, cache_dir=args.cache_dir, **settings[mode])
        try:
            report[mode] = figures = run(judge, task, texts, args.profile, mode)
        finally:
            judge.close()
        print(f"{mode:>8} on {judge.device}: {json.dumps(figures)}", flush=True)
    if "plain" in report and "prestart" in report:
        report["speedup"] = round(report["plain"]["wall_s"] / report["prestart"]["wall_s"], 3)
        print(f"prestart / plain throughput: {report['speedup']}x", flush=True)
    if "plain" in report and "unsafe" in report:
        report["sandbox_cost_s"] = {k: round(report["plain"][k] - report["unsafe"][k], 3)
                                    for k in ("median_startup_s", "median_total_s")}
        print(f"sandbox cost per evaluation (plain - unsafe): {json.dumps(report['sandbox_cost_s'])}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    statuses = {json.dumps(report[m]["statuses"], sort_keys=True) for m in args.modes.split(",")}
    return 0 if len(statuses) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
