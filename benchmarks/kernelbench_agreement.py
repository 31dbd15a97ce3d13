"""Agreement with KernelBench's own evaluator on real LLM-written kernels (issue #14's measurement).

Both evaluators judge the same kernel files on the same GPU: KernelBench's ``eval_kernel_against_ref`` (run from a
KernelBench checkout, each kernel in a fresh subprocess, as KernelBench runs it) and kernelgym's judge on the
``KernelBench-*`` task set under each torch policy asked for. Prints agreement on "compiled" and on "correct" per
policy, every disagreement with both sides' reasons, and evaluations per GPU-hour of each.

    python benchmarks/kernelbench_agreement.py --kernelbench KB_CHECKOUT --kernels KB_CHECKOUT/triton_runs \\
        [--policies off,partial] [--limit N] [--jobs 8] [--skip-kernelbench] [--device-transfer] [--json out.json]

``KB_CHECKOUT`` holds KernelBench's evaluator at HEAD (``src/kernelbench``; needs torch, numpy, pydantic; its LLM
client imports are stubbed where missing) and the problems the kernels were written for (``KernelBench/level*``,
from the ``sokserey/tritonDump`` branch); the kernels are files named ``level{L}_problem{ID}_triton.py`` anywhere
under ``--kernels`` (the ``sokserey/tritonDump`` branch keeps 134 of them under ``triton_runs/``). KernelBench's
code is run, never copied here.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import time
from concurrent.futures import as_completed
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

KERNEL_NAME = re.compile(r"level(\d+)_problem(\d+)_triton\.py$")

#: run in a fresh interpreter per kernel: KernelBench's evaluator, its result as one JSON line
KERNELBENCH_SNIPPET = r"""
import json, sys, types, torch
sys.path.insert(0, sys.argv[1])
# KernelBench's package imports LLM clients and helpers its evaluator never calls; where one is not installed (the
# GPU machine has no network), an empty stand-in module lets the import succeed
for name, attrs in {"openai": ["OpenAI"], "litellm": ["completion"], "dotenv": ["load_dotenv"], "tqdm": ["tqdm"],
                    "requests": ["get", "post"]}.items():
    try:
        __import__(name)
    except ImportError:
        stub = types.ModuleType(name)
        for attr in attrs:
            setattr(stub, attr, lambda *a, **k: (a[0] if a else None))
        sys.modules[name] = stub
from kernelbench.eval import eval_kernel_against_ref
ref, cand = open(sys.argv[2]).read(), open(sys.argv[3]).read()
r = eval_kernel_against_ref(ref, cand, num_correct_trials=5, num_perf_trials=100, measure_performance=True,
                            backend="triton", device=torch.device("cuda:0"))
print("KBRESULT " + json.dumps({"compiled": bool(r.compiled), "correct": bool(r.correctness),
                                "runtime": r.runtime, "ref_runtime": r.ref_runtime,
                                "metadata": {k: str(v)[:300] for k, v in (r.metadata or {}).items()}}))
"""


def find_kernels(root: Path, levels: set[int]) -> list[tuple[int, int, Path]]:
    found = []
    for path in sorted(root.rglob("level*_problem*_triton.py")):
        match = KERNEL_NAME.search(path.name)
        if match and int(match.group(1)) in levels:
            found.append((int(match.group(1)), int(match.group(2)), path))
    return found


def problem_file(kb_root: Path, level: int, problem: int) -> Path | None:
    hits = sorted((kb_root / "KernelBench" / f"level{level}").glob(f"{problem}_*.py"))
    return hits[0] if hits else None


def run_kernelbench(kb_root: Path, problem: Path, kernel: Path, timeout_s: float) -> dict:
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-c", KERNELBENCH_SNIPPET, str(kb_root / "src"), str(problem),
                               str(kernel)], capture_output=True, text=True, timeout=timeout_s)
        line = next((x for x in done.stdout.splitlines() if x.startswith("KBRESULT ")), None)
        out = json.loads(line[len("KBRESULT "):]) if line else {
            "compiled": False, "correct": False, "error": (done.stderr or done.stdout)[-400:]}
    except subprocess.TimeoutExpired:
        out = {"compiled": False, "correct": False, "error": f"timeout after {timeout_s:.0f} s"}
    out["wall_s"] = round(time.monotonic() - started, 2)
    return out


def agreement(rows: list[dict], policy: str, key: str) -> float | None:
    pairs = [(r["kernelbench"][key], r["kernelgym"][policy][key]) for r in rows if "kernelbench" in r]
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else None


def judge_with_kernelgym(evaluator, items: list, rows: list[dict], policy: str, profile: str, jobs: int) -> float:
    """Judge every kernel under ``policy``, ``jobs`` at once, printing each verdict (with its stage times) as it
    arrives and filling ``rows[i]["kernelgym"][policy]``; returns the wall time in seconds."""
    started = time.monotonic()
    futures = {evaluator.submit(task, text, profile=profile, torch_policy=policy): i
               for i, (task, text, _, _) in enumerate(items)}
    for done, future in enumerate(as_completed(futures), 1):
        i, res = futures[future], future.result()
        rows[i]["kernelgym"][policy] = {
            "compiled": res.compiled, "correct": res.correct, "status": res.status, "speedup": res.speedup,
            "message": res.message[:300], "flags": [f["name"] for f in res.flags],
            "durations": {k: round(v, 2) for k, v in res.durations.items()}}
        stages = " ".join(f"{k}={v:.1f}" for k, v in sorted(res.durations.items()))
        print(f"[{policy} {done}/{len(items)} {time.monotonic() - started:6.1f}s] {rows[i]['kernel']:<34} "
              f"{res.status:<13} {stages}", flush=True)
    wall = time.monotonic() - started
    print(f"kernelgym [{policy}]: {len(items)} kernels in {wall:.0f} s "
          f"({3600 * len(items) / max(wall, 1e-9):.0f} evaluations per GPU-hour, {jobs} at once)", flush=True)
    return round(wall, 1)


def save(path: Path | None, rows: list[dict], walls: dict, summary: dict | None = None) -> None:
    """Write what is known so far (called after every phase and every KernelBench verdict, so a run stopped by a
    time limit keeps its rows)."""
    if path is not None:
        path.write_text(json.dumps({"rows": rows, "summary": summary, "seconds": walls}, indent=1))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernelbench", required=True, type=Path, help="KernelBench checkout (src/ and KernelBench/)")
    ap.add_argument("--kernels", required=True, type=Path, help="folder searched for level*_problem*_triton.py")
    ap.add_argument("--levels", default="1,2", help="comma-separated levels to include (default 1,2)")
    ap.add_argument("--policies", default="off,partial", help="kernelgym torch policies to judge under")
    ap.add_argument("--profile", default="quick", help="kernelgym evaluation profile (quick or full)")
    ap.add_argument("--limit", type=int, default=None, help="at most this many kernels (in file order)")
    ap.add_argument("--jobs", type=int, default=8, help="kernelgym evaluations at once (one GPU, shared)")
    ap.add_argument("--timeout-s", type=float, default=600.0, help="KernelBench's limit per kernel")
    ap.add_argument("--skip-kernelbench", action="store_true", help="judge with kernelgym only (no GPU needed)")
    ap.add_argument("--device", default=None, help="kernelgym's device (default: GPU if present)")
    ap.add_argument("--json", type=Path, default=None, help="write every row and the summary here")
    ap.add_argument("--device-transfer", action="store_true",
                    help="kernelgym hands outputs over in device memory (kernelgym.judge.device_transfer)")
    args = ap.parse_args()

    from kernelgym.evaluators import LocalEvaluator
    from kernelgym.judge import policy as torch_policy
    from kernelgym.tasks import load_kernelbench

    policies = [torch_policy.check(p) for p in args.policies.split(",")]
    levels = {int(x) for x in args.levels.split(",")}
    kernels = find_kernels(args.kernels, levels)[: args.limit]
    tasks = load_kernelbench(args.kernelbench, levels=sorted(levels))
    rows, items = [], []
    for level, problem, path in kernels:
        ref = problem_file(args.kernelbench, level, problem)
        task = next((t for t in tasks if t.path and ref and Path(t.path).name == ref.name and t.level == level), None)
        if task is None:
            print(f"skip {path.name}: no KernelBench problem {level}/{problem}", flush=True)
            continue
        rows.append({"kernel": path.name, "task_id": task.id, "kernelgym": {}})
        items.append((task, path.read_text(), ref, path))

    walls: dict[str, float] = {}
    with LocalEvaluator(device=args.device, max_workers=args.jobs, device_transfer=args.device_transfer) as evaluator:
        for p in policies:
            walls[p] = judge_with_kernelgym(evaluator, items, rows, p, args.profile, args.jobs)
            save(args.json, rows, walls)

    if not args.skip_kernelbench:
        started = time.monotonic()
        walls["kernelbench"] = 0.0
        for row, (_, _, ref, path) in zip(rows, items):
            row["kernelbench"] = run_kernelbench(args.kernelbench, ref, path, args.timeout_s)
            print(f"{row['kernel']:<34} KernelBench compiled={row['kernelbench']['compiled']!s:<5} "
                  f"correct={row['kernelbench']['correct']!s:<5} ({row['kernelbench']['wall_s']:.1f} s) | kernelgym "
                  + " ".join(f"{p}={row['kernelgym'][p]['status']}" for p in policies), flush=True)
            walls["kernelbench"] = round(time.monotonic() - started, 1)
            save(args.json, rows, walls)
        done = sum("kernelbench" in row for row in rows)
        print(f"KernelBench: {done} kernels in {walls['kernelbench']:.0f} s "
              f"({3600 * done / max(walls['kernelbench'], 1e-9):.0f} evaluations per GPU-hour, one at a time)")

    summary = {p: {"compiled_agreement": agreement(rows, p, "compiled"),
                   "correct_agreement": agreement(rows, p, "correct")} for p in policies}
    summary["seconds"] = walls
    print(json.dumps(summary, indent=1))
    for row in rows:
        if "kernelbench" not in row:
            continue
        for p in policies:
            ours, theirs = row["kernelgym"][p], row["kernelbench"]
            if ours["correct"] != theirs["correct"]:
                print(f"DISAGREE [{p}] {row['kernel']}: kernelgym {ours['status']} ({ours['message'][:160]}; flags "
                      f"{ours['flags']}) vs KernelBench correct={theirs['correct']} "
                      f"{theirs.get('error', '') or json.dumps(theirs.get('metadata', {}))[:200]}")
    save(args.json, rows, walls, summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
