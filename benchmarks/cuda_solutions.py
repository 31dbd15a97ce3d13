"""Evaluate every bundled CUDA (load_inline) solution through the Ray pool: builds run as parallel CPU tasks
(prebuild), then the GPU actor evaluates. Prints status, build and evaluation times, speedup per solution.

    python benchmarks/cuda_solutions.py [--concurrency 8] [--profile quick] [--json out.json]
"""

from __future__ import annotations

import argparse
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
    futures = [(i, pool.submit(tasks.get(i), policy.path(i).read_text(), backend="cuda", profile=args.profile))
               for i in ids]
    rows = []
    for task_id, fut in futures:
        r = fut.result()
        rows.append({"task": task_id, "status": r.status, "speedup": r.speedup, "runtime_ms": r.runtime_ms,
                     "baseline_ms": r.baseline_ms, "compile_s": r.durations.get("compile"),
                     "kernel_coverage": r.kernel_coverage, "message": r.message[:300]})
        sp = f"{r.speedup:.2f}x" if r.speedup else "-"
        print(f"{task_id:<44} {r.status:<14} {sp:>8} compile {r.durations.get('compile', 0):.1f}s  {r.message[:150]}",
              flush=True)
    print(f"{len(ids)} CUDA solutions in {time.monotonic() - t0:.0f} s; ok: {sum(r['status'] == 'ok' for r in rows)}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
