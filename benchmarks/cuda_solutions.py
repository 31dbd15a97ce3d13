"""Build and evaluate every bundled CUDA (load_inline) solution (issue #16 item 4), in three phases that print as
they go:

1. **serial builds**: the first ``--serial`` solutions built one after another, each in its own fresh cache, on a
   CPU worker without a GPU (``Judge.prebuild``): the cold build time of one candidate;
2. **parallel builds**: every solution built by Ray CPU tasks at once (as :class:`RayEvalPool` prebuilds them),
   into the shared cache: the wall time of all builds, and the speed-up over building them one after another
   (mean serial build time × number of builds / parallel wall time);
3. **evaluation** (skipped by ``--build-only``): every solution through the pool on the GPU, which now only loads
   the cached builds (``compile`` is then the cached load): status, speedup and stage times.

    python benchmarks/cuda_solutions.py [--concurrency 12] [--serial 3] [--profile quick] [--json out.json]
    python benchmarks/cuda_solutions.py --build-only --arch 9.0   # phases 1-2 on a machine without a GPU

The build phases need a CUDA build of torch and nvcc (``CUDA_HOME``); ``--arch`` defaults to the GPU's.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelgym.data.policies import ReplayPolicy  # noqa: E402
from kernelgym.tasks import load_tasks  # noqa: E402


class Report:
    """The figures so far, written to ``--json`` after each one (a run cut by its time limit keeps them)."""

    def __init__(self, path: str | None):
        self.path, self.data = path, {"serial_builds": [], "parallel_builds": [], "evaluations": []}

    def add(self, phase: str, row: dict | None = None, **figures) -> None:
        if row is not None:
            self.data[phase].append(row)
        self.data.update(figures)
        if self.path:
            Path(self.path).write_text(json.dumps(self.data, indent=1))


def build_serially(tasks, policy, ids: list[str], arch: str, root: Path, report: Report) -> list[float]:
    """Build each of ``ids`` alone, in a fresh cache of its own; returns the build times in seconds."""
    from kernelgym.judge.runner import Judge

    times = []
    for i in ids:
        cache = root / f"serial-{len(times)}"
        shutil.rmtree(cache, ignore_errors=True)
        started = time.monotonic()
        failed = Judge(device="cpu", cache_dir=str(cache)).prebuild(tasks.get(i), policy.path(i).read_text(),
                                                                   arch=arch)
        took = time.monotonic() - started
        times.append(took)
        status = failed.status if failed else "built"
        print(f"[serial] {i:<44} {status:<14} {took:6.1f} s", flush=True)
        report.add("serial_builds", {"task": i, "status": status, "build_s": round(took, 2),
                                     "message": failed.message[:300] if failed else ""})
    return times


def build_in_parallel(tasks, policy, ids: list[str], arch: str, cache_dir: str, report: Report) -> float:
    """Build every one of ``ids`` as a Ray CPU task at once (one CPU each, as the pool's prebuild asks); returns the
    wall time. Each build's own time is measured inside its task (queueing for a CPU excluded)."""
    import ray

    started = time.monotonic()

    @ray.remote(num_cpus=1)
    def timed(task_dict: dict, text: str) -> tuple[float, object]:
        from kernelgym.judge.runner import Judge
        from kernelgym.tasks import Task

        t0 = time.monotonic()
        failed = Judge(device="cpu", cache_dir=cache_dir).prebuild(Task.from_dict(task_dict), text, arch=arch)
        return time.monotonic() - t0, failed

    refs = {timed.remote(tasks.get(i).to_dict(), policy.path(i).read_text()): i for i in ids}
    pending = list(refs)
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        took, failed = ray.get(done[0])
        status = failed.status if failed else "built"
        print(f"[parallel {time.monotonic() - started:6.1f} s] {refs[done[0]]:<44} {status:<14} {took:6.1f} s",
              flush=True)
        report.add("parallel_builds", {"task": refs[done[0]], "status": status, "build_s": round(took, 2),
                                       "message": failed.message[:300] if failed else ""})
    return time.monotonic() - started


def evaluate_all(tasks, policy, ids: list[str], args, report: Report, t0: float):
    from kernelgym.evaluators.ray_pool import RayEvalPool

    pool = RayEvalPool(concurrency_per_gpu=args.concurrency, dedupe=False, judge_kwargs={"cache_dir": args.cache_dir})
    futures = {pool.submit(tasks.get(i), policy.path(i).read_text(), backend="cuda", profile=args.profile): i
               for i in ids}
    for fut in cf.as_completed(futures):  # as they finish, with the time since the start: shows where time goes
        task_id, r = futures[fut], fut.result()
        sp = f"{r.speedup:.2f}x" if r.speedup else "-"
        stages = " ".join(f"{k} {v:.1f}s" for k, v in r.durations.items() if isinstance(v, (int, float)))
        print(f"[eval {time.monotonic() - t0:6.1f} s] {task_id:<44} {r.status:<14} {sp:>8}  {stages}  "
              f"{r.message[:120]}", flush=True)
        report.add("evaluations", {
            "task": task_id, "status": r.status, "speedup": r.speedup, "runtime_ms": r.runtime_ms,
            "baseline_ms": r.baseline_ms, "compile_cached_s": r.durations.get("compile"), "durations": r.durations,
            "finished_s": round(time.monotonic() - t0, 1), "kernel_coverage": r.kernel_coverage,
            "runtime_spread": r.runtime_spread, "message": r.message[:300]})
    print(f"pool: {dict(pool.stats)}", flush=True)
    rows = report.data["evaluations"]
    print(f"{len(rows)} of {len(ids)} CUDA solutions evaluated in {time.monotonic() - t0:.0f} s; ok: "
          f"{sum(r['status'] == 'ok' for r in rows)}; below 1.0x: "
          f"{[r['task'] for r in rows if r['status'] == 'ok' and (r['speedup'] or 0) < 1.0]}", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--profile", default="quick")
    ap.add_argument("--cache-dir", default="/tmp/kg-cuda", help="the shared build cache (emptied first)")
    ap.add_argument("--serial", type=int, default=3, help="solutions built one at a time first (0: none)")
    ap.add_argument("--arch", default=None, help="compute capability to build for (default: the GPU's)")
    ap.add_argument("--build-only", action="store_true", help="phases 1-2 only (no GPU needed with --arch)")
    ap.add_argument("--limit", type=int, default=None, help="only the first N solutions")
    ap.add_argument("--only", default=None, help="comma-separated task ids: only these solutions")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    import ray
    import torch

    arch = args.arch or "{}.{}".format(*torch.cuda.get_device_capability(0))
    tasks, policy, report = load_tasks(), ReplayPolicy(backend="cuda"), Report(args.json)
    ids = [i for i in policy.task_ids() if i in tasks]
    if args.only:
        wanted = args.only.split(",")
        unknown = sorted(set(wanted) - set(ids))
        if unknown:
            ap.error(f"no CUDA solution for {', '.join(unknown)}")
        ids = [i for i in ids if i in wanted]
    ids = ids[: args.limit]
    print(f"{len(ids)} CUDA solutions, building for compute capability {arch}", flush=True)
    root = Path(args.cache_dir)
    shutil.rmtree(root, ignore_errors=True)

    serial = build_serially(tasks, policy, ids[: args.serial], arch, root.with_name(root.name + "-serial"), report)
    ray.init(include_dashboard=False, log_to_driver=False)
    wall = build_in_parallel(tasks, policy, ids, arch, str(root), report)
    figures = {"parallel_wall_s": round(wall, 1), "builds": len(ids), "cpus": ray.cluster_resources().get("CPU")}
    if serial:
        figures["serial_mean_s"] = round(statistics.mean(serial), 2)
        figures["parallel_speedup"] = round(statistics.mean(serial) * len(ids) / wall, 2)
    report.add("parallel_builds", **figures)
    print(f"BUILDS {json.dumps(figures)}", flush=True)
    if not args.build_only:
        evaluate_all(tasks, policy, ids, args, report, time.monotonic())
    return 0


if __name__ == "__main__":
    sys.exit(main())
