"""Evaluate every bundled CUDA (load_inline) solution through the Ray pool: builds run as parallel CPU tasks
(prebuild), then the GPU actor evaluates. Prints status, build and evaluation times, speedup per solution.

    python benchmarks/cuda_solutions.py [--concurrency 8] [--profile quick] [--json out.json]
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelgym.data.policies import ReplayPolicy  # noqa: E402
from kernelgym.tasks import load_tasks  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--profile", default="quick")
    ap.add_argument("--cache-dir", default="/tmp/kg-cuda")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    import ray

    from kernelgym.evaluators.ray_pool import RayEvalPool

    tasks, policy = load_tasks(), ReplayPolicy(backend="cuda")
    ids = [i for i in policy.task_ids() if i in tasks]
    ray.init(include_dashboard=False, log_to_driver=False)
    pool = RayEvalPool(concurrency_per_gpu=args.concurrency, dedupe=False, judge_kwargs={"cache_dir": args.cache_dir})
    t0 = time.monotonic()
    futures = {pool.submit(tasks.get(i), policy.path(i).read_text(), backend="cuda", profile=args.profile): i
               for i in ids}
    rows = []
    for fut in cf.as_completed(futures):  # as they finish, with the time since the start: shows where time goes
        task_id, r = futures[fut], fut.result()
        rows.append({"task": task_id, "status": r.status, "speedup": r.speedup, "runtime_ms": r.runtime_ms,
                     "baseline_ms": r.baseline_ms, "compile_s": r.durations.get("compile"),
                     "durations": r.durations, "finished_s": round(time.monotonic() - t0, 1),
                     "kernel_coverage": r.kernel_coverage, "message": r.message[:300]})
        sp = f"{r.speedup:.2f}x" if r.speedup else "-"
        stages = " ".join(f"{k} {v:.1f}s" for k, v in r.durations.items() if isinstance(v, (int, float)))
        print(f"[{time.monotonic() - t0:6.1f} s] {task_id:<44} {r.status:<14} {sp:>8}  {stages}  {r.message[:120]}",
              flush=True)
        if args.json:  # kept as it grows, so a run stopped by its time limit still leaves its figures
            Path(args.json).write_text(json.dumps(rows, indent=1))
    print(f"pool: {dict(pool.stats)}", flush=True)
    print(f"{len(ids)} CUDA solutions in {time.monotonic() - t0:.0f} s; ok: {sum(r['status'] == 'ok' for r in rows)}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
