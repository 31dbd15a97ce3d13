"""One pass of a Triton kernel over a chunk of outputs: the figures :func:`kernelgym.judge.correctness.compare_tensor`
computes for it with torch, read from memory once.

compare_tensor's torch path converts a chunk of the reference and the candidate's output to float64 and runs about
twenty element-wise operations and reductions over it, each a pass over float64 temporaries (about 360 bytes
moved per element, and a synchronisation per figure read back). On an output of 4.58 GiB (L1/15) that is about two
seconds of GPU memory traffic per evaluation, every trial's comparison included (batch B, H100, ca010d6). The kernel
here reads each element once (the reference, the output and, where given, the float64 result: 8 to 20 bytes an
element), computes in float64 exactly the quantities of the torch path, and writes a few figures per block of
:data:`BLOCK` elements; torch reduces those (a few MB) and one read brings the chunk's figures back.

Contract of :func:`chunk_figures`: for a chunk where NaN and ±Inf of the output stand exactly where the reference's
do, the same count of elements beyond tolerance, the same largest absolute and relative differences, and the same
largest excess over the tolerance (and a position where it is that large) as the torch path; where they do not stand alike it says so
and computes nothing else, and the caller runs the torch path for its message. The arithmetic is the torch path's
(float64 throughout); the kernel may fuse a multiply and an add, which rounds once instead of twice (a difference of
one float64 rounding in the tolerance, far below any tolerance). The kernel is the judge's own code, compiled in the
runner's process into the runner's Triton cache, which no worker can write (workers have their own, in their
scratch folder). Used on CUDA tensors only, without a per-row allowance (the wide trial keeps the torch path);
``KERNELGYM_FUSED_COMPARE=0`` turns it off (the torch path everywhere: how its gain is measured). A kernel that
fails to compile or launch turns it off for the process and the torch path answers.
"""

from __future__ import annotations

import logging
import os
import threading
from typing import NamedTuple

__all__ = ["ChunkFigures", "chunk_figures", "enabled", "usable"]

#: elements per program of the kernel
BLOCK = 1024

#: the dtypes the kernel loads (others take the torch path)
_DTYPES = ("float16", "bfloat16", "float32", "float64")

_lock = threading.Lock()
_kernel = None
_broken: str | None = None  # why the kernel was turned off for this process


class ChunkFigures(NamedTuple):
    """A chunk's figures (module docstring); the others are 0 where ``nonfinite_mismatch``."""

    nonfinite_mismatch: bool
    n_bad: int
    max_abs: float
    max_rel: float
    max_excess: float
    worst: int  # a position in the chunk where the excess is ``max_excess``


def enabled() -> bool:
    """Whether the fused comparison may be used in this process (``KERNELGYM_FUSED_COMPARE`` is not ``0`` and the
    kernel has not failed here)."""
    return os.environ.get("KERNELGYM_FUSED_COMPARE", "1") != "0" and _broken is None


def usable(ref, out, exact=None) -> bool:
    """Whether :func:`chunk_figures` takes these flat tensors in the judge: all on one CUDA device, contiguous (a
    flat view of a strided output keeps its stride; the kernel reads consecutive elements), of a dtype the kernel
    loads, and :func:`enabled`."""
    tensors = [t for t in (ref, out, exact) if t is not None]
    return (enabled() and all(t.is_cuda and t.device == ref.device and t.is_contiguous() for t in tensors)
            and all(str(t.dtype).replace("torch.", "") in _DTYPES for t in tensors))


def _build():
    import triton
    import triton.language as tl

    @triton.jit
    def compare_blocks(r_ptr, o_ptr, e_ptr, n, tol_ptr, figures_ptr, counts_ptr,
                       HAS_EXACT: tl.constexpr, BLOCK: tl.constexpr):
        pid = tl.program_id(0)
        atol = tl.load(tol_ptr)  # float64: a scalar argument would be float32
        rtol = tl.load(tol_ptr + 1)
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        inside = offs < n
        r = tl.load(r_ptr + offs, mask=inside, other=0.0).to(tl.float64)
        o = tl.load(o_ptr + offs, mask=inside, other=0.0).to(tl.float64)
        inf = float("inf")
        r_nan, o_nan = r != r, o != o
        mismatch = (r_nan != o_nan) | ((r == inf) != (o == inf)) | ((r == -inf) != (o == -inf))
        mismatches = tl.sum((mismatch & inside).to(tl.int64), axis=0)
        finite = (r == r) & (tl.abs(r) != inf)
        r0 = tl.where(finite, r, 0.0)
        o0 = tl.where(finite, o, 0.0)
        diff = tl.abs(o0 - r0)
        excess = diff - (atol + rtol * tl.abs(r0))
        if HAS_EXACT:
            e = tl.load(e_ptr + offs, mask=inside, other=0.0).to(tl.float64)
            to_exact = tl.abs(o0 - e) - (atol + rtol * tl.abs(e))
            excess = tl.minimum(excess, tl.where((e == e) & (tl.abs(e) != inf), to_exact, inf))
        excess = tl.where(inside, excess, -inf)
        diff = tl.where(inside, diff, 0.0)
        rel = diff / tl.maximum(tl.abs(r0), 1e-12)
        worst_excess, worst = tl.max(excess, axis=0, return_indices=True)
        tl.store(figures_ptr + pid * 3, tl.max(diff, axis=0))
        tl.store(figures_ptr + pid * 3 + 1, tl.max(rel, axis=0))
        tl.store(figures_ptr + pid * 3 + 2, worst_excess)
        tl.store(counts_ptr + pid * 3, tl.sum((excess > 0).to(tl.int64), axis=0))
        tl.store(counts_ptr + pid * 3 + 1, pid * BLOCK + worst.to(tl.int64))
        tl.store(counts_ptr + pid * 3 + 2, mismatches)

    return compare_blocks


def chunk_figures(ref, out, exact, atol: float, rtol: float) -> ChunkFigures | None:
    """The :class:`ChunkFigures` of flat contiguous tensors ``ref`` and ``out`` (same dtype and length below 2**31,
    one device) and ``exact`` (the float64 result, or ``None``) within ``atol + rtol * |x|``; ``None`` when the
    kernel failed (it is then off for the process, :func:`enabled`, and the failure is logged once)."""
    import torch

    global _kernel, _broken
    n = ref.numel()
    blocks = max(1, -(-n // BLOCK))
    figures = torch.empty((blocks, 3), dtype=torch.float64, device=ref.device)
    counts = torch.empty((blocks, 3), dtype=torch.int64, device=ref.device)
    tolerance = torch.tensor([float(atol), float(rtol)], dtype=torch.float64, device=ref.device)
    try:
        with _lock:  # the first launch compiles: one thread at a time
            if _kernel is None:
                _kernel = _build()
            _kernel[(blocks,)](ref, out, exact if exact is not None else ref, n, tolerance, figures, counts,
                               HAS_EXACT=exact is not None, BLOCK=BLOCK)
    except Exception as exc:  # noqa: BLE001 - the torch path answers instead
        _broken = f"{type(exc).__name__}: {exc}"[:300]
        logging.getLogger(__name__).warning("the fused comparison is off in this process (the torch path compares "
                                            "instead): %s", _broken)
        return None
    worst_block = torch.argmax(figures[:, 2])
    summary = torch.stack([counts[:, 2].sum().to(torch.float64), counts[:, 0].sum().to(torch.float64),
                           figures[:, 0].max(), figures[:, 1].max(), figures[worst_block, 2],
                           counts[worst_block, 1].to(torch.float64)]).tolist()  # one read back
    mismatches, n_bad, max_abs, max_rel, max_excess, worst = summary
    if mismatches:
        return ChunkFigures(True, 0, 0.0, 0.0, 0.0, 0)
    return ChunkFigures(False, int(n_bad), max_abs, max_rel, max_excess, int(worst))
