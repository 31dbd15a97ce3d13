"""Benchmark metrics over EvalResult dicts (``EvalResult.to_dict()`` or the JSON of one): pure functions.

Conventions, the same in every function, report and table:

* **correct**: ``status == "ok"``.
* **measured speedup**: the result's ``speedup`` when it is correct, ``timing_meaningful`` is true, the
  speedup is a finite positive number and the result is not flagged ``degenerate_task``; otherwise the speedup is
  *unmeasured* (``None``). On the CPU interpreter every speedup is unmeasured; on a degenerate task any constant
  kernel is correct, so its speed proves nothing (as in every built-in reward).
* **fast_p**: the share of results that are correct *and* have a measured speedup ``> p``
  (KernelBench's definition). For ``p <= 0`` it is the share of correct results, so ``fast_0`` is correctness;
  for ``p > 0`` an unmeasured speedup never counts as fast. With several samples per task, fast_p is the share
  over all samples (the expected fast_p of one sample). The share of an empty list is ``0.0``.
* **geometric-mean speedup**: over correct results with a measured speedup; ``None`` when there are none.
* **degenerate**: a result flagged ``degenerate_task`` (the reference's output did not depend on its inputs, so a
  constant kernel can "win"); counted in every summary, correct but never fast for ``p > 0`` and not in the
  geometric mean (its speedup is unmeasured), and left out altogether by :func:`exclude_degenerate`.
* **pass@k**: the unbiased estimator of Chen et al. (2021), ``1 - C(n-c, k) / C(n, k)`` for a task with ``n``
  samples of which ``c`` are correct, averaged over the tasks that have ``n >= k`` samples (``None`` if none do).
"""

from __future__ import annotations

import math
from typing import Callable, Iterable, Mapping, Sequence

from kernelgym.judge.result import JUDGE_FAULT_FLAGS, STAGES

DEFAULT_PS: tuple[float, ...] = (0.0, 0.5, 0.8, 1.0, 1.5, 2.0)
DEFAULT_KS: tuple[int, ...] = (1, 5, 10)

Result = Mapping  # an EvalResult as a dict


def is_correct(result: Result) -> bool:
    return result.get("status") == "ok"


def is_compiled(result: Result) -> bool:
    """The ``compiled`` field when present; otherwise derived as :attr:`EvalResult.compiled` derives it."""
    if "compiled" in result:
        return bool(result["compiled"])
    stage = result.get("stage", "format")
    return (stage in STAGES and STAGES.index(stage) > STAGES.index("compile")) \
        or result.get("status") in ("ok", "incorrect")


def measured_speedup(result: Result) -> float | None:
    """The speedup when correct and meaningfully timed (finite, > 0) on a task that is not degenerate; ``None``
    otherwise. (A constant kernel on KernelBench's L2/80, whose reference returns zeros, was ``ok`` with the
    speedup of a kernel that reads nothing, and counted in fast_p and the geometric mean of ``kernelgym eval``'s
    report, which the docs said left such tasks out: a seventeenth red-team helper, 2026-12-07.)"""
    s = result.get("speedup")
    if not is_correct(result) or not result.get("timing_meaningful") or not isinstance(s, (int, float)) \
            or isinstance(s, bool) or is_degenerate(result):
        return None
    return float(s) if math.isfinite(s) and s > 0 else None


def is_degenerate(result: Result) -> bool:
    return any(isinstance(f, Mapping) and f.get("name") == "degenerate_task" for f in result.get("flags") or ())


def is_judge_fault(result: Result) -> bool:
    """A verdict about the judge, not the candidate (a flag of ``JUDGE_FAULT_FLAGS``: ``judge_error``,
    ``aborted``), as :attr:`EvalResult.judge_fault` says of the result itself."""
    return any(isinstance(f, Mapping) and f.get("name") in JUDGE_FAULT_FLAGS for f in result.get("flags") or ())


def exclude_degenerate(results: Sequence[Result]) -> list[Result]:
    """``results`` without those of tasks any result flagged degenerate (the whole task goes, every sample)."""
    bad = {r.get("task_id") for r in results if is_degenerate(r)}
    return [r for r in results if r.get("task_id") not in bad]


def is_fast(result: Result, p: float) -> bool:
    """Correct and (``p <= 0`` or measured speedup ``> p``)."""
    if not is_correct(result):
        return False
    if p <= 0:
        return True
    s = measured_speedup(result)
    return s is not None and s > p


def fast_p(results: Sequence[Result], p: float) -> float:
    """Share of ``results`` that are fast at threshold ``p`` (see the module docstring)."""
    return sum(is_fast(r, p) for r in results) / len(results) if results else 0.0


def fast_p_curve(results: Sequence[Result], ps: Iterable[float] = DEFAULT_PS) -> dict[str, float]:
    """``{"fast_<p>": share}`` for each threshold, keyed with :func:`fast_key`."""
    return {fast_key(p): fast_p(results, p) for p in ps}


def fast_key(p: float) -> str:
    """The name of a threshold's column: ``fast_0``, ``fast_0.5``, ``fast_1``, ``fast_1.5`` ..."""
    return f"fast_{p:g}"


def geomean_speedup(results: Sequence[Result]) -> float | None:
    """Geometric mean of the measured speedups of correct results; ``None`` when none was measured."""
    logs = [math.log(s) for s in map(measured_speedup, results) if s is not None]
    return math.exp(sum(logs) / len(logs)) if logs else None


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k for one task with ``n`` samples, ``c`` of them correct.

    Raises:
        ValueError: unless ``0 <= c <= n`` and ``1 <= k <= n``.
    """
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n (n={n}, c={c}, k={k})")
    if n - c < k:
        return 1.0
    # 1 - C(n-c, k) / C(n, k) as a product, which stays exact-ish for large n
    return 1.0 - math.prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def group(results: Iterable[Result], key: Callable[[Result], str]) -> dict[str, list[Result]]:
    """Results grouped by ``key(result)``, groups in sorted key order."""
    out: dict[str, list[Result]] = {}
    for r in results:
        out.setdefault(key(r), []).append(r)
    return dict(sorted(out.items()))


def mean_pass_at_k(results: Sequence[Result], k: int) -> float | None:
    """pass@k averaged over the tasks (``task_id``) that have at least ``k`` samples; ``None`` if none has."""
    values = [pass_at_k(len(rs), sum(map(is_correct, rs)), k)
              for rs in group(results, lambda r: str(r.get("task_id"))).values() if len(rs) >= k]
    return sum(values) / len(values) if values else None


def summarize(results: Sequence[Result], ps: Iterable[float] = DEFAULT_PS,
              ks: Iterable[int] = DEFAULT_KS) -> dict:
    """One row of numbers for a set of results.

    Keys: ``n`` (results), ``tasks`` (distinct task ids), ``compiled``, ``correct``, ``measured`` (results with a
    measured speedup), ``degenerate`` (results flagged ``degenerate_task``), ``compiled_rate``, ``correct_rate``, ``fast_p`` (``{fast_<p>: share}``),
    ``geomean_speedup`` (or ``None``), ``pass_at_k`` (``{"pass@<k>": value or None}``).
    """
    n = len(results)
    compiled = sum(map(is_compiled, results))
    correct = sum(map(is_correct, results))
    return {
        "n": n,
        "tasks": len({r.get("task_id") for r in results}),
        "compiled": compiled,
        "correct": correct,
        "measured": sum(measured_speedup(r) is not None for r in results),
        "degenerate": sum(map(is_degenerate, results)),
        "compiled_rate": compiled / n if n else 0.0,
        "correct_rate": correct / n if n else 0.0,
        "fast_p": fast_p_curve(results, ps),
        "geomean_speedup": geomean_speedup(results),
        "pass_at_k": {f"pass@{k}": mean_pass_at_k(results, k) for k in ks},
    }


def level_label(task_id: str) -> str:
    """The level group of a task id: its prefix (``"L1/15_relu"`` → ``"L1"``, ``"X/..."`` → ``"X"``)."""
    return task_id.split("/", 1)[0] if "/" in task_id else "?"


def tables(results: Sequence[Result], categories: Mapping[str, str] | None = None,
           ps: Iterable[float] = DEFAULT_PS, ks: Iterable[int] = DEFAULT_KS) -> dict:
    """The full report: ``overall``, ``by_level`` and ``by_category`` summaries (see :func:`summarize`).

    Args:
        results: EvalResult dicts (several per task for pass@k).
        categories: task id → category name; tasks missing from it fall in ``"unknown"``.
        ps, ks: fast_p thresholds and pass@k values.

    The returned dict also holds ``ps``, ``ks`` and ``timing_meaningful`` (``"all"``, ``"none"`` or ``"some"``:
    whether the results' speedups were measured on a GPU).
    """
    ps, ks = tuple(ps), tuple(ks)
    categories = categories or {}
    meaningful = {bool(r.get("timing_meaningful")) for r in results if is_correct(r)}
    return {
        "ps": list(ps),
        "ks": list(ks),
        "timing_meaningful": "all" if meaningful == {True} else "some" if meaningful == {True, False} else "none",
        "overall": summarize(results, ps, ks),
        "by_level": {name: summarize(rs, ps, ks)
                     for name, rs in group(results, lambda r: level_label(str(r.get("task_id")))).items()},
        "by_category": {name: summarize(rs, ps, ks)
                        for name, rs in group(results, lambda r: categories.get(str(r.get("task_id")),
                                                                                "unknown")).items()},
    }
