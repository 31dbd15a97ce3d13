"""The judge's timing against ``triton.testing.do_bench`` (median, L2 flushed) on the same kernels. GPU only.

    python benchmarks/do_bench_agreement.py [--n 12] [--pattern '*'] [--json out.json]

For each bundled Triton solution (up to ``--n``): the judge's median for the candidate (``full`` profile's timing,
without its torch.compile baseline, which this comparison does not use and which cost tens of seconds per task: on the
H200 only 2 rows fitted in 150 s; its own worker, fresh inputs per call) and for the eager reference, then, in this process, ``do_bench`` of the same
``ModelNew`` and of the reference ``Model`` at the default shapes, with quantiles (0.5,) so both sides are medians.
Prints the ratio judge / do_bench for both; the contract (issue: measurement fidelity) is agreement within 3% for
kernels of 1 ms and more. Exit status 1 when such a kernel disagrees by more.
"""

from __future__ import annotations

import argparse
import fnmatch
import importlib.util
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelgym.data.policies import ReplayPolicy  # noqa: E402
from kernelgym.judge.extract import extract_code  # noqa: E402
from kernelgym.judge.inputs import build_model, make_inputs  # noqa: E402
from kernelgym.judge.profiles import get_profile  # noqa: E402
from kernelgym.judge.runner import Judge  # noqa: E402
from kernelgym.tasks import load_tasks  # noqa: E402

TOLERANCE = 0.03


def load_candidate(text: str, folder: Path):
    """``ModelNew`` of a candidate's text, which may wrap the code in prose and a fence as a policy answers (the
    code is taken out as the judge takes it, :func:`kernelgym.judge.extract.extract_code`)."""
    source = extract_code(text)
    path = folder / f"candidate_{abs(hash(source))}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ModelNew


def do_bench_ms(model, inputs) -> float:
    import torch
    import triton.testing

    with torch.no_grad():
        return float(triton.testing.do_bench(lambda: model(*inputs), rep=500, quantiles=[0.5]))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=12)
    ap.add_argument("--pattern", default="*")
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()

    import torch

    if not torch.cuda.is_available():
        print("do_bench agreement needs a GPU", file=sys.stderr)
        return 2
    tasks, policy = load_tasks(), ReplayPolicy()
    ids = [i for i in policy.task_ids() if fnmatch.fnmatch(i, args.pattern) and i in tasks][:args.n]
    judge = Judge(device="cuda:0", cache_dir=args.cache_dir)
    profile = get_profile("full").with_overrides(compile_baseline=False)
    rows, bad = [], 0

    def save() -> None:  # after every row too: a run cut by its time limit keeps what it measured
        if args.json:
            Path(args.json).write_text(json.dumps({"device": judge.describe_device(), "rows": rows}, indent=1))

    print(f"{'task':<44} {'judge ms':>9} {'do_bench':>9} {'ratio':>6} {'eager':>9} {'do_bench':>9} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for task_id in ids:
            task = tasks.get(task_id)
            text = policy({"task_id": task_id})
            result = judge.evaluate(task, text, profile=profile)
            if result.status != "ok":
                print(f"{task_id:<44} {result.status}: {result.message[:120]}", flush=True)
                continue
            module = task.load_module(small=False)
            inputs = make_inputs(module, 1, "cuda:0")
            candidate = build_model(module, load_candidate(text, Path(tmp)), 0, "cuda:0", task.dtype, task.mode)
            reference = build_model(module, module.Model, 0, "cuda:0", task.dtype, task.mode)
            row = {"task": task_id, "judge_ms": result.runtime_ms, "do_bench_ms": do_bench_ms(candidate, inputs),
                   "judge_eager_ms": result.baseline_ms, "do_bench_eager_ms": do_bench_ms(reference, inputs)}
            row["ratio"] = row["judge_ms"] / row["do_bench_ms"]
            row["eager_ratio"] = row["judge_eager_ms"] / row["do_bench_eager_ms"]
            for value, ms in ((row["ratio"], row["do_bench_ms"]), (row["eager_ratio"], row["do_bench_eager_ms"])):
                bad += int(ms >= 1.0 and abs(value - 1) > TOLERANCE)
            rows.append(row)
            print(f"{task_id:<44} {row['judge_ms']:9.3f} {row['do_bench_ms']:9.3f} {row['ratio']:6.3f} "
                  f"{row['judge_eager_ms']:9.3f} {row['do_bench_eager_ms']:9.3f} {row['eager_ratio']:6.3f}", flush=True)
            del candidate, reference, inputs
            torch.cuda.empty_cache()
            save()
    print(f"{len(rows)} kernels compared; {bad} measurement(s) of >= 1 ms outside {TOLERANCE:.0%}")
    save()
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
