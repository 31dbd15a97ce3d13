"""The torch-use policy: how much of a forward's work torch itself may do.

=========  ==================================================================================================
``strict`` all compute in the candidate's own kernels: torch compute calls are rejected statically (including
           library calls in CUDA source: cuBLAS, cuDNN, CUTLASS, ``at::``/``torch::`` compute); on the CPU any
           aten operator in the profiled forward but allocation, views and copies is rejected; on a GPU the
           candidate's own kernels must carry at least the judge's ``min_kernel_coverage`` (50%) of the
           forward's kernel time; and no forward (trial or profiled) may hand tensor values to host code
           (numpy, DLPack, lists, Python numbers: :class:`kernelgym.judge.profile.HostReads`).
``partial`` (default) torch, cuBLAS and cuDNN may do part of the work (keeping cuDNN's convolution and fusing
           what follows it is the honest way to speed up many KernelBench level-2 tasks), but the candidate's own
           kernels must run in the forward; the share of the forward's GPU time they carry is measured by the
           profiler and reported as ``EvalResult.kernel_coverage`` for reward functions to use.
``off``    hard rules only (no coverage requirement): closest to KernelBench's own defaults.
=========  ==================================================================================================

The hard rules (everything that games the judge: patching, reflection, processes, threads and exits in Python,
reuse of the reference, try/except fallbacks, streams and timing tricks; docs/SECURITY.md) apply under every
policy. Only the flags in :data:`TORCH_USE_FLAGS` depend on it.
"""

from __future__ import annotations

POLICIES = ("strict", "partial", "off")
DEFAULT = "partial"
#: flags that reject the use of torch's own compute, and the policies under which each one applies
TORCH_USE_FLAGS = {"torch_fallback": ("strict",), "low_kernel_coverage": ("strict",),
                   "no_custom_kernel": ("strict", "partial")}


def check(policy: str) -> str:
    """``policy`` itself, or ValueError naming the choices."""
    if policy not in POLICIES:
        raise ValueError(f"torch_policy must be one of {', '.join(POLICIES)}; got {policy!r}")
    return policy


def applies(flag: str, policy: str) -> bool:
    """Whether ``flag`` rejects a candidate under ``policy`` (every flag not about torch use always does)."""
    return policy in TORCH_USE_FLAGS.get(flag, POLICIES)
