"""Worker start-up off the critical path: the same candidates through one Judge, without and with a worker
started one evaluation ahead (``prestart_workers``, kernelgym/judge/launch.py).

    python benchmarks/worker_start.py [--n 24] [--device cpu|cuda:0] [--profile quick] [--json out.json]

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


def run(judge, task, texts, profile) -> dict:
    results = []
    judge.evaluate(task, texts[0], profile=profile)  # warm the baseline cache and (with prestart) start a spare
    started = time.monotonic()
    for text in texts:
        results.append(judge.evaluate(task, text, profile=profile))
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
    args = ap.parse_args()

    from kernelgym.judge.runner import Judge
    from kernelgym.tasks import load_tasks
    from kernelgym.testing.candidates import GOOD, TEST_TASKS, candidate

    task = load_tasks(TEST_TASKS).get("L1/1_scaled_relu")
    kinds = [GOOD, candidate(expr="x"), candidate(expr="tl.maximum(x, 0.0) * undefined_name_kg")]
    texts = [kinds[i % len(kinds)] for i in range(args.n)]
    report = {}
    for prestart in (False, True):
        judge = Judge(device=args.device, cache_dir=args.cache_dir, prestart_workers=prestart)
        try:
            report["prestart" if prestart else "plain"] = figures = run(judge, task, texts, args.profile)
        finally:
            judge.close()
        print(f"{'prestart' if prestart else 'plain':>8} on {judge.device}: {json.dumps(figures)}", flush=True)
    plain, ahead = report["plain"], report["prestart"]
    report["speedup"] = round(plain["wall_s"] / ahead["wall_s"], 3)
    print(f"prestart / plain throughput: {report['speedup']}x", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1))
    return 0 if plain["statuses"] == ahead["statuses"] else 1


if __name__ == "__main__":
    sys.exit(main())
