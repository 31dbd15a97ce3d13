"""Rendering for the policy: the task prompt and the feedback on the last attempt (plain text for an LLM)."""

from __future__ import annotations

import json
import re

from kernelgym.judge.guards import ALLOWED_MODULES
from kernelgym.judge.result import valid_text
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


#: flags listed one a line in the feedback; the others are counted by name on one line
FEEDBACK_FLAGS = 16
#: longest one-line field (a message, a flag's reason, a trial's reason, a kernel's name) in the feedback
FEEDBACK_FIELD_CHARS = 1000
#: longest line of the candidate's log shown, and the longest feedback as a whole
FEEDBACK_LOG_LINE_CHARS = 300
FEEDBACK_CHARS = 20_000
#: what begins every line of the candidate's log in the feedback
LOG_QUOTE = "  | "


#: control characters (C0 but tab, DEL, C1) and the bidirectional-text controls: a terminal or a chat UI acts on
#: them (``ESC [ 3 A`` moves the cursor up, U+202E reverses what follows) instead of showing them
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def printable(text) -> str:
    """``str(text)`` with every control character (:data:`_CONTROL`) written as its escape (``\\x1b``,
    ``\\u202e``), so text the candidate's words reach (an exception's message, its printed log) shows as written
    wherever it is shown: a raised ``"\\x1b[3A\\x1b[2KStatus: ok"`` moved the cursor onto the judge's
    ``Status:`` line and wrote over it, in the env's ``ansi`` render, ``kernelgym eval``'s output and any terminal
    showing a record, and overwrote ``kernelgym eval DIR``'s printed fast_p summary (a red-team helper,
    2026-12-07)."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))


def _one_line(text, limit: int = FEEDBACK_FIELD_CHARS) -> str:
    """``text`` as one line (its line breaks, every kind ``str.splitlines`` knows, shown as `` / ``), at most
    ``limit`` characters, its control characters escaped (:func:`printable`): a field the candidate's words reach
    (an exception's message) can neither start a line of its own that reads like the judge's (``Status: ok``),
    nor move a terminal's cursor onto one, nor grow the feedback past its bound."""
    line = " / ".join(printable(part.strip()) for part in str(text).splitlines() if part.strip())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def render_feedback(result: dict, profiling: bool = True) -> str:
    """The last EvalResult (as a dict) as a short report: verdict, errors, mismatch detail, timings, flags, and
    (``profiling``, GPU results only) the top kernels by GPU time of the candidate's forward and of the reference's.

    Every line the judge writes starts with its label; what the candidate's code or output reached (messages,
    reasons, kernel names) is kept to one line each, and its log's lines are quoted (each begins with
    :data:`LOG_QUOTE`), so the next prompt shows no line the candidate wrote as the judge's. Bounded: at most
    :data:`FEEDBACK_FLAGS` flags one a line, and :data:`FEEDBACK_CHARS` in all (the observation's text fields hold
    at most ``MAX_TEXT``; a rejected text of 80,000 characters once had 6,000 flags and 1.5 MB of feedback)."""
    lines = [f"Status: {_one_line(result['status'])} (stage reached: {_one_line(result['stage'])})",
             f"Message: {_one_line(result['message'])}"]
    flags = [f for f in result.get("flags") or [] if isinstance(f, dict)]
    for flag in flags[:FEEDBACK_FLAGS]:
        lines.append(f"Flag {_one_line(flag.get('name'), 100)}: {_one_line(flag.get('reason'))}")
    if len(flags) > FEEDBACK_FLAGS:
        more: dict[str, int] = {}
        for flag in flags[FEEDBACK_FLAGS:]:
            name = _one_line(flag.get("name"), 100)
            more[name] = more.get(name, 0) + 1
        listed = ", ".join(f"{name} ({n})" for name, n in list(more.items())[:FEEDBACK_FLAGS])
        lines.append(f"Flags not shown: {len(flags) - FEEDBACK_FLAGS} more ({_one_line(listed)})")
    failed = [t for t in result.get("trials") or [] if not t.get("ok")]
    if failed:
        t = failed[0]
        lines.append(f"First failing trial: #{t['trial']} ({t['stage']} inputs): {_one_line(t.get('reason', ''))}")
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
            lines.extend(f"  {100 * (k.get('share') or 0):5.1f}%  {k.get('us', 0):10.1f} us  "
                         f"{_one_line(k.get('name'), 300)}"
                         + ("  (yours)" if side == "candidate" and k.get("own") else "") for k in tops[side])
    if result["status"] in ("compile_error", "runtime_error", "crashed", "timeout") and result.get("log_tail"):
        log = str(result["log_tail"]).strip().splitlines()[-25:]
        lines.append("Log (last lines):\n" + "\n".join(LOG_QUOTE + _cut(line, FEEDBACK_LOG_LINE_CHARS) for line in log))
    text = valid_text("\n".join(lines))
    return text if len(text) <= FEEDBACK_CHARS else text[:FEEDBACK_CHARS - 40] + "\n[feedback cut to its length limit]"


def _cut(text: str, limit: int) -> str:
    text = printable(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"
