"""How sharp the runner's wall-clock bound is for bundled solutions, by the number of calls per timed block
(device plan item 6; docs/SECURITY.md, Known limits).

    python benchmarks/wall_bound.py [--tasks L1/15_relu,...] [--blocks 5,20,50] [--device cuda:0] [--json out.json]

The runner turns its own clock on each block of candidate calls into a lower bound on the time per call
(:mod:`kernelgym.judge.wallclock`): the block's wall time per call, less the reference's per-call overhead and a
pipe allowance of 0.5 ms per block spread over its calls, divided by a slack of 1.25. Below about 0.1 ms per call
that allowance swallows the bound, so a worker that rewrote its own figures would be capped there by physics only.
More calls per block spread the allowance thinner, but the candidate's per-call steps (input samples, snapshots,
scrubbing) are more than the reference's, so a sharper bound could rise above an honest kernel's own time.

Per task and block size, one ``quick`` evaluation of the bundled solution with ``TimingConfig.block`` set, printing
the status and the result's ``runtime_spread`` bounds: ``reported_median_ms`` (the worker's figure),
``runner_bound_ms`` (the bound), their ratio, and ``runtime_ms`` (the larger of the two and the compared floor). An
honest kernel wants the ratio below 1 (its figure stands); a bound of 0 protects nothing. On the CPU the figures
are the interpreter's, good only for trying the script.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelgym.data.policies import ReplayPolicy  # noqa: E402
from kernelgym.judge.profiles import get_profile  # noqa: E402
from kernelgym.judge.runner import Judge  # noqa: E402
from kernelgym.tasks import load_tasks  # noqa: E402

#: reductions and one elementwise solution, the kinds with the shortest kernels (their H200 runtimes are not
#: recorded here yet: pass the fastest ones of the next `datasets` call with --tasks)
TINY = "L1/37_sum_dim,L1/41_argmax,L1/54_avg_pool_1d,L1/81_mse_loss,L1/17_sigmoid"


def profile_with_block(block: int, on_cpu: bool):
    """``quick`` with ``block`` calls per timed block (and the CPU's token timing given room for two blocks)."""
    quick = get_profile("quick")
    if on_cpu:
        cpu = dataclasses.replace(quick.cpu_timing, block=block, min_runs=2 * block, max_runs=2 * block)
        return quick.with_overrides(cpu_timing=cpu)
    return quick.with_overrides(timing=dataclasses.replace(quick.timing, block=block,
                                                           max_runs=max(quick.timing.max_runs, 4 * block)))


def row(task_id: str, block: int, result) -> dict:
    spread = result.runtime_spread or {}
    reported, bound = spread.get("reported_median_ms"), spread.get("runner_bound_ms")
    return {"task": task_id, "block": block, "status": result.status, "runtime_ms": result.runtime_ms,
            "reported_median_ms": reported, "runner_bound_ms": bound,
            "runner_fastest_wall_ms": spread.get("runner_fastest_wall_ms"),
            "runner_overhead_ms": spread.get("runner_overhead_ms"),
            "bound_over_reported": bound / reported if reported and bound is not None else None,
            "message": "" if result.status == "ok" else (result.message or "")[:160]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default=TINY)
    ap.add_argument("--blocks", default="5,20,50")
    ap.add_argument("--device", default=None, help="default: cuda:0 when there is a GPU, else cpu")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    import torch

    device = args.device or ("cuda:0" if torch.cuda.is_available() else "cpu")
    blocks = [int(b) for b in args.blocks.split(",")]
    tasks, policy = load_tasks(), ReplayPolicy()
    rows = []
    with tempfile.TemporaryDirectory() as cache:
        judge = Judge(device=device, cache_dir=cache)
        for task_id in args.tasks.split(","):
            task, text = tasks.get(task_id), policy({"task_id": task_id})
            for block in blocks:
                rows.append(row(task_id, block, judge.evaluate(task, text,
                                                               profile=profile_with_block(block, device == "cpu"))))
                print("  ".join(f"{k} {v:.4g}" if isinstance(v, float) else f"{k} {v}"
                                for k, v in rows[-1].items()), flush=True)
                if args.json:
                    Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0 if all(r["status"] == "ok" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
