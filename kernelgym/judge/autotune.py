"""Bounding Triton ``@autotune`` sweeps inside the worker.

A candidate's autotune sweep compiles and benchmarks every config at its first launch; some real kernels list dozens
of configs and spend 50-100 s there. The worker applies :func:`bound_autotune` before the candidate is imported:
each ``@triton.autotune`` keeps at most ``max_configs`` configs (the first ones, in the candidate's order) and the
sweep's own benchmarking is capped by Triton's ``warmup``/``rep`` defaults. On the CPU interpreter the bound is one
config: there is no GPU to benchmark on (Triton's sweep fails there with "0 active drivers"), so the first config
is used. The bound is part of the evaluation contract (docs/ARCHITECTURE.md); a candidate that needs a particular
config should list it first.
"""

from __future__ import annotations

MAX_AUTOTUNE_CONFIGS = 8


def bound_autotune(max_configs: int = MAX_AUTOTUNE_CONFIGS) -> bool:
    """Make ``triton.autotune`` keep at most ``max_configs`` configs; returns whether it was applied."""
    try:
        import triton
    except ImportError:  # pragma: no cover
        return False
    original = getattr(triton, "autotune", None)
    if original is None or getattr(original, "_kernelgym_bounded", None) == max_configs:
        return False
    original = getattr(original, "_kernelgym_original", original)

    def autotune(configs, *args, **kwargs):
        return original(list(configs)[:max_configs], *args, **kwargs)

    autotune._kernelgym_bounded = max_configs
    autotune._kernelgym_original = original
    autotune.__doc__ = original.__doc__
    triton.autotune = autotune
    return True
