"""Where a timed block's wall time per call goes, outside the worker: the host time of each step of
:meth:`kernelgym.judge.timing.CallTimer.time_block` (inputs, samples, flush, the timed call, snapshot, scrub), for
null calls (a forward that only allocates the reference's outputs, as the worker's ``null`` blocks) and for a bundled
solution's forward, on the same inputs and with the same steps the worker runs; then null calls again, once per
``--after`` settle step (kind ``null_after_<step>``).

The runner's wall-clock bound subtracts the null calls' overhead from the candidate's block walls
(:mod:`kernelgym.judge.wallclock`); this script shows whether the candidate's steps outside its timed calls cost
what the null calls' do. A measuring script: the sandbox and the worker's watches are not here.

    python benchmarks/block_steps.py --task X/1_int8_gemm_w8a8_rowcol_scale --calls 5 --blocks 6 [--after none,empty_cache,sleep]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

import torch

from kernelgym.judge import timing
from kernelgym.judge.inputs import call_seed, make_inputs
from kernelgym.tasks.loading import load_tasks

SOLUTIONS = Path(__file__).resolve().parents[1] / "kernelgym" / "suite" / "solutions" / "triton"
#: the module-level helpers time_block calls, timed by name
#: what may be done before a null run that follows the candidate's (``--after``): is the candidate's process slower
#: for its allocator's cached memory, or for the GPU's state (clocks) right after its work?
SETTLES = ("none", "empty_cache", "sleep")
STEPS = ("sample_inputs", "changed_inputs", "layout", "snapshot_sample", "snapshot_key", "scrub", "_clone")


def instrument(spent: dict) -> None:
    """Wrap the helpers of :data:`STEPS` in :mod:`kernelgym.judge.timing` so that their host time adds up in
    ``spent`` (ms by name)."""
    for name in STEPS:
        original = getattr(timing, name)

        def timed(*args, _original=original, _name=name, **kwargs):
            t0 = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                spent[_name] += (time.perf_counter() - t0) * 1e3
        setattr(timing, name, timed)


def load_solution(task_id: str):
    """The bundled solution's module for ``task_id`` (imported from its file: Triton reads the source)."""
    path = SOLUTIONS / f"{task_id}.py"
    spec = importlib.util.spec_from_file_location("candidate", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["candidate"] = module
    spec.loader.exec_module(module)
    return module


def run(task_id: str, calls: int, blocks: int, device: str, after: tuple[str, ...] = ("none",)) -> dict:
    task = load_tasks().get(task_id)
    module = task.load_module(small=not device.startswith("cuda"))
    with torch.device(device):
        torch.manual_seed(0)
        reference = module.Model(*module.get_init_inputs()).to(device)
        torch.manual_seed(0)
        solution = load_solution(task_id).ModelNew(*module.get_init_inputs()).to(device)
    solution.load_state_dict(reference.state_dict(), strict=False)
    with torch.no_grad():
        refs = reference(*make_inputs(module, 1, device))
    refs = refs if isinstance(refs, (tuple, list)) else (refs,)
    specs = [(r.shape, r.dtype) for r in refs]

    def null(*args):
        made = tuple(torch.empty(s, dtype=d, device=device) for s, d in specs)
        return made[0] if len(made) == 1 else made

    report = {}
    runs = [("null", null), ("candidate", solution)] + [(f"null_after_{a}", null) for a in after]
    for kind, fn in runs:
        settle = kind.removeprefix("null_after_") if kind.startswith("null_after_") else None
        if settle == "empty_cache" and device.startswith("cuda"):
            torch.cuda.empty_cache()
        elif settle == "sleep":
            time.sleep(2.0)
        timer = timing.CallTimer(fn, lambda i: make_inputs(module, call_seed(7, i), device), device,
                                 scrub_released=True)
        with torch.no_grad():
            for _ in range(3):
                fn(*make_inputs(module, 3, device))
        torch.cuda.synchronize() if device.startswith("cuda") else None
        rows = []
        for b in range(blocks):
            spent: dict = defaultdict(float)
            instrument(spent)
            t0 = time.perf_counter()
            times = timer.time_block(calls, keep=[], changed=[], salt=b, layouts=[], samples=[], sample_key=b,
                                     after_call=lambda: None)
            wall = (time.perf_counter() - t0) * 1e3 / calls
            restore()
            rows.append({"wall_ms": wall, "timed_ms": statistics.median(times),
                         **{k: v / calls for k, v in spent.items()}})
        best = min(rows, key=lambda r: r["wall_ms"] - r["timed_ms"])
        report[kind] = {"overhead_ms": best["wall_ms"] - best["timed_ms"], "best_block": best,
                        "overheads_ms": [round(r["wall_ms"] - r["timed_ms"], 3) for r in rows]}
        print(task_id, kind, json.dumps({k: round(v, 3) if isinstance(v, float) else v
                                         for k, v in report[kind].items() if k != "best_block"}),
              {k: round(v, 3) for k, v in best.items()}, flush=True)
    return report


_ORIGINALS = {name: getattr(timing, name) for name in STEPS}


def restore() -> None:
    for name, value in _ORIGINALS.items():
        setattr(timing, name, value)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", action="append", required=True, help="a bundled task id with a solution")
    parser.add_argument("--calls", type=int, default=5)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--device", default="cuda:0" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--after", default="none",
                        help="null runs after the candidate's, each after one settle step (comma-separated): "
                             "none, empty_cache (torch.cuda.empty_cache()), sleep (2 s idle)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    after = tuple(a for a in args.after.split(",") if a)
    unknown = set(after) - set(SETTLES)
    if unknown:
        parser.error(f"--after: unknown {sorted(unknown)}; choose from {', '.join(SETTLES)}")
    out = {t: run(t, args.calls, args.blocks, args.device, after) for t in args.task}
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
