"""IOU and MFU of eager PyTorch on every task a GPU lint measured (issue #16: never above 100% of the ceilings).

    python benchmarks/eager_efficiency.py LINT_JSON CEILINGS [--top 10]

``LINT_JSON`` is the report of ``kernelgym tasks lint --device cuda --json`` (each task's eager time and the bytes
and FLOP rates its formulas imply); ``CEILINGS`` is the dict :func:`kernelgym.hardware.measure_ceilings` printed
in the same run (the last line of ``ceilings.txt`` from ``benchmarks/gpu_session.sh smoke``), or that dict as JSON.
IOU = implied bytes/s over the measured copy bandwidth; MFU = implied FLOP/s over the measured matmul rate of the
task's precision (:func:`kernelgym.hardware.precision_of`; the vendor's peak where none was measured, as the
judge does). Prints the highest of each and every figure above 100%; exit status 1 when there is one.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelgym.hardware import PEAKS, precision_of  # noqa: E402
from kernelgym.tasks import load_tasks  # noqa: E402


def read_ceilings(spec: str) -> dict:
    """The measured ceilings: a file whose last non-empty line is the printed dict, or the dict itself."""
    path = Path(spec)
    text = path.read_text().strip().splitlines()[-1] if path.is_file() else spec
    return dict(ast.literal_eval(text))


def efficiencies(rows: list[dict], ceilings: dict, vendor: dict, dtypes: dict,
                 precisions: dict | None = None) -> list[dict]:
    """One row per task with its IOU and MFU (None where the lint gave no rate or no ceiling applies); the MFU's
    ceiling is the task's precision (:func:`kernelgym.hardware.precision_of`: ``precisions``, the ones tasks name,
    else their dtype's), as the judge's."""
    out = []
    for row in rows:
        figures, task_id = row.get("figures") or {}, row["task_id"]
        precision = precision_of(dtypes.get(task_id, "float32"), (precisions or {}).get(task_id))
        bandwidth = ceilings.get("bandwidth_tbs") or vendor.get("bandwidth_tbs")
        compute = ceilings.get(precision) or vendor.get(precision)
        tbs, tflops = figures.get("implied_tbs"), figures.get("implied_tflops")
        out.append({"task": task_id, "precision": precision,
                    "iou": tbs / bandwidth if tbs is not None and bandwidth else None,
                    "mfu": tflops / compute if tflops is not None and compute else None})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("lint_json", help="report of `kernelgym tasks lint --device cuda --json`")
    ap.add_argument("ceilings", help="ceilings.txt of the same run, or the ceilings dict as JSON")
    ap.add_argument("--top", type=int, default=10, help="how many of the highest figures to print")
    ap.add_argument("--gpu", default="H200", help="vendor peaks for precisions without a measured ceiling")
    args = ap.parse_args()

    rows = json.loads(Path(args.lint_json).read_text())
    tasks = load_tasks()
    dtypes = {task_id: tasks.get(task_id).dtype for task_id in tasks.ids}
    precisions = {task_id: tasks.get(task_id).precision for task_id in tasks.ids}
    table = efficiencies(rows, read_ceilings(args.ceilings), PEAKS.get(args.gpu, {}), dtypes, precisions)
    for name in ("iou", "mfu"):
        ranked = sorted((r for r in table if r[name] is not None), key=lambda r: -r[name])
        print(f"{name.upper()}: {len(ranked)} tasks; highest: " +
              ", ".join(f"{r['task']} {100 * r[name]:.1f}%" for r in ranked[:args.top]))
    over = [r for r in table for name in ("iou", "mfu") if r[name] is not None and r[name] > 1.0]
    print(f"above 100% of the ceiling: {len(over)}" + "".join(f"\n  {r}" for r in over))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
