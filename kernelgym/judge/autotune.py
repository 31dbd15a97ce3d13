"""Triton ``@autotune`` sweeps inside the worker: bounded, cheap under a shared hold, and picked again alone.

A candidate's autotune sweep compiles and benchmarks every config at its first launch; some real kernels list dozens
of configs and spend 50-100 s there. The worker applies :func:`bound_autotune` before the candidate is imported:
each ``@triton.autotune`` keeps at most ``max_configs`` configs (the first ones, in the candidate's order). On the
CPU interpreter the bound is one config: there is no GPU to benchmark on (Triton's sweep fails there with "0 active
drivers"), so the first config is used. The bound is part of the evaluation contract (docs/ARCHITECTURE.md); a
candidate that needs a particular config should list it first.

The sweep at the first launch runs inside the candidate's first forward, under a *shared* hold of the GPU: other
evaluations' trials run beside it, so its timings carry their load and its pick is close to a draw among the configs
within the load's noise (on the H200 the ReLU solution's speedup under load ranged over 0.85-0.93x against 0.98x
alone). So the pick that is timed is made again with the GPU alone: :func:`forget_picks` empties every sweep's
cache at the start of the timing stage, whose first call then sweeps again inside the exclusive hold (every config is
compiled already, so that sweep only benchmarks). Where the candidate does not bring its own benchmark function, the
sweeps use :func:`sweep_bench`: a short one under the shared hold (:data:`SHARED_SWEEP_MS`: it only has to find a
config that runs) and a longer one alone (:data:`ALONE_SWEEP_MS`). Sweeps never read or write Triton's on-disk cache
of picks (``cache_results``): a pick stored under load would come back.

What a candidate does with its own tuning code is its own choice, as it always was; this only keeps Triton's
autotuner from charging a candidate for other evaluations' load.
"""

from __future__ import annotations

import inspect

MAX_AUTOTUNE_CONFIGS = 8

#: (warm-up, repetition) of one config's benchmark in ms, Triton's ``do_bench`` arguments: the sweep at the first
#: forward, under a shared hold (its pick only serves the trials; timing sweeps again)
SHARED_SWEEP_MS = (1, 5)
#: the same for the sweep at the start of timing, with the GPU alone (Triton's defaults are 25 and 100)
ALONE_SWEEP_MS = (5, 25)

_sweep = {"ms": SHARED_SWEEP_MS}
_tuners: list = []


def sweep_bench(kernel_call, quantiles=None):
    """The sweeps' benchmark function (Triton's ``do_bench`` signature for autotuners): ``triton.testing.do_bench``
    for the current phase's warm-up and repetition times."""
    import triton.testing

    warmup, rep = _sweep["ms"]
    return triton.testing.do_bench(kernel_call, warmup=warmup, rep=rep, quantiles=quantiles)


def bound_autotune(max_configs: int = MAX_AUTOTUNE_CONFIGS) -> bool:
    """Make ``triton.autotune`` (also under ``triton.runtime`` and ``triton.runtime.autotuner``) keep at most ``max_configs`` configs, benchmark with :func:`sweep_bench` unless the
    candidate passes its own, never use the on-disk cache of picks, and record every autotuner it makes for
    :func:`forget_picks`; returns whether it was applied."""
    try:
        import triton
    except ImportError:  # pragma: no cover
        return False
    original = getattr(triton, "autotune", None)
    if original is None or getattr(original, "_kernelgym_bounded", None) == max_configs:
        return False
    original = getattr(original, "_kernelgym_original", original)
    params = inspect.signature(original).parameters

    def autotune(configs, *args, **kwargs):
        if "do_bench" in params and not {"do_bench", "warmup", "rep", "use_cuda_graph"} & kwargs.keys():
            kwargs["do_bench"] = sweep_bench
        if "cache_results" in params:
            kwargs["cache_results"] = False
        decorate = original(list(configs)[:max_configs], *args, **kwargs)

        def record(fn):
            tuner = decorate(fn)
            _tuners.append(tuner)
            return tuner

        return record

    autotune._kernelgym_bounded = max_configs
    autotune._kernelgym_original = original
    autotune.__doc__ = original.__doc__
    import triton.runtime
    import triton.runtime.autotuner

    for module in (triton, triton.runtime, triton.runtime.autotuner):  # every public name of the decorator
        module.autotune = autotune
    return True


def _autotuners_in(namespace: dict) -> list:
    """The Triton autotuners among ``namespace``'s values, also under ``@triton.heuristics`` wrappers."""
    try:
        from triton.runtime.autotuner import Autotuner
    except ImportError:  # pragma: no cover
        return []
    found = []
    for value in list(namespace.values()):
        for _ in range(8):  # a wrapper's chain of .fn: heuristics over autotune over jit
            if isinstance(value, Autotuner):
                found.append(value)
            value = getattr(value, "fn", None)
            if value is None:
                break
    return found


def forget_picks(namespace: dict | None = None) -> int:
    """Empty the caches of picks of every autotuner :func:`bound_autotune` made and of those in ``namespace`` (the
    candidate module's globals: autotuners built without ``triton.autotune``), and switch :func:`sweep_bench` to the
    alone phase: the next launch of each sweeps again. Returns how many autotuners had picks."""
    _sweep["ms"] = ALONE_SWEEP_MS
    forgotten = 0
    seen: set[int] = set()
    for tuner in [*_tuners, *_autotuners_in(namespace or {})]:
        if id(tuner) in seen:
            continue
        seen.add(id(tuner))
        cache = getattr(tuner, "cache", None)
        if isinstance(cache, dict):
            forgotten += bool(cache)
            cache.clear()
        if getattr(tuner, "cache_results", False):
            tuner.cache_results = False
    return forgotten
