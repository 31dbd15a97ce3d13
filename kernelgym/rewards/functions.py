"""The built-in rewards. Each docstring states the formula; docs/REWARDS.md repeats them with examples."""

from __future__ import annotations

import math

from kernelgym.rewards.registry import register_reward


def _get(result, name):
    return result.get(name) if isinstance(result, dict) else getattr(result, name)


def _is_correct(result) -> bool:
    return _get(result, "status") == "ok"


def _degenerate(result) -> bool:
    """Whether the judge flagged the task ``degenerate_task`` (its reference ignores its inputs: a constant wins)."""
    return any(isinstance(f, dict) and f.get("name") == "degenerate_task" for f in _get(result, "flags") or ())


def _speedup(result) -> float | None:
    """The speedup to reward: ``None`` unless it was measured meaningfully (on a GPU) on a task whose outputs depend
    on its inputs (on a ``degenerate_task`` any constant is correct, so its speed proves nothing)."""
    s = _get(result, "speedup")
    if s is None or not _get(result, "timing_meaningful") or not math.isfinite(s) or s <= 0 or _degenerate(result):
        return None
    return float(s)


def _check_cap(cap: float) -> None:
    """A speedup cap must be a finite number above 1 (``"speedup:nan"`` made every correct kernel's reward NaN)."""
    if not (isinstance(cap, (int, float)) and math.isfinite(cap) and cap > 1):
        raise ValueError(f"cap must be a finite number > 1, got {cap!r}")


def speedup_reward(cap: float = 10.0):
    """Correctness-gated, bounded speedup reward (the default).

    * not correct (any status but ``ok``): ``0.0``
    * correct: ``0.3 + 0.7 * clip(log2(speedup) / log2(cap), 0, 1)`` with speedup over eager PyTorch; a correct kernel
      slower than eager earns 0.3, one ``cap``× faster (default 10×) earns 1.0. When timing is not meaningful
      (CPU interpreter) a correct kernel earns 0.3.

    Range [0, 1]; any correct kernel (≥ 0.3) beats any incorrect or rejected one (0).
    """
    _check_cap(cap)
    return _Reward(_speedup_value, cap)


def speedup_coverage_reward(cap: float = 10.0):
    """The speedup reward with the speedup's share credited to the candidate's own kernels (for RL training under
    ``torch_policy="partial"``, where torch, cuBLAS and cuDNN may do part of the forward's work).

    * not correct: ``0.0``
    * correct: ``0.3 + 0.7 * coverage * clip(log2(speedup) / log2(cap), 0, 1)`` with ``coverage`` the result's
      ``kernel_coverage`` (the share of the forward's GPU time in the candidate's own kernels) clipped to [0, 1]; a
      speedup whose coverage was not measured earns no bonus. On the CPU (speed not measured) a correct kernel
      earns 0.3, as with ``speedup``.

    Range [0, 1]; any correct kernel (≥ 0.3) beats any incorrect or rejected one (0). A kernel that beats eager
    by leaving most of the work to a library earns little more than a correct one.
    """
    _check_cap(cap)
    return _Reward(_speedup_coverage_value, cap)


def fast_p_reward(p: float = 1.0):
    """``1.0`` if correct and speedup > p over eager, else ``0.0`` (KernelBench's fast_p as a reward).

    With ``p = 0`` this is the correctness reward. Unmeasured speedups (CPU) count as not fast for ``p > 0``.
    ``p`` must be a finite number (``"fast_p:nan"`` never paid a correct kernel: ValueError).
    """
    if not (isinstance(p, (int, float)) and math.isfinite(p)):
        raise ValueError(f"p must be a finite number, got {p!r}")
    return _Reward(_fast_p_value, p)


def correct_reward():
    """``1.0`` if correct (status ``ok``), else ``0.0``."""
    return _Reward(_correct_value)


def shaped_reward(cap: float = 10.0):
    """Tiers for dense early signal:

    * ``rejected`` by the anti-hack guards: ``-1.0`` (below a plain failure, so gaming never pays)
    * format / syntax / compile errors, timeouts, crashes: ``0.0``
    * compiled but wrong or raised at run time: ``0.1``
    * correct: ``0.5 + 0.5 * clip(log2(speedup) / log2(cap), 0, 1)`` (0.5 when unmeasured or not faster)
    * bonus ``+0.1`` (still capped at 1.0) when this attempt beats the best correct speedup so far in ``history``
      (KernelEnv's default step reward pays improvements itself and passes no history: a bonus over the episode's
      own attempts paid for a slow kernel submitted first as the baseline).
    """
    _check_cap(cap)
    return _Reward(_shaped_value, cap)


# -- the formulas, as module-level functions so that a reward pickles (an env sent to a Ray worker, a
# multiprocessing pool): the closures they replaced could not be pickled by the standard library --------------------
def _bonus(s: float, cap: float) -> float:
    return min(max(math.log2(s) / math.log2(cap), 0.0), 1.0)


def _speedup_value(result, history, cap: float) -> float:
    if not _is_correct(result):
        return 0.0
    s = _speedup(result)
    return 0.3 + 0.7 * (0.0 if s is None else _bonus(s, cap))


def _speedup_coverage_value(result, history, cap: float) -> float:
    if not _is_correct(result):
        return 0.0
    s = _speedup(result)
    if s is None:
        return 0.3
    coverage = _get(result, "kernel_coverage")
    coverage = min(max(float(coverage), 0.0), 1.0) if coverage is not None and math.isfinite(coverage) else 0.0
    return 0.3 + 0.7 * coverage * _bonus(s, cap)


def _fast_p_value(result, history, p: float) -> float:
    if not _is_correct(result):
        return 0.0
    if p <= 0:
        return 1.0
    s = _speedup(result)
    return 1.0 if s is not None and s > p else 0.0


def _correct_value(result, history) -> float:
    return 1.0 if _is_correct(result) else 0.0


def _shaped_value(result, history, cap: float) -> float:
    status = _get(result, "status")
    if status == "rejected":
        return -1.0
    if status in ("incorrect", "runtime_error"):
        return 0.1
    if status != "ok":
        return 0.0
    s = _speedup(result)
    value = 0.5 + 0.5 * (0.0 if s is None else _bonus(s, cap))
    best = max((_speedup(h) or 0.0 for h in history if _is_correct(h)), default=None)
    if s is not None and best is not None and s > best:
        value += 0.1
    return min(value, 1.0)


class _Reward:
    """A built-in reward: ``reward(result, history=()) -> float``, a formula above with its parameter bound.
    Picklable, unlike the closures it replaced."""

    __slots__ = ("args", "formula")

    def __init__(self, formula, *args):
        self.formula, self.args = formula, args

    def __call__(self, result, history=()) -> float:
        return self.formula(result, history, *self.args)

    def __getstate__(self):
        return (self.formula, self.args)

    def __setstate__(self, state):
        self.formula, self.args = state

    def __repr__(self) -> str:
        name = self.formula.__name__.strip("_").removesuffix("_value")
        return f"<reward {name}{':' + ':'.join(map(str, self.args)) if self.args else ''}>"


register_reward("speedup", speedup_reward)
register_reward("speedup_coverage", speedup_coverage_reward)
register_reward("fast_p", fast_p_reward)
register_reward("correct", correct_reward)
register_reward("shaped", shaped_reward)
