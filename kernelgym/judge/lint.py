"""Task linter: catches task bugs that would make rewards meaningless.

Checks, per task (each a named line in the report):

* ``load``          the file loads; metadata valid; a small-shape variant exists; bytes > 0 and flops >= 0 (pure
                    data movement has no FLOPs)
* ``init``          two builds under the same seed hold identical parameters and buffers
* ``parameters_vary`` no floating parameter or buffer of more than one element holds one value throughout (a
                    LayerNorm's default weight of ones and bias of zeros, a bias set to a constant): the judge varies
                    the inputs, never the model's state, so a kernel that assumed the constant and never read it would
                    be judged correct. Exempt: what the forward cannot read, i.e. the running statistics of a
                    batch/instance norm in training mode (it normalises by the batch's own, and only writes them)
* ``deterministic`` the same seed gives bit-identical outputs, or (float atomics on a GPU) outputs within 1/10 of
                    the task's tolerance of each other
* ``seed_varies``   different seeds give different outputs (``statistical`` tasks: different samples)
* ``nonconstant``   an all-zero answer and a constant answer (the reference's mean) both FAIL the task's own
                    comparison, for every trial; so does the output magnitude check: mean |output| ≥ 10 × atol
* ``memory``        default shapes, traced on the ``meta`` device (nothing allocated, so it runs anywhere): inputs,
                    parameters and every tensor any operator of the forward returns, summed, at most
                    :data:`MEMORY_BUDGET_BYTES` (an upper bound on the eager peak, since nothing is counted as
                    freed). A forward that the meta device cannot run (data-dependent shapes) is bounded by its
                    inputs and parameters only, and the detail says so.
* ``speed``         CPU (small shapes): the reference forward takes < ``max_small_s``.
                    GPU (default shapes): eager runtime within [1, 50] ms; implied bandwidth (bytes / time) and
                    FLOP rate (flops / time) below the device's ceilings (else the formulas over-count)

KernelBench's problems (task set ``kernelbench``) run at their own shapes, also on the CPU, through ``init``,
``parameters_vary``, ``deterministic``, ``seed_varies``, ``nonconstant`` and ``memory`` only (they declare no small
shapes or formulas); many of them keep PyTorch's default initialisations, which ``parameters_vary`` reports.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

from kernelgym.judge.footprint import footprint_bound  # noqa: F401  (re-exported: part of the linter's API)
from kernelgym.tasks import Task, TaskError

RUNTIME_BAND_MS = (1.0, 50.0)
#: a task's eager footprint at its default shapes must fit a 24 GB GPU
MEMORY_BUDGET_BYTES = 24 * 10**9


@dataclass
class LintReport:
    task_id: str
    checks: dict = field(default_factory=dict)   # name -> (ok, detail)
    figures: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(ok for ok, _ in self.checks.values())

    def add(self, name: str, ok: bool, detail: str = "") -> None:
        self.checks[name] = (bool(ok), detail)

    def render(self) -> str:
        bad = [f"{n}: {d}" for n, (ok, d) in self.checks.items() if not ok]
        head = "PASS" if self.ok else "FAIL"
        return f"{head} {self.task_id}" + ("" if self.ok else " -- " + "; ".join(bad))

    def to_dict(self) -> dict:
        return {"task_id": self.task_id, "ok": self.ok,
                "checks": {n: {"ok": ok, "detail": d} for n, (ok, d) in self.checks.items()},
                "figures": self.figures}


def lint_task(task: Task, device: str = "cpu", max_small_s: float = 2.0) -> LintReport:
    """Run every check on one task; never raises (a crash in the task is a failed check)."""
    report = LintReport(task.id)
    try:
        _lint(task, device, max_small_s, report)
    except Exception as exc:  # noqa: BLE001 - a task that crashes is a lint failure, reported
        report.add("crash", False, f"{type(exc).__name__}: {str(exc)[:300]}")
    return report


def _lint(task: Task, device: str, max_small_s: float, report: LintReport) -> None:
    import torch

    from kernelgym.judge.correctness import compare_outputs
    from kernelgym.judge.inputs import as_tuple, build_model, make_inputs

    # KernelBench's problems declare neither small shapes nor byte/FLOP formulas: they are linted at their own
    # shapes (also on the CPU) for what makes a reward meaningless (init, state that a kernel could assume,
    # determinism, dependence on the inputs, memory), without the format checks and speed bands of the bundled suite
    foreign = task.task_set == "kernelbench"
    small = device == "cpu" and not foreign
    if small and not task.small:
        report.add("load", False, "no small-shape variant (KERNELGYM['small'])")
        return
    try:
        module = task.load_module(small=small)
        flops, nbytes = task.evaluate_formula("flops", small), task.evaluate_formula("bytes", small)
    except TaskError as exc:
        report.add("load", False, str(exc))
        return
    missing = [w for w, v in (("flops", flops), ("bytes", nbytes)) if v is None or v < 0 or (w == "bytes" and v == 0)]
    if foreign:
        report.add("load", True, "KernelBench problem: no formulas, speed not checked" if missing else "")
    else:
        report.add("load", not missing, f"missing or invalid formula(s): {', '.join(missing)} (flops >= 0, bytes > 0)"
                   if missing else "")

    def state(model):
        return {k: v.detach().clone() for k, v in model.state_dict().items()} if isinstance(model, torch.nn.Module) \
            else {}

    m1 = build_model(module, module.Model, 7, device, task.dtype, task.mode)
    m2 = build_model(module, module.Model, 7, device, task.dtype, task.mode)
    s1, s2 = state(m1), state(m2)
    same_init = s1.keys() == s2.keys() and all(torch.equal(s1[k], s2[k]) for k in s1)
    report.add("init", same_init, "" if same_init else "parameters differ between two builds under one seed")
    constant = constant_state(m1)
    report.add("parameters_vary", not constant, "" if not constant else
               "constant (a kernel could skip reading them): " + ", ".join(constant[:6])
               + (f" and {len(constant) - 6} more" if len(constant) > 6 else ""))

    def run(seed):
        with torch.no_grad():
            return tuple(o.detach().clone() if torch.is_tensor(o) else o
                         for o in as_tuple(m1(*make_inputs(module, seed, device))))

    t0 = time.perf_counter()
    a = run(1)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    first_s = time.perf_counter() - t0
    b, c = run(1), run(2)
    detail = ""
    if task.check == "statistical":
        det = True  # random tasks need only be seedable in distribution
    else:
        det = all(_equal(x, y) for x, y in zip(a, b))
        if not det and compare_outputs(a, b, task.atol / 10, task.rtol / 10, task.check).ok:
            # float atomics (scatter_add, index_put with accumulate) reorder sums on a GPU: the last bits vary,
            # but far below the tolerance, so the judge's verdict cannot depend on it
            det, detail = True, "bitwise nondeterministic, within 1/10 of the tolerance"
            report.figures["bitwise_nondeterministic"] = 1.0
    report.add("deterministic", det, detail if det else "same seed gave different outputs")
    varies = any(not _equal(x, y) for x, y in zip(a, c))
    report.add("seed_varies", varies, "" if varies else "the output does not depend on the seed")

    reasons = []
    for seed, outs, other in ((1, a, c), (2, c, a)):
        # each output on its own: an output always within tolerance of zero, or of one input-independent constant
        # (the other seed's mean, or value for scalars), can be skipped by a kernel that gets the others right
        for k, (o, p) in enumerate(zip(outs, other)):
            where = f"output {k} of {len(outs)}, " if len(outs) > 1 else ""
            zero = torch.zeros_like(o) if torch.is_tensor(o) else 0.0
            if compare_outputs((o,), (zero,), task.atol, task.rtol, task.check).ok:
                reasons.append(f"{where}an all-zero answer passes (seed {seed})")
            if torch.is_tensor(o) and o.is_floating_point():
                const = torch.full_like(o, float(p.float().mean()))
                if compare_outputs((o,), (const,), task.atol, task.rtol, task.check).ok:
                    reasons.append(f"{where}a constant answer passes (seed {seed})")
    mags = [float(o.float().abs().mean()) for o in a if torch.is_tensor(o) and o.numel() and o.is_floating_point()]
    magnitude = min(mags) if mags else 0.0
    report.figures["mean_abs_output"] = magnitude
    if task.check == "allclose" and task.atol > 0 and mags and magnitude < 10 * task.atol:
        reasons.append(f"mean |output| {magnitude:.3g} is under 10x atol ({task.atol:g})"
                       + (" in the smallest output" if len(mags) > 1 else ""))
    report.add("nonconstant", not reasons, "; ".join(reasons))

    _lint_memory(task, report)
    if foreign:
        return
    if small:
        report.figures["small_forward_s"] = first_s
        report.add("speed", first_s < max_small_s, f"small-shape forward took {first_s:.2f} s" if first_s >= max_small_s
                   else "")
    else:
        _lint_gpu_speed(task, module, m1, device, flops, nbytes, report)


def constant_state(model) -> list[str]:
    """Each floating parameter or buffer of ``model`` with more than one element, all of one value, as
    ``"name (all V)"``, in ``named_parameters``/``named_buffers`` order; [] for a model that is no ``nn.Module``.

    Left out: the running statistics of a batch or instance norm in training mode, which its forward only writes
    (it normalises by the batch's statistics), so no kernel's output depends on them."""
    import torch

    if not isinstance(model, torch.nn.Module):
        return []
    unread = set()
    for prefix, module in model.named_modules():
        if isinstance(module, torch.nn.modules.batchnorm._NormBase) and module.training:
            unread.update(f"{prefix}.{n}" if prefix else n for n in ("running_mean", "running_var"))
    out = []
    for name, t in (*model.named_parameters(), *model.named_buffers()):
        if name in unread or not t.is_floating_point() or t.numel() <= 1:
            continue
        flat = t.detach().reshape(-1)
        if bool((flat == flat[0]).all()):
            out.append(f"{name} (all {float(flat[0]):g})")
    return out


def _lint_memory(task: Task, report: LintReport) -> None:
    bound, traced = footprint_bound(task)
    report.figures["footprint_bound_gb"] = bound / 1e9
    detail = "" if traced else "forward not traceable on the meta device: inputs and parameters only"
    if bound > MEMORY_BUDGET_BYTES:
        detail = f"up to {bound / 1e9:.1f} GB at the default shapes, above {MEMORY_BUDGET_BYTES / 1e9:.0f} GB" + \
            ("" if traced else " (inputs and parameters alone)")
    report.add("memory", bound <= MEMORY_BUDGET_BYTES, detail)


def _lint_gpu_speed(task, module, model, device, flops, nbytes, report) -> None:
    from kernelgym.hardware import detect
    from kernelgym.judge.inputs import make_inputs
    from kernelgym.judge.timing import TimingConfig, summarize, time_calls

    times = time_calls(model, lambda i: make_inputs(module, 100 + i, device), device,
                       TimingConfig(warmup=2, min_runs=5, max_runs=20, budget_s=1.0, rel_ci=0.02))
    ms = summarize(times)["median_ms"]
    spec = detect(device)
    report.figures["eager_ms"] = ms
    problems = []
    lo, hi = RUNTIME_BAND_MS
    if not lo <= ms <= hi:
        problems.append(f"eager runtime {ms:.3g} ms outside [{lo:g}, {hi:g}] ms")
    if nbytes:
        tbs = nbytes / (ms * 1e-3) / 1e12
        report.figures["implied_tbs"] = tbs
        ceiling = spec.ceiling("bandwidth_tbs")
        if ceiling and tbs > ceiling:
            problems.append(f"implied bandwidth {tbs:.2f} TB/s above the {ceiling:.2f} TB/s ceiling")
    if flops:
        tfs = flops / (ms * 1e-3) / 1e12
        report.figures["implied_tflops"] = tfs
        prec = {"float32": "tf32", "float16": "fp16", "bfloat16": "bf16", "int8": "int8"}.get(task.dtype, "fp32")
        ceiling = spec.ceiling(prec)
        if ceiling and tfs > ceiling:
            problems.append(f"implied {tfs:.1f} TFLOP/s above the {prec} ceiling {ceiling:.0f}")
    report.add("speed", not problems, "; ".join(problems))


def _equal(x, y) -> bool:
    import torch

    if torch.is_tensor(x) and torch.is_tensor(y):
        return x.shape == y.shape and x.dtype == y.dtype and bool(torch.equal(x.nan_to_num(), y.nan_to_num()))
    return x == y


def _lint_one(args):
    task_dict, device = args
    return lint_task(Task.from_dict(task_dict), device).to_dict()


def lint_tasks(tasks, device: str = "cpu", jobs: int = 1, on_report=None) -> list[LintReport]:
    """Lint every task; ``jobs > 1`` spreads tasks over processes (CPU only); ``on_report`` sees each report."""
    out = []
    if jobs <= 1 or device != "cpu":
        reports = (lint_task(t, device) for t in tasks)
    else:
        pool = ProcessPoolExecutor(jobs)
        dicts = pool.map(_lint_one, [(t.to_dict(), device) for t in tasks])
        reports = (LintReport(d["task_id"], {n: (c["ok"], c["detail"]) for n, c in d["checks"].items()},
                              d["figures"]) for d in dicts)
    for report in reports:
        if on_report is not None:
            on_report(report)
        out.append(report)
    return out
