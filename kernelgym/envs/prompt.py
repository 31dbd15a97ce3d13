"""Rendering for the policy: the task prompt and the feedback on the last attempt (plain text for an LLM)."""

from __future__ import annotations

import json

from kernelgym.judge.guards import ALLOWED_MODULES
from kernelgym.tasks import Task

BACKEND_GUIDE = {
    "triton": ("Write the kernels in Triton (`import triton`, `import triton.language as tl`, `@triton.jit`). "
               "Use torch only to allocate outputs and for views; do the computation in your kernels."),
    "cuda": ("Write CUDA kernels and build them with `torch.utils.cpp_extension.load_inline` (one `__global__` "
             "kernel or more). Use torch only to allocate outputs and for views."),
}


#: the static rules a policy trips most easily, stated up front (kernelgym/judge/guards.py has them all)
RULES = ("Import only from " + ", ".join(sorted(m for m in ALLOWED_MODULES if not m.startswith("_"))) + "; no "
         "try/except, global state, threads, streams, dynamic code (eval, exec, getattr, ...), dunder attributes other "
         "than __init__, private attributes of modules, match statements, * imports, torch.jit; keep the data of a "
         "float32 task in float32 or TF32 range (inputs may exceed float16's).")


def render_prompt(task: Task, hardware: dict, backend: str, feedback: str, turn: int, max_turns: int) -> str:
    """The ready-made prompt: instructions, the reference program, the hardware and the last feedback."""
    hw = json.dumps({k: v for k, v in hardware.items() if v not in (None, {}, "")}, sort_keys=True)
    parts = [
        "You optimise PyTorch programs with custom GPU kernels.",
        f"Task {task.id} (level {task.level}, category {task.category}, dtype {task.dtype}). Replace the reference "
        f"`Model` below with `class ModelNew(nn.Module)`: same constructor and forward signatures, same parameters "
        f"created in the same order, outputs within atol={task.atol:g}, rtol={task.rtol:g} of the reference.",
        BACKEND_GUIDE[backend],
        RULES,
        "Answer with one complete Python file in a ```python block.",
        "Reference program:\n```python\n" + task.source.strip() + "\n```",
        f"Hardware: {hw}",
        f"Attempt {turn + 1} of {max_turns}.",
    ]
    if feedback:
        parts.append("Feedback on your previous attempt:\n" + feedback)
    return "\n\n".join(parts)


def render_feedback(result: dict, profiling: bool = True) -> str:
    """The last EvalResult (as a dict) as a short report: verdict, errors, mismatch detail, timings, flags, and
    (``profiling``, GPU results only) the top kernels by GPU time of the candidate's forward and of the reference's."""
    lines = [f"Status: {result['status']} (stage reached: {result['stage']})", f"Message: {result['message']}"]
    for flag in result.get("flags") or []:
        lines.append(f"Flag {flag['name']}: {flag['reason']}")
    failed = [t for t in result.get("trials") or [] if not t.get("ok")]
    if failed:
        t = failed[0]
        lines.append(f"First failing trial: #{t['trial']} ({t['stage']} inputs): {t.get('reason', '')}")
    if result.get("runtime_ms") is not None:
        spread = result.get("runtime_spread") or {}
        timing = (f"Runtime: {result['runtime_ms']:.4g} ms (IQR {spread.get('iqr_ms', 0) or 0:.3g} ms, "
                  f"n={spread.get('n')}); eager PyTorch {result.get('baseline_ms') or float('nan'):.4g} ms")
        if result.get("speedup") is not None:
            timing += f"; speedup {result['speedup']:.3g}x"
        if not result.get("timing_meaningful"):
            timing += " [CPU interpreter: timings are not GPU figures]"
        lines.append(timing)
    for key, label in (("iou", "bandwidth use (IOU)"), ("mfu", "compute use (MFU)"),
                       ("kernel_coverage", "share of GPU time in your kernels")):
        if result.get(key) is not None:
            lines.append(f"{label}: {100 * result[key]:.1f}%")
    tops = result.get("top_kernels") or {}
    for side, label in (("candidate", "your forward"), ("reference", "the PyTorch reference")):
        if profiling and tops.get(side):
            lines.append(f"Top kernels of {label} by GPU time:")
            lines.extend(f"  {100 * (k.get('share') or 0):5.1f}%  {k.get('us', 0):10.1f} us  {k.get('name')}"
                         + ("  (yours)" if side == "candidate" and k.get("own") else "") for k in tops[side])
    if result["status"] in ("compile_error", "runtime_error", "crashed", "timeout") and result.get("log_tail"):
        lines.append("Log (last lines):\n" + "\n".join(result["log_tail"].strip().splitlines()[-25:]))
    return "\n".join(lines)
