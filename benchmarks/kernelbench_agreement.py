"""Agreement with KernelBench's own evaluator on real LLM-written kernels (issue #14's measurement).

Both evaluators judge the same kernel files on the same GPU: KernelBench's ``eval_kernel_against_ref`` (run from a
KernelBench checkout, each kernel in a fresh subprocess, as KernelBench runs it) and kernelgym's judge on the
``KernelBench-*`` task set under each torch policy asked for. Prints agreement on "compiled" and on "correct" per
policy, every disagreement with both sides' reasons, and evaluations per GPU-hour of each.

    python benchmarks/kernelbench_agreement.py --kernelbench KB_CHECKOUT --kernels KB_CHECKOUT/triton_runs \\
        [--policies off,partial] [--limit N] [--jobs 8] [--skip-kernelbench | --skip-kernelgym] [--kb-jobs 1]
        [--budget-s S] [--resume earlier.json ... [--redo-kernelgym]] [--device-transfer] [--json out.json]

A run stopped by ``--budget-s`` or killed keeps every verdict it got in ``--json`` (saved after each one);
``--resume`` that file (for instance with ``--skip-kernelgym``) to run only what is missing, or with
``--redo-kernelgym`` to judge every kernel with kernelgym again under ``--policies`` (after a judge change) and keep
KernelBench's verdicts and kernelgym's under the other policies; kernelgym judges the kernels KernelBench has judged
first. ``--resume`` may be given several times (later files win): with ``--skip-kernelgym --skip-kernelbench`` that
merges runs into one table without judging anything.

``KB_CHECKOUT`` holds KernelBench's evaluator at HEAD (``src/kernelbench``; needs torch, numpy, pydantic; its LLM
client imports are stubbed where missing) and the problems the kernels were written for (``KernelBench/level*``,
from the ``sokserey/tritonDump`` branch); the kernels are files named ``level{L}_problem{ID}_triton.py`` anywhere
under ``--kernels`` (the ``sokserey/tritonDump`` branch keeps 134 of them under ``triton_runs/``). KernelBench's
code is run, never copied here.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
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


def _ends(text: str, head: int = 200, tail: int = 400) -> str:
    """The start and the end of a long message (the exception's name is at one end, its last words at the other)."""
    return text if len(text) <= head + tail else f"{text[:head]} [...] {text[-tail:]}"


def run_kernelbench(kb_root: Path, problem: Path, kernel: Path, timeout_s: float) -> dict:
    started = time.monotonic()
    try:
        done = subprocess.run([sys.executable, "-c", KERNELBENCH_SNIPPET, str(kb_root / "src"), str(problem),
                               str(kernel)], capture_output=True, text=True, timeout=timeout_s)
        line = next((x for x in done.stdout.splitlines() if x.startswith("KBRESULT ")), None)
        out = json.loads(line[len("KBRESULT "):]) if line else {
            "compiled": False, "correct": False, "error": _ends(done.stderr or done.stdout)}
    except subprocess.TimeoutExpired:
        out = {"compiled": False, "correct": False, "error": f"timeout after {timeout_s:.0f} s"}
    out["wall_s"] = round(time.monotonic() - started, 2)
    return out


#: what KernelBench's run says when the GPU's memory ran out (torch's exception and message, the allocator's hint)
OUT_OF_MEMORY = re.compile(r"out of memory|OutOfMemoryError|is allocated by PyTorch", re.IGNORECASE)


def not_judged(kb: dict) -> bool:
    """Whether KernelBench's run says nothing about the kernel: it ran out of GPU memory (several of its
    subprocesses at once on one GPU, each holding its problem's inputs and outputs) or hit this script's time limit
    (KernelBench has none of its own). Such a row counts as not judged: rerun alone with ``--alone-timeout-s``, or
    by ``--resume``."""
    return bool(OUT_OF_MEMORY.search(json.dumps(kb))) or str(kb.get("error", "")).startswith("timeout after")


#: the flag of a kernel whose own kernels never ran in the forward: a torch fallback, rejected under ``partial``
TORCH_FALLBACK = "no_custom_kernel"


def keep_earlier(rows: list[dict], earlier_rows: list[dict], redo=()) -> None:
    """Fill ``rows`` with the verdicts of an earlier run's ``earlier_rows`` (matched by kernel file name), replacing
    what ``rows`` holds: kernelgym's verdict under every policy except those in ``redo`` (to be judged again), and
    KernelBench's verdict when that run judged the kernel (a run that was not judged is never kept)."""
    done = {row["kernel"]: row for row in earlier_rows}
    for row in rows:
        earlier = done.get(row["kernel"], {})
        row["kernelgym"].update({p: v for p, v in earlier.get("kernelgym", {}).items() if p not in redo})
        if "kernelbench" in earlier and not not_judged(earlier["kernelbench"]):
            row["kernelbench"] = earlier["kernelbench"]


def judged_by_both(rows: list[dict], policy: str) -> list[dict]:
    return [r for r in rows if "kernelbench" in r and not not_judged(r["kernelbench"]) and policy in r["kernelgym"]]


def agreement(rows: list[dict], policy: str, key: str) -> float | None:
    pairs = [(r["kernelbench"][key], r["kernelgym"][policy][key]) for r in judged_by_both(rows, policy)]
    return sum(a == b for a, b in pairs) / len(pairs) if pairs else None


def summarize(rows: list[dict], policy: str) -> dict:
    """Agreement on compiled and on correct where both evaluators judged, the number of such kernels, and the
    agreement on correct without the torch fallbacks kernelgym rejected under ``policy`` (flag
    :data:`TORCH_FALLBACK`): a hack it catches by design, which KernelBench accepts."""
    both = judged_by_both(rows, policy)
    own = [r for r in both if TORCH_FALLBACK not in r["kernelgym"][policy].get("flags", [])]
    return {"kernels": len(both), "compiled_agreement": agreement(rows, policy, "compiled"),
            "correct_agreement": agreement(rows, policy, "correct"),
            "torch_fallbacks_rejected": len(both) - len(own),
            "correct_agreement_without_torch_fallbacks": agreement(own, policy, "correct")}


def as_completed_within(submit, n: int, jobs: int, deadline: float):
    """Yield ``(i, future)`` for ``i`` in ``range(n)`` as they complete, with at most ``jobs`` submitted and not
    done, and nothing submitted once ``time.monotonic()`` passes ``deadline`` (what was submitted still finishes)."""
    pending: dict = {}
    next_i = 0
    while next_i < n or pending:
        while next_i < n and len(pending) < jobs and time.monotonic() < deadline:
            pending[submit(next_i)] = next_i
            next_i += 1
        if not pending:
            return
        done, _ = wait(pending, return_when=FIRST_COMPLETED)
        for future in done:
            yield pending.pop(future), future


def judge_with_kernelgym(evaluator, items: list, rows: list[dict], policy: str, args, deadline: float) -> float:
    """Judge the kernels not judged yet under ``policy``, ``args.jobs`` at once and none started past ``deadline``,
    printing each verdict (with its stage times) as it arrives and filling ``rows[i]["kernelgym"][policy]``;
    returns the wall time in seconds."""
    started = time.monotonic()
    # the kernels KernelBench has judged first: a run cut short by the budget still adds to the agreement figures
    todo = sorted((i for i, row in enumerate(rows) if policy not in row["kernelgym"]),
                  key=lambda i: "kernelbench" not in rows[i])
    finished = 0

    def submit(k: int):
        task, text = items[todo[k]][:2]
        return evaluator.submit(task, text, profile=args.profile, torch_policy=policy)

    for k, future in as_completed_within(submit, len(todo), args.jobs, deadline):
        i, res = todo[k], future.result()
        finished += 1
        rows[i]["kernelgym"][policy] = {
            "compiled": res.compiled, "correct": res.correct, "status": res.status, "speedup": res.speedup,
            "message": res.message[:300], "flags": [f["name"] for f in res.flags],
            "durations": {key: round(v, 2) for key, v in res.durations.items()}}
        stages = " ".join(f"{key}={v:.1f}" for key, v in sorted(res.durations.items()))
        print(f"[{policy} {finished}/{len(todo)} {time.monotonic() - started:6.1f}s] {rows[i]['kernel']:<34} "
              f"{res.status:<13} {stages}", flush=True)
        save(args.json, rows, {})
    wall = time.monotonic() - started
    judged = sum(policy in row["kernelgym"] for row in rows)
    print(f"kernelgym [{policy}]: {judged} of {len(rows)} kernels judged, {finished} this run in {wall:.0f} s "
          f"({3600 * finished / max(wall, 1e-9):.0f} evaluations per GPU-hour, {args.jobs} at once)", flush=True)
    return round(wall, 1)


def judge_with_kernelbench(items: list, rows: list[dict], policies: list[str], args, deadline: float) -> float:
    """Run KernelBench's evaluator on the kernels it has not judged yet, ``args.kb_jobs`` subprocesses at once
    (its timings are then not KernelBench's one-at-a-time figures; its verdicts are unchanged); returns the wall
    time in seconds."""
    started = time.monotonic()
    todo = [i for i, row in enumerate(rows) if "kernelbench" not in row]
    ran = 0
    for jobs, limit in ((args.kb_jobs, args.timeout_s), (1, args.alone_timeout_s)):  # then the not judged, alone
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            def submit(k: int):
                _, _, ref, path = items[todo[k]]
                return pool.submit(run_kernelbench, args.kernelbench, ref, path, limit)

            for k, future in as_completed_within(submit, len(todo), jobs, deadline):
                row = rows[todo[k]]
                row["kernelbench"] = kb = future.result()
                kb["at_once"], ran = jobs, ran + 1
                print(f"{row['kernel']:<34} KernelBench compiled={kb['compiled']!s:<5} correct={kb['correct']!s:<5} "
                      f"({kb['wall_s']:.1f} s, {jobs} at once{', NOT JUDGED' if not_judged(kb) else ''}) | "
                      "kernelgym " + " ".join(f"{p}={row['kernelgym'].get(p, {}).get('status', '-')}"
                                              for p in policies), flush=True)
                save(args.json, rows, {})
        todo = [i for i in todo if not_judged(rows[i].get("kernelbench", {}))]  # kept, marked, until rerun
        if not todo or jobs == 1:
            break
    wall = time.monotonic() - started
    done = sum("kernelbench" in row and not not_judged(row["kernelbench"]) for row in rows)
    print(f"KernelBench: {done} of {len(rows)} kernels judged, {ran} runs this time in {wall:.0f} s "
          f"({3600 * ran / max(wall, 1e-9):.0f} runs per GPU-hour, {args.kb_jobs} at once, then the not judged "
          f"alone)", flush=True)
    return round(wall, 1)


def save(path: Path | None, rows: list[dict], walls: dict, summary: dict | None = None) -> None:
    """Write what is known so far (called after every verdict, so a run stopped by a time limit keeps its rows;
    written to a temporary file and renamed, so a kill mid-write leaves the previous version)."""
    if path is not None:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps({"rows": rows, "summary": summary, "seconds": walls}, indent=1))
        tmp.replace(path)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernelbench", required=True, type=Path, help="KernelBench checkout (src/ and KernelBench/)")
    ap.add_argument("--kernels", required=True, type=Path, help="folder searched for level*_problem*_triton.py")
    ap.add_argument("--levels", default="1,2", help="comma-separated levels to include (default 1,2)")
    ap.add_argument("--policies", default="off,partial", help="kernelgym torch policies to judge under")
    ap.add_argument("--profile", default="quick", help="kernelgym evaluation profile (quick or full)")
    ap.add_argument("--limit", type=int, default=None, help="at most this many kernels (in file order)")
    ap.add_argument("--only", default=None, help="comma-separated kernel file names: only these (--json then holds only their rows)")
    ap.add_argument("--jobs", type=int, default=8, help="kernelgym evaluations at once (one GPU, shared)")
    ap.add_argument("--timeout-s", type=float, default=600.0, help="KernelBench's limit per kernel")
    ap.add_argument("--skip-kernelbench", action="store_true", help="judge with kernelgym only (no GPU needed)")
    ap.add_argument("--device", default=None, help="kernelgym's device (default: GPU if present)")
    ap.add_argument("--json", type=Path, default=None, help="write every row and the summary here")
    ap.add_argument("--skip-kernelgym", action="store_true", help="run KernelBench's side only (with --resume)")
    ap.add_argument("--redo-kernelgym", action="store_true",
                    help="with --resume: keep KernelBench's verdicts and kernelgym's under the policies not asked "
                         "for, judge every kernel again under --policies")
    ap.add_argument("--resume", type=Path, action="append", default=[],
                    help="a JSON this script wrote: its verdicts are kept and only what is missing is run "
                         "(repeatable: a later file's verdicts replace an earlier one's)")
    ap.add_argument("--alone-timeout-s", type=float, default=400.0,
                    help="KernelBench's limit per kernel when a run that was not judged is repeated alone")
    ap.add_argument("--kb-jobs", type=int, default=1, help="KernelBench subprocesses at once (default 1, as it runs)")
    ap.add_argument("--budget-s", type=float, default=math.inf,
                    help="start nothing new after this many seconds (what runs finishes; rows are saved)")
    ap.add_argument("--device-transfer", action="store_true",
                    help="hand outputs over in device memory (kernelgym.judge.device_transfer): the default on a GPU "
                         "anyway; KERNELGYM_DEVICE_TRANSFER=0 sends them through host files")
    args = ap.parse_args()

    from kernelgym.evaluators import LocalEvaluator
    from kernelgym.judge import device_transfer, policy as torch_policy
    from kernelgym.tasks import load_kernelbench

    policies = [torch_policy.check(p) for p in args.policies.split(",")]
    levels = {int(x) for x in args.levels.split(",")}
    kernels = find_kernels(args.kernels, levels)
    if args.only:
        wanted = set(args.only.split(","))
        missing = sorted(wanted - {path.name for _, _, path in kernels})
        if missing:
            ap.error(f"no kernel file named {', '.join(missing)} under {args.kernels}")
        kernels = [k for k in kernels if k[2].name in wanted]
    kernels = kernels[: args.limit]
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

    for earlier_file in args.resume:
        if earlier_file.exists():
            earlier_rows = json.loads(earlier_file.read_text()).get("rows", [])
            keep_earlier(rows, earlier_rows, redo=policies if args.redo_kernelgym else ())
            print(f"resumed from {earlier_file}: {len(earlier_rows)} rows", flush=True)

    deadline = time.monotonic() + args.budget_s
    walls: dict[str, float] = {}
    if not args.skip_kernelgym:
        with LocalEvaluator(device=args.device, max_workers=args.jobs,
                            device_transfer=args.device_transfer or device_transfer.enabled()) as evaluator:
            for p in policies:
                walls[p] = judge_with_kernelgym(evaluator, items, rows, p, args, deadline)
    if not args.skip_kernelbench:
        walls["kernelbench"] = judge_with_kernelbench(items, rows, policies, args, deadline)

    summary = {p: summarize(rows, p) for p in policies}
    summary["seconds"] = walls
    print(json.dumps(summary, indent=1))
    unjudged = [row["kernel"] for row in rows if "kernelbench" in row and not_judged(row["kernelbench"])]
    if unjudged:
        print(f"not judged by KernelBench (out of memory or time limit; rerun with --resume): {', '.join(unjudged)}")
    for row in rows:
        if "kernelbench" not in row or not_judged(row["kernelbench"]):
            continue
        for p in [p for p in policies if p in row["kernelgym"]]:
            ours, theirs = row["kernelgym"][p], row["kernelbench"]
            if ours["correct"] != theirs["correct"]:
                print(f"DISAGREE [{p}] {row['kernel']}: kernelgym {ours['status']} ({ours['message'][:160]}; flags "
                      f"{ours['flags']}) vs KernelBench correct={theirs['correct']} "
                      f"{theirs.get('error', '') or json.dumps(theirs.get('metadata', {}))[:200]}")
    save(args.json, rows, walls, summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
