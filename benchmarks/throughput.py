"""Evaluation throughput (issue #13): batches A and B through the Ray pool, the plain path, fidelity under load.

    python benchmarks/throughput.py [--batch A|B|both] [--solutions 32] [--grpo-tasks 8] [--samples 16]
                                    [--profile quick] [--concurrency 8[,12,...]] [--plain 12] [--fidelity N]
                                    [--budget-s S] [--alone-budget-s S] [--device-transfer] [--gpus 1,all]
                                    [--json out.json]

``--gpus 1,all`` runs the pool phase on one GPU, then on all of them, and prints issue #17's scaling figures
(efficiency = evaluations per GPU-hour on all over those on one, target >= 0.9; verdicts identical; median speedup
difference <= 2%); ``--ray-fake-gpus N`` gives a CPU-only local cluster N fake GPUs to test that path.
``--concurrency 8,12,16`` runs the pool phase once per level (evaluations at once per GPU), on each GPU count, and
prints the rate and p95 turnaround of each level side by side: the comparison measured in one run, on one machine.

The batches, built from the bundled Triton solutions (``kernelgym/suite/solutions/triton/L1..L3``):

* **A, mixed**: ``--solutions`` solutions picked round-robin over levels 1, 2 and 3; for each, the solution
  (correct, timed), a copy whose outputs are scaled by 1.5 (incorrect) and a copy whose first kernel uses an
  undefined name (a compile error on a GPU, a ``NameError`` at the launch in the interpreter): 3 x ``--solutions``.
* **B, GRPO-shaped**: ``--grpo-tasks`` tasks (round-robin over levels) x ``--samples`` samples: the solution and
  variants made from its text (:data:`VARIANTS`), cycled over the families *wrong* (outputs x 1.5, outputs + an
  offset above the tolerance, one element changed), *slower* (the forward run twice, an extra Triton copy pass over
  each output), *tuned* (``num_warps=`` rewritten up or down, a copy with a comment) and *failing* (undefined name
  in a kernel, a raise in the forward, outputs of the wrong shape). Every item is labelled with its family and
  expected verdict (*solution*, *slower*, *tuned*: ``ok``; the others not ok); a variant whose rewrite finds
  nothing to rewrite gives way to the next one, so labels stay honest. All samples go to ``evaluate_many`` in one
  call, so each task's samples share a batch plan (:mod:`kernelgym.judge.batch`).

Phases (``--batch both``): pool A, pool B, then, with the pool closed, the plain path of A and B, then fidelity of
A and B. Per pool batch it prints, as results come:

* evaluations per GPU-hour: evaluations / (wall x GPUs), wall from the first submission to the last result;
* latency per evaluation, p50 / p95 / max, two ways: **turnaround** = from ``submit`` returning (the pool accepted
  the item, past its backpressure) to the result, what a caller waits, including the wait in the actor's queue;
  **service** = the judge's own ``durations["total"]``, from a worker slot starting the evaluation to its verdict
  (it includes waits for the GPU lock, which the candidate is not charged for); queue = turnaround - service;
* GPU busy share over the wall: *timing* = union of the exclusive holds of the GPU lock / wall, *correctness* =
  union of the shared holds (compile, trials, profiled forward, checks of timed calls) outside them / wall, *idle*
  = the rest (holds from ``RayEvalPool.gpu_holds``, the lock's log, in ``time.monotonic()`` seconds: the pool's
  actors must run on this machine, as on one GPU host);
* the median of each stage duration, statuses by family, where each timed evaluation's eager figure came from
  (``interleaved``: timed beside it; ``batch``: its batch plan's shared figure), and every item whose status
  contradicts its label.

**Plain path**: ``--plain`` items spread evenly over the batch (so families and tasks mix as in the batch),
evaluated one after another by a single :class:`~kernelgym.judge.runner.Judge` (default settings but a GPU lock
that logs its holds; same profile); the gain is pool rate / plain rate, measured in this run. **Fidelity under
load**: the expected-ok candidates (``--fidelity N`` of them, spread evenly; default 16 of A and all of B)
evaluated alone by that Judge (plain-path runs of the same candidates are reused): batch vs alone speedup per
candidate, relative difference, verdict match; median |difference|, worst |difference| over kernels of at least
1 ms alone, verdict agreement. ``--fidelity-floor`` evaluates them alone once more and prints the same figures for
alone vs alone again: the noise floor under the batch-vs-alone ones.

The last lines are one summary per batch with each target of issue #13 and PASS/FAIL: >= 3000 (A) / >= 5000 (B)
evaluations per GPU-hour, p95 turnaround <= 30 s (p95 service shown beside it), fidelity median <= 2% and worst
<= 5%, verdicts identical. ``--budget-s``: in each pool phase, no new evaluation starts once the budget has passed
since the phase began (the pool stops accepting; the evaluations in flight finish) and the partial figures are
printed and written to ``--json``; ``--alone-budget-s`` (default: ``--budget-s``) bounds the plain path and fidelity
together in the same way, from their start. Leave the in-flight evaluations (about 2 x p95 service) between the
budgets and any hard limit.
On the CPU (Triton interpreter, small shapes) every figure is measured the same way but timings are not GPU figures.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import json
import signal
import math
import re
import statistics
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kernelgym.data.policies import ReplayPolicy  # noqa: E402
from kernelgym.evaluators.ray_pool import ACTOR_HOLDS, RayEvalPool  # noqa: E402
from kernelgym.judge import device_transfer  # noqa: E402
from kernelgym.judge.admission import SharedExclusiveLock  # noqa: E402
from kernelgym.tasks import Task, load_tasks  # noqa: E402

LEVELS = ("L1/", "L2/", "L3/")
TARGET_RATE = {"A": 3000.0, "B": 5000.0}  # evaluations per GPU-hour on one H200
TARGET_P95_S = 30.0
#: issue #17: evaluations per GPU-hour on N GPUs over those on one
TARGET_SCALING = 0.9
TARGET_FIDELITY = {"median": 0.02, "worst": 0.05}  # |batch speedup / alone speedup - 1|
FIDELITY_MIN_MS = 1.0  # the worst-case fidelity target covers kernels at least this slow (alone)
FIDELITY_A_DEFAULT = 16

_PRINT_LOCK = threading.Lock()


class Interrupted(Exception):
    """SIGTERM or SIGINT (``timeout`` past the budget): the batch being run stops, its finished evaluations are
    summarised and the JSON written."""


def _interrupt(signum, frame) -> None:
    for other in (signal.SIGTERM, signal.SIGINT):  # once: a second signal (`timeout` and a shell both passing one
        signal.signal(other, signal.SIG_IGN)        # on) would cut the summary short
    raise Interrupted(signal.Signals(signum).name)


def say(*parts, sep: str = " ") -> None:
    """Print at once (results arrive on pool threads) and flush."""
    with _PRINT_LOCK:
        print(*parts, sep=sep, flush=True)


# -- candidates ------------------------------------------------------------------------------------------------

_WRAPPER = '''

_KernelgymOriginal = ModelNew


def _kg_each(out, fn):
    return tuple(fn(o) for o in out) if isinstance(out, tuple) else fn(out)
{helpers}

class ModelNew(_KernelgymOriginal):
    def forward(self, *args):
{body}
'''

_BUMP = '''

def _kg_bump(o):
    o = o.clone()
    flat = o.view(-1)
    flat[0] += 1 + flat[0].abs()
    return o
'''

_COPY_PASS = '''

@triton.jit
def _kg_copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


def _kg_copy(o):
    if not (torch.is_tensor(o) and o.is_floating_point() and o.is_contiguous() and o.numel() > 0):
        return o
    dst = torch.empty_like(o)
    _kg_copy_kernel[(triton.cdiv(o.numel(), 1024),)](o, dst, o.numel(), BLOCK=1024)
    return dst
'''

_IMPORTS = ("import torch", "import triton\n", "import triton.language as tl")


def wrap_forward(text: str, body: str, helpers: str = "") -> str:
    """``text`` with ``ModelNew`` replaced by a subclass whose forward is ``body`` (indented 8 spaces)."""
    lines = "\n".join("        " + line for line in body.strip().splitlines())
    return text + _WRAPPER.format(helpers=helpers, body=lines)


def each_output(expr: str, helpers: str = "") -> Callable[[str, Task], str]:
    """A rewrite applying ``expr`` (of ``o``) to every output of the original forward."""
    return lambda text, task: wrap_forward(text, f"return _kg_each(super().forward(*args), lambda o: {expr})",
                                           helpers)


def offset_output(text: str, task: Task) -> str:
    """Outputs plus an offset well above the task's absolute tolerance (at least 1e-2)."""
    return each_output(f"o + {max(1e-2, 10 * task.atol):g}")(text, task)


def copy_pass(text: str, task: Task) -> str | None:
    """An extra Triton copy of every floating-point output (correct, slower); needs torch, triton and tl imported."""
    if not all(imp in text for imp in _IMPORTS):
        return None
    return each_output("_kg_copy(o)", _COPY_PASS)(text, task)


def undefined_name(text: str, task: Task) -> str | None:
    """The first ``tl.program_id(...)`` plus a name ``triton.language`` does not have: a Triton compile error (an
    AttributeError in the interpreter). Not a name the module never binds: the static checks refuse that before
    any worker starts (``unbound_name``), and this variant is there to fail in the compiler."""
    out, n = re.subn(r"tl\.program_id\(([^()]*)\)", r"tl.program_id(\1) + tl.undefined_name_kg", text, count=1)
    return out if n else None


def retune_warps(pick: Callable[[int], int]) -> Callable[[str, Task], str | None]:
    """A rewrite of the first literal ``num_warps=N`` to ``pick(N)``; None when the text has none."""
    def rewrite(text: str, task: Task) -> str | None:
        match = re.search(r"num_warps\s*=\s*(\d+)", text)
        if match is None:
            return None
        return text[:match.start()] + f"num_warps={pick(int(match.group(1)))}" + text[match.end():]
    return rewrite


@dataclass(frozen=True)
class Variant:
    name: str
    family: str
    expect_ok: bool
    rewrite: Callable[[str, Task], str | None]  # the candidate text, or None when the rewrite does not apply


#: every variant, by family; batch B cycles over the families, taking the next variant of each in turn
VARIANTS = {
    "solution": [Variant("solution", "solution", True, lambda text, task: text)],
    "wrong": [Variant("scale", "wrong", False, each_output("o * 1.5")),
              Variant("offset", "wrong", False, offset_output),
              Variant("one_element", "wrong", False, each_output("_kg_bump(o)", _BUMP))],
    "slower": [Variant("twice", "slower", True, lambda text, task: wrap_forward(
                   text, "super().forward(*args)\nreturn super().forward(*args)")),
               Variant("copy_pass", "slower", True, copy_pass)],
    "tuned": [Variant("warps_up", "tuned", True, retune_warps(lambda n: n * 2 if n < 16 else 8)),
              Variant("warps_down", "tuned", True, retune_warps(lambda n: n // 2 if n > 1 else 2)),
              Variant("comment", "tuned", True, lambda text, task: text + "\n# retuned: same kernels\n")],
    "failing": [Variant("undefined_name", "failing", False, undefined_name),
                Variant("raise", "failing", False, lambda text, task: wrap_forward(
                    text, "out = super().forward(*args)\nraise RuntimeError('deliberate failure in the forward')")),
                Variant("unsqueeze", "failing", False, each_output("o.unsqueeze(0)")),
                Variant("truncate", "failing", False,
                        each_output("o[..., :-1] if o.dim() and o.shape[-1] > 1 else o.unsqueeze(0)"))],
}
_BY_NAME = {v.name: v for family in VARIANTS.values() for v in family}
_ORDER = [v.name for v in _BY_NAME.values() if v.family != "solution"]  # the fallback order


def grpo_order() -> list[str]:
    """Variant names in batch B's order: round r takes the r-th variant of each family (families interleaved)."""
    families = [VARIANTS[f] for f in ("wrong", "slower", "tuned", "failing")]
    rounds = max(len(f) for f in families)
    return [f[r].name for r in range(rounds) for f in families if r < len(f)]


@dataclass
class Item:
    """One candidate of a batch and its label."""
    batch: str
    index: int
    task: Task
    text: str
    variant: str
    family: str
    expect_ok: bool


def make_item(batch: str, index: int, task: Task, solution: str, wanted: str) -> Item:
    """The candidate ``wanted`` of ``solution``, or the first variant after it (in :data:`_ORDER`) whose rewrite
    applies; the text ends with a comment naming it, so no two samples of a batch are the same text."""
    start = _ORDER.index(wanted) if wanted in _ORDER else None
    names = [wanted] if start is None else _ORDER[start:] + _ORDER[:start]
    for name in names:
        variant = _BY_NAME[name]
        text = variant.rewrite(solution, task)
        if text is not None:
            text += f"\n# kernelgym throughput benchmark: batch {batch}, item {index}, {variant.name}\n"
            return Item(batch, index, task, text, variant.name, variant.family, variant.expect_ok)
    raise ValueError(f"no variant applies to {task.id}")


def pick_solutions(n: int) -> list[tuple[Task, str]]:
    """``n`` bundled Triton solutions of L1-L3 tasks, round-robin over the levels: (task, solution text)."""
    tasks, policy = load_tasks(), ReplayPolicy()
    by_level = [[t for t in policy.task_ids() if t.startswith(level) and t in tasks] for level in LEVELS]
    picked = []
    for r in range(max(len(ids) for ids in by_level)):
        picked += [ids[r] for ids in by_level if r < len(ids)]
    return [(tasks.get(t), policy.path(t).read_text()) for t in picked[:n]]


def batch_a(n_solutions: int) -> list[Item]:
    """Batch A: per solution, the solution, its outputs x 1.5, an undefined name in its first kernel."""
    items: list[Item] = []
    for task, text in pick_solutions(n_solutions):
        for wanted in ("solution", "scale", "undefined_name"):
            items.append(make_item("A", len(items), task, text, wanted))
    return items


def batch_b(n_tasks: int, n_samples: int) -> list[Item]:
    """Batch B: per task, the solution and ``n_samples - 1`` variants in :func:`grpo_order`, cycled."""
    order, items = grpo_order(), []
    for task, text in pick_solutions(n_tasks):
        for k in range(n_samples):
            items.append(make_item("B", len(items), task, text, "solution" if k == 0 else order[(k - 1) % len(order)]))
    return items


# -- measurement ---------------------------------------------------------------------------------------------

@dataclass
class Run:
    """One evaluation: its result (None when skipped by the budget) and its times (``time.monotonic()``)."""
    item: Item
    result: object = None
    submitted: float | None = None
    done: float | None = None

    @property
    def turnaround_s(self) -> float | None:
        return None if self.done is None or self.submitted is None else self.done - self.submitted

    @property
    def service_s(self) -> float | None:
        return None if self.result is None else self.result.durations.get("total")

    def row(self) -> dict:
        r, it = self.result, self.item
        base = {"batch": it.batch, "index": it.index, "task": it.task.id, "variant": it.variant, "family": it.family,
                "expect_ok": it.expect_ok}
        if r is None:
            return {**base, "status": "skipped"}
        turnaround, service = self.turnaround_s, self.service_s
        return {**base, "status": r.status, "as_expected": (r.status == "ok") == it.expect_ok,
                "speedup": r.speedup, "runtime_ms": r.runtime_ms, "baseline_ms": r.baseline_ms,
                "ci95_ms": r.runtime_spread.get("ci95_ms"), "kernel_coverage": r.kernel_coverage,
                # how the runtime was bounded: compared calls, their floor, the runner's clocks (SECURITY.md)
                "bounds": {k: r.runtime_spread.get(k) for k in ("reported_median_ms", "runner_bound_ms",
                                                                "runner_fastest_wall_ms", "runner_fastest_block_calls",
                                                                "runner_overhead_ms", "runner_overhead_from",
                                                                "null_overhead_ms", "null_overheads_ms",
                                                                "null_call_ms", "latency_left_out_ms",
                                                                "reference_overhead_ms", "synchronized_median_ms",
                                                                "runner_block_walls_ms", "worker_block_cpu_ms",
                                                                "worker_block_cpu_wait_ms",
                                                                "compared_floor_ms", "compared_calls",
                                                                "fastest_check_ms")},
                "submitted_at": _round(self.submitted), "done_at": _round(self.done),
                "turnaround_s": _round(turnaround), "service_s": service,
                "queue_s": _round(turnaround - service) if turnaround is not None and service is not None else None,
                "durations": r.durations, "flags": [f["name"] for f in r.flags], "message": r.message[:300]}


class TimedPool(RayEvalPool):
    """A :class:`RayEvalPool` that notes when each evaluation was accepted and answered, prints each result as it
    comes, and starts nothing after ``deadline`` (the skipped item's future holds None). Items are matched to their
    runs by task and text as the pool starts them, in whatever order it submits them (input order, or
    :class:`~kernelgym.evaluators.order.TaskFeeder`'s with ``interleave``); the pool must not deduplicate
    (``dedupe=False``)."""

    def __init__(self, *args, deadline: float = math.inf, **kwargs):
        super().__init__(*args, **kwargs)
        if self.dedupe:
            raise ValueError("TimedPool matches each evaluation to its item: give it dedupe=False")
        self.deadline = deadline
        self.runs: list[Run] = []
        self._unstarted: dict[tuple[str, str], collections.deque] = {}
        self._runs_lock = threading.Lock()
        self.batch_started = 0.0

    def start(self, items: list[Item]) -> None:
        """Expect ``items`` as the next evaluations (in any order)."""
        self.runs = [Run(item) for item in items]
        self._unstarted = collections.defaultdict(collections.deque)
        for run in self.runs:
            self._unstarted[(run.item.task.key, run.item.text)].append(run)
        self.batch_started = time.monotonic()

    def _run(self, task, text, *args, **kwargs):
        """The pool's evaluation on its own thread, timed from when the pool accepted it (a thread of the pool's
        starts it at once: it has one per evaluation in flight)."""
        with self._runs_lock:
            run = self._unstarted[(task.key, text)].popleft()
        if time.monotonic() >= self.deadline:  # skipped: never evaluated, its run keeps no times
            return None
        run.submitted = time.monotonic()
        try:
            result = super()._run(task, text, *args, **kwargs)
        except BaseException as exc:  # the pool's own failure, not a verdict: the item counts as not evaluated
            run.done = time.monotonic()
            say(f"error: {run.item.task.id} {run.item.variant}: {exc!r}")
            raise
        run.done, run.result = time.monotonic(), result
        finished = sum(1 for r in self.runs if r.result is not None)
        say(f"[{finished}/{len(self.runs)} {time.monotonic() - self.batch_started:6.1f}s] " + progress_line(run))
        return result


def progress_line(run: Run) -> str:
    """One line for a finished evaluation: label, task, status (! when against its label, then the judge's message),
    speedup, latency."""
    r, it = run.result, run.item
    if r is None:
        return f"{it.family:>8}/{it.variant:<14} {it.task.id:<44} skipped"
    mark = " " if (r.status == "ok") == it.expect_ok else "!"
    speed = f"{r.speedup:.3g}x" if r.speedup else "-"
    turnaround = f" turnaround {run.turnaround_s:.1f}s" if run.turnaround_s is not None else ""
    why = f" -- {(r.message or '')[:200]}" if mark == "!" else ""  # against its label: the judge's words
    return (f"{it.family:>8}/{it.variant:<14} {it.task.id:<44} {r.status:<13}{mark} {speed:>7}"
            f" service {run.service_s or 0:.1f}s{turnaround}{why}")


def run_pool_batch(pool: TimedPool, items: list[Item], profile: str,
                   interleave: bool = False) -> tuple[list[Run], float, float]:
    """All ``items`` in one ``evaluate_many`` call (``interleave``: the pool's task feeder picks the order, else
    input order); returns the runs and the batch's start and end."""
    pool.start(items)
    t0 = time.monotonic()
    pool.evaluate_many([(it.task, it.text) for it in items], profile=profile, interleave=interleave)
    done = [r.done for r in pool.runs if r.result is not None]
    return pool.runs, t0, max(done) if done else time.monotonic()


def run_alone(judge, items: list[Item], profile: str, deadline: float, known: dict[int, Run] | None = None,
              label: str = "") -> tuple[list[Run], float]:
    """``items`` one after another on ``judge`` (runs in ``known``, by item index, are reused); stops before an
    evaluation that would end past ``deadline`` (estimated by the median so far). Returns runs and wall seconds."""
    known = known if known is not None else {}
    runs, spent, t0 = [], [], time.monotonic()
    for n, item in enumerate(items, 1):
        if item.index in known:
            runs.append(known[item.index])
            continue
        if time.monotonic() + (statistics.median(spent) if spent else 0.0) > deadline:
            left = sum(it.index not in known for it in items[n - 1:])
            say(f"  {label}: budget reached, {left} of {len(items)} not evaluated")
            break
        run = Run(item, submitted=time.monotonic())
        run.result = judge.evaluate(item.task, item.text, profile=profile)
        run.done = time.monotonic()
        spent.append(run.done - run.submitted)
        runs.append(run)
        say(f"  {label} [{n}/{len(items)}] " + progress_line(run))
    return runs, time.monotonic() - t0


# -- figures -------------------------------------------------------------------------------------------------

def _fmt(x) -> str:
    return "-" if x is None else f"{x:.4g}"


def _round(x, digits: int = 3):
    return None if x is None else round(x, digits)


def percentiles(values: list[float]) -> dict:
    """p50, p95 (nearest rank) and max of ``values``, in seconds; Nones when empty."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return {"p50": None, "p95": None, "max": None}
    rank = max(0, math.ceil(0.95 * len(values)) - 1)
    return {"p50": _round(statistics.median(values)), "p95": _round(values[rank]), "max": _round(values[-1])}


def union_length(intervals: list[tuple[float, float]]) -> float:
    """Total length covered by ``intervals`` (overlaps counted once)."""
    total, end = 0.0, -math.inf
    for a, b in sorted(intervals):
        if b > end:
            total += b - max(a, end)
            end = b
    return total


def busy_shares(holds_per_gpu: list[list[tuple[str, float, float]]], t0: float, t1: float) -> dict:
    """GPU time shares over ``[t0, t1]``, averaged over GPUs: timing (exclusive holds), correctness (shared holds
    outside exclusive ones), idle (the rest); and draining, the part of correctness in which a timer waited for the
    steps in flight while no new step could start (``"drain"`` records). Records are ``(kind, start, end)`` in
    ``time.monotonic()`` seconds (:class:`~kernelgym.judge.admission.SharedExclusiveLock`)."""
    wall = t1 - t0
    if wall <= 0 or not holds_per_gpu:
        return {"timing": None, "correctness": None, "idle": None, "draining": None}
    timing = correctness = draining = 0.0
    for holds in holds_per_gpu:
        clipped = [(kind, max(a, t0), min(b, t1)) for kind, a, b in holds if b > t0 and a < t1]
        held = [(kind, a, b) for kind, a, b in clipped if kind != "drain"]
        exclusive = union_length([(a, b) for kind, a, b in held if kind == "exclusive"])
        timing += exclusive
        correctness += union_length([(a, b) for _, a, b in held]) - exclusive
        drains = [(a, b) for kind, a, b in clipped if kind == "drain"]
        draining += union_length(drains + [(a, b) for kind, a, b in held if kind == "exclusive"]) - exclusive
    n = len(holds_per_gpu)
    return {"timing": _round(timing / n / wall), "correctness": _round(correctness / n / wall),
            "idle": _round(1 - (timing + correctness) / n / wall), "draining": _round(draining / n / wall)}


def drains_by_step(holds_per_gpu: list[list[tuple[str, float, float]]]) -> dict:
    """Seconds timers spent draining, by the step they waited for last: for each ``"drain"`` record, the shared
    hold that was held when the timer asked and ended last before it got the GPU (its label: ``build``, ``trial``,
    ...; ``shared`` when unlabelled). Where the GPU's partly idle time goes while timers wait."""
    by_step: dict[str, float] = {}
    for holds in holds_per_gpu:
        shared = [(kind, a, b) for kind, a, b in holds if kind.startswith("shared")]
        for kind, asked, granted in holds:
            if kind != "drain":
                continue
            waited_for = [(b, k) for k, a, b in shared if a <= asked < b <= granted + 1e-3]
            label = (max(waited_for)[1].partition(":")[2] or "shared") if waited_for else "unknown"
            by_step[label] = _round(by_step.get(label, 0.0) + granted - asked)
    return dict(sorted(by_step.items(), key=lambda kv: -kv[1]))


def summarize(runs: list[Run], wall_s: float, gpus: int, holds: list, t0: float, t1: float) -> dict:
    """Rate, latency, GPU shares, stage medians, statuses by family and label mismatches of a set of runs."""
    evaluated = [r for r in runs if r.result is not None]
    stages: dict[str, list[float]] = {}
    for r in evaluated:
        for k, v in r.result.durations.items():
            stages.setdefault(k, []).append(v)
    statuses: dict[str, dict[str, int]] = {}
    for r in evaluated:
        family = statuses.setdefault(r.item.family, {})
        family[r.result.status] = family.get(r.result.status, 0) + 1
    unexpected = [r.row() for r in evaluated if (r.result.status == "ok") != r.item.expect_ok]
    eager: dict[str, int] = {}  # where each timed evaluation's eager figure came from (batch: the plan's shared one)
    for r in evaluated:
        how = (r.result.runtime_spread or {}).get("baseline")
        if how:
            kind = how.split(",")[0]
            eager[kind] = eager.get(kind, 0) + 1
    return {"n": len(runs), "evaluated": len(evaluated), "t0": _round(t0), "wall_s": _round(wall_s, 2), "gpus": gpus,
            "evals_per_gpu_hour": _round(len(evaluated) / wall_s / gpus * 3600, 1) if wall_s > 0 and evaluated
            else None,
            "turnaround_s": percentiles([r.turnaround_s for r in evaluated]),
            "service_s": percentiles([r.service_s for r in evaluated]),
            "gpu_share": busy_shares(holds, t0, t1), "drains_by_step_s": drains_by_step(holds),
            "median_stage_s": {k: _round(statistics.median(v)) for k, v in sorted(stages.items())},
            "summed_wait_s": {k: _round(sum(stages.get(k, ()))) for k in ("gpu_wait", "memory_wait", "startup")},
            # the float64 reference, where a comparison needed it: its time and its wait for memory, summed and the
            # longest (L1/15's on the host took 154 s of one row at c27665c, the GPU held throughout)
            "float64_reference_s": {k: {"sum": _round(sum(stages[k])), "max": _round(max(stages[k]))}
                                    for k in ("exact_reference", "exact_memory_wait") if stages.get(k)},
            "statuses_by_family": statuses, "as_expected": len(evaluated) - len(unexpected),
            "eager_figures": eager,
            "unexpected": [{k: u[k] for k in ("index", "task", "variant", "status", "message")} for u in unexpected]}


def fidelity(batch_runs: list[Run], alone_runs: list[Run]) -> dict:
    """Batch vs alone speedup and verdict per candidate, with the median and worst (>= 1 ms alone) |difference|."""
    by_index = {r.item.index: r for r in batch_runs}
    rows = []
    for alone in alone_runs:
        batch = by_index[alone.item.index]
        if alone.result is None or batch.result is None:
            continue
        b, a = batch.result, alone.result
        diff = b.speedup / a.speedup - 1 if b.speedup and a.speedup else None
        rows.append({"index": alone.item.index, "task": alone.item.task.id, "variant": alone.item.variant,
                     "batch_status": b.status, "alone_status": a.status, "verdict_match": b.status == a.status,
                     "batch_speedup": b.speedup, "alone_speedup": a.speedup, "batch_ms": b.runtime_ms,
                     "alone_ms": a.runtime_ms, "rel_diff": _round(diff, 4)})
    diffs = [abs(r["rel_diff"]) for r in rows if r["rel_diff"] is not None]
    slow = [abs(r["rel_diff"]) for r in rows if r["rel_diff"] is not None and (r["alone_ms"] or 0) >= FIDELITY_MIN_MS]
    return {"n": len(rows), "median_abs_diff": _round(statistics.median(diffs), 4) if diffs else None,
            "worst_abs_diff_ge_1ms": _round(max(slow), 4) if slow else None, "n_ge_1ms": len(slow),
            "verdicts_agree": sum(r["verdict_match"] for r in rows), "rows": rows}


def spread(items: list, n: int | None) -> list:
    """``n`` of ``items`` evenly spaced (all when ``n`` is None or not smaller)."""
    if n is None or n >= len(items):
        return list(items)
    return [items[i * len(items) // n] for i in range(max(n, 0))]


def verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else "PASS" if ok else "FAIL"


def targets(name: str, out: dict) -> dict:
    """Each target of issue #13 for batch ``name``: the figure and whether it is met (None: not measured, or the
    batch was interrupted: its figures are of the part that finished)."""
    pool, fid = out.get("pool") or {}, out.get("fidelity") or {}
    figures = _targets(name, pool, fid)
    return {key: (figure, None) for key, (figure, _) in figures.items()} if out.get("interrupted") else figures


def _targets(name: str, pool: dict, fid: dict) -> dict:
    rate = pool.get("evals_per_gpu_hour")
    p95 = (pool.get("turnaround_s") or {}).get("p95")
    med, worst = fid.get("median_abs_diff"), fid.get("worst_abs_diff_ge_1ms")
    return {
        "rate": (rate, None if rate is None else rate >= TARGET_RATE[name]),
        "p95_turnaround": (p95, None if p95 is None else p95 <= TARGET_P95_S),
        "fidelity_median": (med, None if med is None else med <= TARGET_FIDELITY["median"]),
        "fidelity_worst": (worst, None if worst is None else worst <= TARGET_FIDELITY["worst"]),
        "verdicts_identical": (f"{fid.get('verdicts_agree')}/{fid.get('n')}" if fid else None,
                               None if not fid.get("n") else fid["verdicts_agree"] == fid["n"]),
    }


def figures_lines(label: str, fig: dict) -> list[str]:
    """The figures of :func:`summarize`, readable: rate, latency, GPU shares; stage medians; statuses."""
    share, turn, serv = fig["gpu_share"], fig["turnaround_s"], fig["service_s"]
    pct = {k: "-" if v is None else f"{100 * v:.0f}%" for k, v in share.items()}
    return ([f"{label}: {fig['evaluated']}/{fig['n']} evaluated in {fig['wall_s']} s on {fig['gpus']} device(s): "
            f"{fig['evals_per_gpu_hour']} evals/GPU-h; latency s p50/p95/max: turnaround {turn['p50']}/"
            f"{turn['p95']}/{turn['max']}, service {serv['p50']}/{serv['p95']}/{serv['max']}; GPU timing "
            f"{pct['timing']}, correctness {pct['correctness']} (draining {pct['draining']}), idle {pct['idle']}",
            f"  timers drained for (s, by the step waited for last): {fig.get('drains_by_step_s')}",
            f"  median stage s: {fig['median_stage_s']}",
            f"  summed over the rows (s; memory_wait is gpu_wait's part spent waiting for memory): "
            f"{fig.get('summed_wait_s')}",
            f"  the float64 reference (s, where needed): {fig.get('float64_reference_s')}",
            f"  statuses by family: {fig['statuses_by_family']}; as labelled {fig['as_expected']}/{fig['evaluated']}",
            f"  eager figures by origin: {fig.get('eager_figures')}",
            f"  the judges' CPU s per evaluation (their processes, not the workers): {fig.get('cpu_s_per_evaluation')}"]
            + [f"  UNEXPECTED {u['variant']} {u['task']}: {u['status']}: {u['message'][:160]}"
               for u in fig["unexpected"]]
            + [line for i, prof in enumerate(fig.get("cpu_profile") or []) for line in cpu_profile_lines(i, prof)])


def cpu_profile_lines(actor: int, prof: dict, top: int = 12) -> list[str]:
    """An actor's :class:`~kernelgym.evaluators.cpu_sampler.CpuSampler` profile, readable: totals, the interpreter
    lock's wait, CPU by thread group, the ``top`` functions by self and by inclusive CPU seconds."""
    groups = ", ".join(f"{k} {v}" for k, v in list(prof["thread_cpu_s"].items())[:8])
    return ([f"  actor {actor} CPU profile: {prof['process_cpu_s']} CPU s in {prof['wall_s']} s wall, "
             f"{prof['sampled_cpu_s']} charged to Python stacks ({prof['samples']} samples, sampler "
             f"{prof['sampler_cpu_s']} s); interpreter lock wait ms p50/p95/max {prof['gil_wait_ms']['p50']}/"
             f"{prof['gil_wait_ms']['p95']}/{prof['gil_wait_ms']['max']}",
             f"    by thread group (CPU s): {groups}", "    self CPU s:"]
            + [f"      {v:8.3f}  {k}" for k, v in prof["self"][:top]] + ["    inclusive CPU s:"]
            + [f"      {v:8.3f}  {k}" for k, v in prof["inclusive"][:top]])


def summary_line(name: str, out: dict) -> str:
    t, pool = targets(name, out), out.get("pool") or {}
    service = (pool.get("service_s") or {}).get("p95")
    gain = out.get("gain")
    return (f"SUMMARY batch {name}: {t['rate'][0]} evals/GPU-h (>= {TARGET_RATE[name]:.0f}: "
            f"{verdict(t['rate'][1])}); p95 turnaround {t['p95_turnaround'][0]} s (<= {TARGET_P95_S:.0f}: "
            f"{verdict(t['p95_turnaround'][1])}; p95 service {service} s); fidelity median "
            f"{t['fidelity_median'][0]} (<= {TARGET_FIDELITY['median']}: {verdict(t['fidelity_median'][1])}), "
            f"worst >= 1 ms {t['fidelity_worst'][0]} (<= {TARGET_FIDELITY['worst']}: "
            f"{verdict(t['fidelity_worst'][1])}); verdicts {t['verdicts_identical'][0]} "
            f"({verdict(t['verdicts_identical'][1])}); gain over plain {f'{gain}x' if gain else 'n/a'}; labels "
            f"{pool.get('as_expected')}/{pool.get('evaluated')} as expected"
            + (f" (interrupted {out['interrupted']}: figures of what finished)" if out.get("interrupted") else "")
            + scaling_words(out.get("scaling"))
            + ("" if out.get("timing_meaningful", True) else " (timings NOT meaningful: CPU interpreter)"))


def scaling_words(sc: dict | None) -> str:
    """The scaling part of the summary line (issue #17's targets), empty without a ``--gpus`` comparison."""
    if not sc:
        return ""
    eff, med = sc["efficiency"], sc["median_speedup_diff"]
    return (f"; scaling {sc['gpus'][0]}->{sc['gpus'][1]} GPUs efficiency {eff} (>= {TARGET_SCALING}: "
            f"{verdict(None if eff is None else eff >= TARGET_SCALING)}), verdicts {sc['verdicts_identical']}/"
            f"{sc['compared']} ({verdict(sc['verdicts_identical'] == sc['compared'] if sc['compared'] else None)}), "
            f"median speedup diff {med} (<= {TARGET_FIDELITY['median']}: "
            f"{verdict(None if med is None else med <= TARGET_FIDELITY['median'])})")


def judge_kwargs(args) -> dict:
    """What every Judge of the run (pool actors and the plain path alike) is made with."""
    return {"cache_dir": args.cache_dir, "device_transfer": args.device_transfer or device_transfer.enabled()}


# -- phases --------------------------------------------------------------------------------------------------

def pool_phase(batches: dict[str, list[Item]], args, deadline: float, report: dict, num_gpus: int | None = None,
               key: str = "pool", concurrency: int = 8) -> dict[str, list[Run]]:
    """Every batch through one pool over ``num_gpus`` GPUs (default: all), ``concurrency`` evaluations at once per
    GPU, one ``evaluate_many`` call each; figures into ``report[batch][key]`` and its rows into
    ``report[batch][key + "_rows"]`` (``"rows"`` for ``"pool"``)."""
    import ray

    ray.init(include_dashboard=False, log_to_driver=False,
             **({"num_gpus": args.ray_fake_gpus} if args.ray_fake_gpus else {}))
    for signum in (signal.SIGTERM, signal.SIGINT):  # again: Ray's start may install handlers of its own
        signal.signal(signum, _interrupt)
    pool = TimedPool(num_gpus=num_gpus, concurrency_per_gpu=concurrency, dedupe=False, deadline=deadline,
                     judge_kwargs=judge_kwargs(args))
    out: dict[str, list[Run]] = {}
    aborting = False
    try:
        gpus = pool.num_actors
        say(f"pool: {gpus} actor(s) {pool.actor_info()}, {concurrency} evaluations each at once, order {args.order}")
        for name, items in batches.items():
            if time.monotonic() >= deadline:
                say(f"pool {name}: skipped (budget)")
                continue
            say(f"== pool batch {name} on {gpus} GPU(s): {len(items)} candidates, profile {args.profile}")
            interrupted = False
            cpu_before = pool.cpu_seconds()
            if args.cpu_profile:
                pool.cpu_profile_start(args.cpu_profile)
            try:
                runs, t0, t1 = run_pool_batch(pool, items, args.profile, args.order == "fed")
            except Interrupted:  # the figures of what finished by now (later answers are not counted), no more phases
                interrupted, t0, t1 = True, pool.batch_started, time.monotonic()
                runs = [r if r.done is not None and r.done <= t1 else Run(r.item, submitted=r.submitted)
                        for r in pool.runs]
                report[name]["interrupted"] = f"after {t1 - t0:.1f} s"
                say(f"pool {name}: interrupted, {sum(r.result is not None for r in runs)} of {len(runs)} finished")
            out[name] = runs
            holds = pool.gpu_holds(since=t0)
            if any(len(h) >= ACTOR_HOLDS for h in holds):
                say(f"warning: an actor's GPU hold log is full ({ACTOR_HOLDS}); busy shares are under-counted")
            report[name][key] = summarize(runs, t1 - t0, gpus, holds, t0, t1)
            report[name][key]["cpu_s_per_evaluation"] = cpu_per_evaluation(cpu_before, pool.cpu_seconds(), runs)
            if args.cpu_profile:
                report[name][key]["cpu_profile"] = pool.cpu_profile_stop()
            report[name]["rows" if key == "pool" else f"{key}_rows"] = [r.row() for r in runs]
            report[name]["timing_meaningful"] = all(r.result.timing_meaningful for r in runs
                                                    if r.result is not None and r.result.status == "ok")
            say(*figures_lines(f"pool {name} ({gpus} GPU)", report[name][key]), sep="\n")
            skipped = sum(r.submitted is None for r in runs)
            if skipped:
                say(f"pool {name}: budget reached, {skipped} of {len(runs)} candidates not submitted")
            if interrupted:
                raise Interrupted(name)
    except Interrupted:
        aborting = True
        raise
    finally:
        pool.close(abort=aborting)
        ray.shutdown()
    return out


def cpu_per_evaluation(before: list[float], after: list[float], runs: list[Run]) -> float | None:
    """The judges' CPU seconds over a batch (``RayEvalPool.cpu_seconds`` before and after, summed over the actors:
    one process per GPU, whose Python work shares one interpreter lock) per evaluation that finished."""
    done = sum(r.result is not None for r in runs)
    return round(sum(a - b for a, b in zip(after, before)) / done, 3) if done else None


def alone_phases(batches: dict[str, list[Item]], pooled: dict[str, list[Run]], args, deadline: float,
                 report: dict) -> None:
    """The plain path of every batch, then fidelity of every batch, on one Judge; figures into ``report``."""
    from kernelgym.judge.runner import Judge

    lock = SharedExclusiveLock(keep_holds=ACTOR_HOLDS)
    judge = Judge(gpu_lock=lock, **judge_kwargs(args))
    alone: dict[str, dict[int, Run]] = {name: {} for name in batches}
    try:
        for name, items in batches.items():
            if args.plain <= 0:
                break
            if time.monotonic() >= deadline:
                say(f"plain path {name}: skipped (budget)")
                continue
            say(f"== plain path {name}: {min(args.plain, len(items))} of its candidates, one Judge, one at a time")
            t0 = time.monotonic()
            runs, wall = run_alone(judge, spread(items, args.plain), args.profile, deadline, label=f"plain {name}")
            alone[name].update({r.item.index: r for r in runs})
            plain = summarize(runs, wall, 1, [list(lock.holds)], t0, t0 + wall)
            report[name]["plain"] = plain
            report[name]["plain_rows"] = [r.row() for r in runs]
            pool_rate = (report[name].get("pool") or {}).get("evals_per_gpu_hour")
            if pool_rate and plain["evals_per_gpu_hour"]:
                report[name]["gain"] = round(pool_rate / plain["evals_per_gpu_hour"], 2)
            say(*figures_lines(f"plain {name}", plain), f"  gain: pool / plain = {report[name].get('gain')}x",
                sep="\n")
        for name, items in batches.items():
            if time.monotonic() >= deadline or name not in pooled:
                say(f"fidelity {name}: skipped ({'budget' if name in pooled else 'no pool batch'})")
                continue
            chosen = spread([it for it in items if it.expect_ok], fidelity_count(name, args.fidelity))
            if not chosen:
                continue
            say(f"== fidelity {name}: {len(chosen)} expected-ok candidates alone "
                f"({sum(it.index in alone[name] for it in chosen)} from the plain path)")
            runs, _ = run_alone(judge, chosen, args.profile, deadline, alone[name], label=f"alone {name}")
            report[name]["fidelity"] = fid = fidelity(pooled[name], runs)
            for row in fid["rows"]:
                say(f"  fidelity {name} {row['task']:<44} {row['variant']:<12} speedup batch "
                    f"{_fmt(row['batch_speedup'])} alone {_fmt(row['alone_speedup'])} (alone {_fmt(row['alone_ms'])} "
                    f"ms) diff {row['rel_diff']} verdicts {row['batch_status']}/{row['alone_status']}")
            say(f"fidelity {name}:", json.dumps({k: v for k, v in fid.items() if k != "rows"}))
            if args.fidelity_floor and time.monotonic() < deadline:
                # the same candidates alone once more: how far two idle measurements differ is the floor under
                # any batch-vs-alone figure
                again, _ = run_alone(judge, chosen, args.profile, deadline, label=f"again {name}")
                report[name]["fidelity_floor"] = floor = fidelity(runs, again)
                say(f"fidelity floor {name} (alone vs alone again):",
                    json.dumps({k: v for k, v in floor.items() if k != "rows"}))
    finally:
        judge.close()


def gpu_counts(text: str) -> list[int | None]:
    """``--gpus``: comma-separated GPU counts to run the pool on, in order (``all``: every GPU of the cluster)."""
    counts = [None if part == "all" else int(part) for part in text.split(",")]
    if not counts or any(c is not None and c < 1 for c in counts):
        raise SystemExit(f"--gpus takes counts >= 1 or 'all', got {text!r}")
    return counts


def concurrency_levels(text: str) -> list[int]:
    """``--concurrency``: comma-separated evaluations at once per GPU, each run as a pool phase of its own, in
    order."""
    try:
        levels = [int(part) for part in str(text).split(",")]
    except ValueError:
        levels = []
    if not levels or any(level < 1 for level in levels) or len(set(levels)) != len(levels):
        raise SystemExit(f"--concurrency takes distinct counts >= 1, comma-separated, got {text!r}")
    return levels


def pool_plan(gpus: str, concurrency: str) -> list[tuple[int | None, int, str]]:
    """The pool phases, in order: ``(GPU count, evaluations at once per GPU, report key)`` for every count of
    ``--gpus`` and, on each, every level of ``--concurrency``. The last phase's key is ``"pool"`` (the plain path and
    fidelity compare with its rows); the others are ``pool_`` with what varies: ``<n>gpu`` and/or ``c<level>``."""
    counts, levels = gpu_counts(gpus), concurrency_levels(concurrency)
    plan = []
    for n in counts:
        for level in levels:
            parts = ([f"{'all' if n is None else n}gpu"] if len(counts) > 1 else []) + \
                    ([f"c{level}"] if len(levels) > 1 else [])
            plan.append((n, level, "pool_" + "_".join(parts)))
    plan[-1] = (plan[-1][0], plan[-1][1], "pool")
    return plan


def concurrency_rows(report: dict, plan: list[tuple[int | None, int, str]]) -> list[dict]:
    """One batch's pool figures at each concurrency level on the last GPU count of ``plan`` (``report`` is the
    batch's report): level, evaluations per GPU-hour, p95 turnaround, evaluated; a level whose phase did not run is
    left out."""
    last_count = plan[-1][0]
    rows = []
    for n, level, key in plan:
        figures = report.get(key)
        if n == last_count and figures:
            rows.append({"concurrency": level, "evals_per_gpu_hour": figures.get("evals_per_gpu_hour"),
                         "p95_turnaround_s": (figures.get("turnaround_s") or {}).get("p95"),
                         "evaluated": figures.get("evaluated")})
    return rows


def scaling(one: dict, many: dict, one_runs: list[Run], many_runs: list[Run]) -> dict:
    """Issue #17's figures for one batch run on fewer and on more GPUs: the scaling efficiency (evaluations per
    GPU-hour on more GPUs over those on fewer: 1.0 is perfect, the target is >= 0.9), verdict identity, and the
    median relative speedup difference of candidates ok in both runs (target <= 2%)."""
    per_gpu = one["evals_per_gpu_hour"], many["evals_per_gpu_hour"]
    both = [(a.result, b.result) for a, b in zip(one_runs, many_runs) if a.result is not None and b.result is not None]
    diffs = [abs(b.speedup / a.speedup - 1) for a, b in both
             if a.status == b.status == "ok" and a.speedup and b.speedup]
    return {"gpus": [one["gpus"], many["gpus"]], "evals_per_gpu_hour": list(per_gpu),
            "efficiency": round(per_gpu[1] / per_gpu[0], 3) if all(per_gpu) else None,
            "verdicts_identical": sum(a.status == b.status for a, b in both), "compared": len(both),
            "median_speedup_diff": round(statistics.median(diffs), 4) if diffs else None}


def fidelity_count(name: str, asked: int | None) -> int | None:
    """How many expected-ok candidates of batch ``name`` to evaluate alone (``--fidelity``, else 16 of A, all B)."""
    if asked is not None:
        return asked
    return FIDELITY_A_DEFAULT if name == "A" else None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", choices=("A", "B", "both"), default="both")
    ap.add_argument("--solutions", type=int, default=32, help="batch A: solutions (3 candidates each)")
    ap.add_argument("--grpo-tasks", type=int, default=8, help="batch B: tasks")
    ap.add_argument("--samples", type=int, default=16, help="batch B: samples per task")
    ap.add_argument("--profile", default="quick")
    ap.add_argument("--concurrency", default="8",
                    help="evaluations at once per GPU; several, comma-separated (8,12,16), run one pool phase each")
    ap.add_argument("--plain", type=int, default=12, help="candidates per batch through the plain path")
    ap.add_argument("--fidelity", type=int, default=None,
                    help="expected-ok candidates per batch evaluated alone (default: 16 of A, all of B)")
    ap.add_argument("--fidelity-floor", action="store_true",
                    help="evaluate the fidelity candidates alone a second time and print how far the two idle "
                         "measurements differ (the noise floor of the fidelity figures)")
    ap.add_argument("--alone-budget-s", type=float, default=None,
                    help="the plain path and fidelity together: start none of their evaluations after this many "
                         "seconds from their start (default: --budget-s)")
    ap.add_argument("--budget-s", type=float, default=math.inf,
                    help="start no evaluation after this many seconds; skip what remains")
    ap.add_argument("--cache-dir", default="/tmp/kg-throughput")
    ap.add_argument("--gpus", default="all",
                    help="GPU counts to run the pool on, in order, e.g. '1,all' for issue #17's scaling ratio")
    ap.add_argument("--ray-fake-gpus", type=int, default=0,
                    help="start the local Ray cluster with this many fake GPU resources (CPU tests of --gpus)")
    ap.add_argument("--device-transfer", action="store_true",
                    help="hand outputs over in device memory (kernelgym.judge.device_transfer): the default on a GPU "
                         "anyway; KERNELGYM_DEVICE_TRANSFER=0 sends them through host files")
    ap.add_argument("--cpu-profile", type=float, default=0.0, metavar="INTERVAL_S",
                    help="sample where each actor's process spends its CPU every INTERVAL_S during each pool batch "
                         "(kernelgym.evaluators.cpu_sampler; e.g. 0.01): top functions, interpreter lock wait")
    ap.add_argument("--order", choices=("fed", "input"), default="input",
                    help="the pool's submission order: input (default: the batch's own order, each task's samples "
                         "together) or fed (kernelgym.evaluators.order.TaskFeeder: light tasks beside heavy ones)")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    plan = pool_plan(args.gpus, args.concurrency)  # a malformed --gpus or --concurrency ends the run here
    alone_budget_s = args.budget_s if args.alone_budget_s is None else args.alone_budget_s
    for signum in (signal.SIGTERM, signal.SIGINT):  # `timeout` past the budget: keep the figures of what finished
        signal.signal(signum, _interrupt)

    batches = {}
    if args.batch in ("A", "both"):
        batches["A"] = batch_a(args.solutions)
    if args.batch in ("B", "both"):
        batches["B"] = batch_b(args.grpo_tasks, args.samples)
    report: dict = {name: {"items": len(items), "variants": dict(collections.Counter(it.variant for it in items))}
                    for name, items in batches.items()}
    for name, items in batches.items():
        say(f"batch {name}: {len(items)} candidates over {len({it.task.id for it in items})} tasks; "
            f"expected ok {sum(it.expect_ok for it in items)}; variants {report[name]['variants']}")
    try:
        by_key = {}
        for n, level, key in plan:
            by_key[key] = pool_phase(batches, args, time.monotonic() + args.budget_s, report, n, key, level)
            write_report(args, report)  # what finished so far, should the run be killed from outside (SIGKILL)
        pooled = by_key["pool"]
        counts, levels = gpu_counts(args.gpus), concurrency_levels(args.concurrency)
        if len(levels) > 1:
            for name in batches:
                report[name]["concurrency"] = rows = concurrency_rows(report[name], plan)
                say(f"concurrency {name}: " + "; ".join(
                    f"{r['concurrency']} at once: {r['evals_per_gpu_hour']} evals/GPU-h, p95 turnaround "
                    f"{r['p95_turnaround_s']} s ({r['evaluated']} evaluated)" for r in rows))
        if len(counts) > 1:  # issue #17's scaling: the first GPU count against the last, at the last level
            base = next(key for n, level, key in plan if n == counts[0] and level == levels[-1])
            for name in batches:
                one, many = report[name].get(base), report[name].get("pool")
                if one and many and name in by_key[base] and name in pooled:
                    report[name]["scaling"] = scaling(one, many, by_key[base][name], pooled[name])
                    say(f"scaling {name}:", json.dumps(report[name]["scaling"]))
        deadline = time.monotonic() + alone_budget_s
        alone_phases(batches, pooled, args, deadline, report)
    except Interrupted as exc:
        say(f"interrupted in batch {exc}: the JSON has what finished")
    finally:
        for name in batches:
            report[name]["targets"] = targets(name, report[name])
            say(summary_line(name, report[name]))
        write_report(args, report)
    return 0


def write_report(args, report: dict) -> None:
    """``report`` into ``--json`` (when given), whole each time: replaced, never appended to."""
    if args.json:
        path = Path(args.json)
        partial = path.with_name(path.name + ".part")
        partial.write_text(json.dumps({"args": vars(args), **report}, indent=1, default=str))
        partial.replace(path)  # a reader never sees half a file


if __name__ == "__main__":
    sys.exit(main())
