"""Evaluation throughput: a mixed batch through the Ray pool versus the plain single-process path.

    python benchmarks/throughput.py [--solutions 24] [--profile full] [--concurrency 8] [--plain 12]
                                    [--json out.json]

The batch is built from the bundled Triton solutions: for each, the solution itself (correct, timed), a copy whose
output is scaled by 1.5 (incorrect), and a copy whose first kernel uses an undefined name (a Triton compilation
error at the first launch). Prints evaluations per GPU-hour, the share of wall time the GPU spent in timing
(the exclusive phase), median time per stage, and the same figures for the first ``--plain`` candidates of the
batch evaluated one after another by a single Judge (the plain path).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelgym.data.policies import ReplayPolicy  # noqa: E402
from kernelgym.tasks import load_tasks  # noqa: E402

WRONG_SUFFIX = '''

_KernelgymOriginal = ModelNew


class ModelNew(_KernelgymOriginal):
    def forward(self, *args):
        out = super().forward(*args)
        return tuple(o * 1.5 for o in out) if isinstance(out, tuple) else out * 1.5
'''


def mixed_batch(n_solutions: int):
    tasks = load_tasks()
    policy = ReplayPolicy()
    items = []
    for task_id in [t for t in policy.task_ids() if t in tasks][:n_solutions]:
        task, text = tasks.get(task_id), policy.path(task_id).read_text()
        broken = re.sub(r"tl\.program_id\((\w+)\)", r"tl.program_id(\1) + undefined_name_kg", text, count=1)
        items += [("correct", task, text), ("incorrect", task, text + WRONG_SUFFIX), ("compile_error", task, broken)]
    return items


def summarize(kind_results, wall_s: float, timing_s: float) -> dict:
    by_stage = {}
    for _, r in kind_results:
        for k, v in r.durations.items():
            by_stage.setdefault(k, []).append(v)
    statuses = {}
    for kind, r in kind_results:
        statuses.setdefault(kind, {}).setdefault(r.status, 0)
        statuses[kind][r.status] += 1
    n = len(kind_results)
    return {"n": n, "wall_s": round(wall_s, 2), "evals_per_gpu_hour": round(n / wall_s * 3600, 1),
            "gpu_timing_share": round(timing_s / wall_s, 3) if wall_s else None,
            "median_stage_s": {k: round(statistics.median(v), 3) for k, v in sorted(by_stage.items())},
            "statuses_by_kind": statuses}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--solutions", type=int, default=24)
    ap.add_argument("--profile", default="full")
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--plain", type=int, default=12)
    ap.add_argument("--cache-dir", default="/tmp/kg-throughput")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    import ray

    from kernelgym.evaluators.ray_pool import RayEvalPool
    from kernelgym.judge.runner import Judge

    items = mixed_batch(args.solutions)
    print(f"batch: {len(items)} candidates from {args.solutions} solutions, profile {args.profile}", flush=True)

    # warm the baseline cache the same way for both paths (baselines are cached per task in normal use)
    ray.init(include_dashboard=False, log_to_driver=False)
    pool = RayEvalPool(concurrency_per_gpu=args.concurrency, dedupe=False, judge_kwargs={"cache_dir": args.cache_dir})
    print(f"actors: {pool.actor_info()}", flush=True)
    t0 = time.monotonic()
    results = [None] * len(items)
    for done, (i, r) in enumerate(pool.evaluate_many([(task, text) for _, task, text in items], profile=args.profile,
                                                     ordered=False), 1):
        results[i] = r
        sp = f"{r.speedup:.2f}x" if r.speedup else "-"
        print(f"[{done}/{len(items)} {time.monotonic() - t0:6.1f}s] {items[i][0]:<13} {r.task_id:<44} {r.status:<13} "
              f"{sp}", flush=True)
    wall = time.monotonic() - t0
    timing = sum(r.durations.get("timing", 0.0) for r in results)
    pooled = summarize([(k, r) for (k, _, _), r in zip(items, results)], wall, timing)
    print("pool:", json.dumps(pooled), flush=True)
    wrong = [(k, r.task_id, r.status, r.message[:160]) for (k, _, _), r in zip(items, results)
             if (k == "correct") != (r.status == "ok")]
    for w in wrong:
        print("  unexpected:", w, flush=True)
    pool.close()
    ray.shutdown()

    judge = Judge(cache_dir=args.cache_dir)
    plain_items = items[:args.plain]
    t0 = time.monotonic()
    plain_results = [judge.evaluate(task, text, profile=args.profile) for _, task, text in plain_items]
    wall = time.monotonic() - t0
    timing = sum(r.durations.get("timing", 0.0) for r in plain_results)
    plain = summarize([(k, r) for (k, _, _), r in zip(plain_items, plain_results)], wall, timing)
    print("plain:", json.dumps(plain), flush=True)
    rows = [{"kind": k, "task": r.task_id, "status": r.status, "speedup": r.speedup,
             "speedup_compile": r.speedup_compile, "runtime_ms": r.runtime_ms, "baseline_ms": r.baseline_ms,
             "compile_baseline_ms": r.compile_baseline_ms, "iou": r.iou, "mfu": r.mfu,
             "kernel_coverage": r.kernel_coverage, "ci95_ms": r.runtime_spread.get("ci95_ms"),
             "flags": r.flags, "message": r.message[:300]} for (k, _, _), r in zip(items, results)]
    if args.json:
        Path(args.json).write_text(json.dumps({"pool": pooled, "plain": plain, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
