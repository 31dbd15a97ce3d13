"""Honest Triton candidates in still more styles LLM policies write stay ``ok`` (false-alarm hunt, QA round 3).

A third round after ``tests/test_honest_variety.py`` and ``tests/test_honest_variety_2.py``: 29 candidates over 21
bundled tasks, 20 of which neither round covered (L1 ELU, softsign, soft-threshold, prod/min/row-norm/cumprod/
exclusive and masked cumsum, Frobenius normalise, L1/smooth-L1/hinge losses, diag matmul, GEMV; X piecewise clamp,
polar, int8 dequantize, index_select, nearest upsample; plus L2/1), in styles they did not use: a kernel taking its
output dtype as a ``tl.constexpr`` mapped from a ``torch.dtype``, ``@triton.jit(do_not_specialize=...)`` with a
constexpr default, ``extra_repr``, jitted helpers calling each other three deep, ``@triton.heuristics`` setting
``num_warps``, ``tl.static_range`` over a constexpr, ``register_buffer`` (an empty placeholder, an alpha read by
pointer), ``torch.no_grad()`` blocks, autotune with ``prune_configs_by`` and with ``reset_to_zero``,
``tl.associative_scan``/``tl.reduce`` with a jitted combine, a ``@classmethod`` launcher, ``tl.cumsum`` with a
carry, a bool mask passed as ``view(torch.uint8)``, ``self.training`` read, a module-level grid cache dict,
``typing.ClassVar``/``Optional`` class attributes, ``with torch.cuda.device(...)`` / ``with torch.device(...)``, a
``__slots__`` launch-config class (with a ``functools.lru_cache``'d ``@staticmethod`` grid and a ``@property``),
``@dataclass(frozen=True, slots=True)``, ``enum.Enum`` values as kernel arguments, two outputs with ``math``
constants as constexprs, a walrus early return, ``functools.cached_property``, a 3-D grid with int64 offsets,
``out.zero_()``/``.fill_(0.0)`` before atomics, ``torch.empty_strided``, ``*args, **kwargs`` signatures, a weight
transposed with ``.t().contiguous()`` on every call of a fused GEMM, an output padded and returned as a row slice,
``dataclasses.replace`` on a frozen config, a ``@triton.jit`` kernel as a ``@staticmethod`` of a class; and 37
static snippets.

Each is judged on the CPU (Triton's interpreter) at the task's small shapes, static checks on, under the default
policy ``partial`` and under ``strict``. Verdicts when written: 26 honest candidates ``ok`` under both policies
after two static mends; before them 3 of the 26 were ``rejected`` statically under both: ``__slots__`` in a class
body (``forbidden_attribute``, guards) and ``dataclasses.replace`` (``forbidden_module_alias``, "whose code uses
getattr", reach). Refusals kept by design, as strict xfails naming the check: reading ``torch.cuda.current_stream``,
``torch.library.custom_op``, a channels_last output of a contiguous reference (``incorrect``,
``correctness.check_layout``), and 14 of the snippets. Not a false alarm: an annotated global
``SCALE: tl.constexpr = 2`` read in a kernel, which Triton 3.9's compiler refuses (``compile_error``).
docs/SECURITY.md, "False alarms, round 3 (honest variety)".
"""

from __future__ import annotations

import pytest

from kernelgym.judge.guards import check_source
from kernelgym.testing.honest import PROFILE, Candidate, FalseAlarm, KnownFalseAlarm, candidate_params, expect, \
    is_static


#: the refusals kept by design on whole candidates
STREAM = FalseAlarm("forbidden_attribute", "current_stream",
                    "guards (FORBIDDEN_ATTRS, streams: a Stream object enters as a context and waits on events; "
                    "Triton launches on the current stream without it, CUDA code reads it in C++)")
LIBRARY = FalseAlarm("forbidden_module_alias", "torch.library",
                     "guards/reach (torch.library: kernels registered into the dispatcher are invisible to the "
                     "profiler's ownership test)")
LAYOUT = FalseAlarm("incorrect", "neither contiguous nor the reference's",
                    "correctness.check_layout (a channels_last output of a contiguous reference: the judge's copy-out "
                    "would do the permutation, a data-movement task's whole work)")


CANDIDATES: dict[str, Candidate] = {
    'elu_dtype_constexpr': Candidate('L1/23_elu', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl

_TORCH_TO_TL = {
    torch.float32: tl.float32,
    torch.float16: tl.float16,
    torch.bfloat16: tl.bfloat16,
}


@triton.jit(do_not_specialize=["n_elements"])
def elu_kernel(x_ptr, y_ptr, n_elements, alpha, OUT_DTYPE: tl.constexpr, BLOCK: tl.constexpr = 1024):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.where(x > 0, x, alpha * (tl.exp(x) - 1.0))
    tl.store(y_ptr + offs, y.to(OUT_DTYPE), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, alpha: float = 1.5):
        super().__init__()
        self.alpha = alpha

    def extra_repr(self) -> str:
        return f"alpha={self.alpha}"

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_strided(x.size(), x.stride(), dtype=x.dtype, device=x.device)
        n = x.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
        elu_kernel[grid](x, y, n, self.alpha, OUT_DTYPE=_TORCH_TO_TL[x.dtype], num_warps=4)
        return y
'''),
    'elu_buffer_alpha_ptr': Candidate('L1/23_elu', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def elu_kernel(x_ptr, alpha_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    alpha = tl.load(alpha_ptr)
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    neg = alpha * (tl.exp(tl.minimum(x, 0.0)) - 1.0)
    tl.store(y_ptr + offs, tl.where(x > 0, x, neg), mask=m)


class ModelNew(nn.Module):
    def __init__(self, alpha: float = 1.5):
        super().__init__()
        self.register_buffer("alpha", torch.tensor([alpha], dtype=torch.float32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        alpha = self.alpha.to(x.device)
        y = torch.empty_like(x)
        n = x.numel()
        elu_kernel[(triton.cdiv(n, 1024),)](x, alpha, y, n, BLOCK=1024)
        return y
'''),
    'softsign_staticmethods': Candidate('L1/27_softsign', None, None, text=r'''
from __future__ import annotations

import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _abs(x):
    return tl.where(x >= 0, x, -x)


@triton.jit
def _softsign(x):
    return x / (1.0 + _abs(x))


@triton.jit
def softsign_kernel(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    tl.store(Y + offs, _softsign(tl.load(X + offs, mask=m, other=0.0)), mask=m)


class _Launcher:
    __slots__ = ("block", "num_warps")

    def __init__(self, block: int = 512, num_warps: int = 4):
        self.block = block
        self.num_warps = num_warps

    @staticmethod
    @functools.lru_cache(maxsize=64)
    def grid_for(n: int, block: int) -> tuple[int]:
        return (triton.cdiv(n, block),)

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        softsign_kernel[self.grid_for(x.numel(), self.block)](x, out, x.numel(), BLOCK=self.block,
                                                                 num_warps=self.num_warps)
        return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._launch = _Launcher()

    @property
    def block(self) -> int:
        return self._launch.block

    @classmethod
    def build(cls) -> "ModelNew":
        return cls()

    def forward(self, x):
        return self._launch(x.contiguous())
'''),
    'softsign_slots_only': Candidate('L1/27_softsign', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softsign_kernel(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m, other=0.0)
    tl.store(Y + offs, x / (1.0 + tl.abs(x)), mask=m)


class LaunchConfig:
    __slots__ = ("block", "num_warps")

    def __init__(self, block: int, num_warps: int):
        self.block = block
        self.num_warps = num_warps


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = LaunchConfig(512, 4)

    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        softsign_kernel[(triton.cdiv(n, self.cfg.block),)](x, y, n, BLOCK=self.cfg.block, num_warps=self.cfg.num_warps)
        return y
'''),
    'softthresh_heuristics_chain': Candidate('L1/98_soft_threshold_clamp', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _sign(x):
    return tl.where(x > 0, 1.0, tl.where(x < 0, -1.0, 0.0))


@triton.jit
def _shrink(x, t):
    return tl.where(tl.abs(x) > t, x - t * _sign(x), 0.0)


@triton.jit
def _clip(x, c):
    return tl.minimum(tl.maximum(x, -c), c)


@triton.heuristics({
    "BLOCK_K": lambda args: min(triton.next_power_of_2(args["K"]), 1024),
    "num_warps": lambda args: 4 if args["K"] <= 1024 else 8,
})
@triton.jit
def shrink_clip_kernel(x_ptr, y_ptr, K, stride, thresh, clip, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    for start in tl.range(0, K, BLOCK_K):
        cols = start + tl.arange(0, BLOCK_K)
        m = cols < K
        x = tl.load(x_ptr + row * stride + cols, mask=m, other=0.0)
        tl.store(y_ptr + row * stride + cols, _clip(_shrink(x, thresh), clip), mask=m)


class ModelNew(nn.Module):
    def __init__(self, thresh: float, clip: float):
        super(ModelNew, self).__init__()
        self.thresh, self.clip = float(thresh), float(clip)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.dim() == 2 and x.is_contiguous()
        R, K = x.shape
        y = x.new_empty((R, K))
        shrink_clip_kernel[(R,)](x, y, K, x.stride(0), self.thresh, self.clip)
        return y
'''),
    'prod_static_range': Candidate('L1/43_prod_small_dim', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def prod_mid_kernel(x_ptr, out_ptr, D, stride_b, stride_k, K: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    pd = tl.program_id(1)
    cols = pd * BLOCK_D + tl.arange(0, BLOCK_D)
    m = cols < D
    acc = tl.full((BLOCK_D,), 1.0, dtype=tl.float32)
    for k in tl.static_range(K):
        acc *= tl.load(x_ptr + b * stride_b + k * stride_k + cols, mask=m, other=1.0)
    tl.store(out_ptr + b * D + cols, acc, mask=m)


class ModelNew(nn.Module):
    BLOCK_D = 64

    def __init__(self):
        super().__init__()
        self.register_buffer("_dummy", torch.empty(0), persistent=False)

    def forward(self, x):
        if not x.is_contiguous():
            x = x.contiguous()
        Bn, K, D = x.shape
        out = torch.empty((Bn, D), device=x.device, dtype=x.dtype)
        with torch.no_grad():
            grid = (Bn, triton.cdiv(D, self.BLOCK_D))
            prod_mid_kernel[grid](x, out, D, x.stride(0), x.stride(1), K=K, BLOCK_D=self.BLOCK_D)
        return out
'''),
    'rownorm_autotune_prune': Candidate('L1/45_row_norm', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _prune(configs, named_args, **kwargs):
    d = named_args["D"]
    kept = [c for c in configs if c.kwargs["BLOCK"] <= max(64, triton.next_power_of_2(d))]
    return kept or configs[:1]


@triton.autotune(
    configs=[triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((64, 2), (128, 4), (1024, 8))],
    key=["D"],
    prune_configs_by={"early_config_prune": _prune},
)
@triton.jit
def row_norm_kernel(x_ptr, out_ptr, D, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for off in range(0, D, BLOCK):
        cols = off + tl.arange(0, BLOCK)
        v = tl.load(x_ptr + row * stride + cols, mask=cols < D, other=0.0)
        acc += v * v
    tl.store(out_ptr + row, tl.sqrt(tl.sum(acc, axis=0)))


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, D = x.shape
        out = torch.empty(B, dtype=torch.float32, device=x.device)
        row_norm_kernel[(B,)](x, out, D, x.stride(0))
        return out
'''),
    'rownorm_dataclass_replace': Candidate('L1/45_row_norm', None, None, text=r'''
import dataclasses

import torch
import torch.nn as nn
import triton
import triton.language as tl


@dataclasses.dataclass(frozen=True)
class Launch:
    BLOCK: int = 64
    num_warps: int = 4


DEFAULT = Launch()


@triton.jit
def row_norm_kernel(x_ptr, out_ptr, D, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * stride + cols, mask=cols < D, other=0.0)
    tl.store(out_ptr + row, tl.sqrt(tl.sum(v * v, axis=0)))


class ModelNew(nn.Module):
    def forward(self, x):
        B, D = x.shape
        cfg = dataclasses.replace(DEFAULT, BLOCK=triton.next_power_of_2(D))
        out = torch.empty(B, device=x.device, dtype=x.dtype)
        row_norm_kernel[(B,)](x, out, D, x.stride(0), BLOCK=cfg.BLOCK, num_warps=cfg.num_warps)
        return out
'''),
    'cumprod_assoc_classmethod': Candidate('L1/48_cumprod', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _mul(a, b):
    return a * b


@triton.jit
def cumprod_block_kernel(x_ptr, y_ptr, D, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    carry = 1.0
    for start in range(0, D, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < D
        v = tl.load(x_ptr + row * D + cols, mask=m, other=1.0)
        p = tl.associative_scan(v, 0, _mul) * carry
        tl.store(y_ptr + row * D + cols, p, mask=m)
        carry = tl.reduce(tl.where(m, v, 1.0), 0, _mul) * carry


class ModelNew(nn.Module):
    _BLOCK = 128

    @classmethod
    def _launch(cls, x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        cumprod_block_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=cls._BLOCK)
        return y

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return self._launch(x.contiguous())
'''),
    'exclusive_cumsum_view_offset': Candidate('L1/49_exclusive_cumsum', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def excl_scan_kernel(x_ptr, y_ptr, D, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    running = tl.zeros((), dtype=tl.float32)
    for start in range(0, D, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < D
        v = tl.load(x_ptr + row * D + cols, mask=m, other=0.0)
        inc = tl.cumsum(v, axis=0)
        tl.store(y_ptr + row * D + cols, inc - v + running, mask=m)
        running += tl.sum(v, axis=0)


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    @torch.no_grad()
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        B, D = x.shape
        y = torch.empty_like(x, memory_format=torch.contiguous_format)
        BLOCK = min(256, triton.next_power_of_2(D))
        excl_scan_kernel[(B,)](x, y, D, BLOCK=BLOCK, num_warps=4, num_stages=1)
        return y
'''),
    'masked_cumsum_bool_view': Candidate('L1/50_masked_cumsum', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def masked_cumsum_kernel(x_ptr, m_ptr, y_ptr, D, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    carry = tl.zeros((), dtype=tl.float32)
    for start in range(0, D, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        inb = cols < D
        x = tl.load(x_ptr + row * D + cols, mask=inb, other=0.0)
        keep = tl.load(m_ptr + row * D + cols, mask=inb, other=0) != 0
        v = tl.where(keep, x, 0.0)
        tl.store(y_ptr + row * D + cols, tl.cumsum(v, axis=0) + carry, mask=inb)
        carry += tl.sum(v, axis=0)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        mask_u8 = mask.contiguous().view(torch.uint8)
        y = torch.empty_like(x)
        masked_cumsum_kernel[(x.shape[0],)](x, mask_u8, y, x.shape[1], BLOCK=128)
        return y
'''),
    'mindim_training_flag': Candidate('L1/40_min_dim', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def amin_mid_kernel(x_ptr, out_ptr, R, D, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    pd = tl.program_id(1)
    cols = pd * BLOCK_D + tl.arange(0, BLOCK_D)
    cm = cols < D
    best = tl.full((BLOCK_D,), float("inf"), dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        m = (rows[:, None] < R) & cm[None, :]
        v = tl.load(x_ptr + b * R * D + rows[:, None] * D + cols[None, :], mask=m, other=float("inf"))
        best = tl.minimum(best, tl.min(v, axis=0))
    tl.store(out_ptr + b * D + cols, best, mask=cm)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.eval()

    def forward(self, x):
        if self.training:
            x = x.detach()
        B, R, D = x.shape
        out = torch.empty(B, D, device=x.device, dtype=x.dtype)
        BLOCK_D = 32
        amin_mid_kernel[(B, triton.cdiv(D, BLOCK_D))](x.contiguous(), out, R, D, BLOCK_R=16, BLOCK_D=BLOCK_D)
        return out
'''),
    'frobenius_two_kernels_fill': Candidate('L1/36_frobenius_norm_normalize', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sumsq_kernel(x_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.atomic_add(acc_ptr, tl.sum(v * v, axis=0))


@triton.jit
def scale_kernel(x_ptr, acc_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    inv = 1.0 / tl.sqrt(tl.load(acc_ptr))
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m) * inv, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        acc = torch.empty(1, device=x.device, dtype=torch.float32).fill_(0.0)
        y = torch.empty_like(x)
        grid = (triton.cdiv(n, 256),)
        sumsq_kernel[grid](x, acc, n, BLOCK=256)
        scale_kernel[grid](x, acc, y, n, BLOCK=256)
        return y
'''),
    'l1loss_autotune_reset': Candidate('L1/90_l1_loss', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK": 256}, num_warps=4), triton.Config({"BLOCK": 512}, num_warps=8)],
    key=["n"],
    reset_to_zero=["acc_ptr"],
)
@triton.jit
def abs_diff_sum_kernel(a_ptr, b_ptr, acc_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    d = tl.load(a_ptr + offs, mask=m, other=0.0) - tl.load(b_ptr + offs, mask=m, other=0.0)
    tl.atomic_add(acc_ptr, tl.sum(tl.abs(d), axis=0))


@triton.jit
def scale_inplace_kernel(acc_ptr, inv_n):
    tl.store(acc_ptr, tl.load(acc_ptr) * inv_n)


class ModelNew(nn.Module):
    def forward(self, predictions, targets):
        p = predictions.reshape(-1)
        t = targets.reshape(-1)
        n = p.numel()
        acc = torch.zeros(1, device=p.device, dtype=torch.float32)
        abs_diff_sum_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](p, t, acc, n)
        scale_inplace_kernel[(1,)](acc, 1.0 / n)
        return acc.squeeze(0)
'''),
    'smoothl1_zero_then_atomic': Candidate('L1/82_smooth_l1_loss', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def smooth_l1_sum_kernel(p_ptr, t_ptr, acc_ptr, n, beta, inv_n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    d = tl.abs(tl.load(p_ptr + offs, mask=m, other=0.0) - tl.load(t_ptr + offs, mask=m, other=0.0))
    l = tl.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    tl.atomic_add(acc_ptr, tl.sum(tl.where(m, l, 0.0), axis=0) * inv_n)


class ModelNew(nn.Module):
    def __init__(self, beta: float):
        super().__init__()
        self.beta = beta

    def forward(self, predictions, targets):
        n = predictions.numel()
        out = torch.empty((), dtype=torch.float32, device=predictions.device)
        out.zero_()
        smooth_l1_sum_kernel[(triton.cdiv(n, 512),)](predictions, targets, out, n, self.beta, 1.0 / n, BLOCK=512)
        return out
'''),
    'hinge_cached_partials': Candidate('L1/85_hinge_loss', None, None, text=r'''
from typing import Dict, Tuple

import torch
import torch.nn as nn
import triton
import triton.language as tl

_GRID_CACHE: Dict[Tuple[int, int], Tuple[int]] = {}


def _grid(n: int, block: int) -> Tuple[int]:
    key = (n, block)
    if key not in _GRID_CACHE:
        _GRID_CACHE[key] = (triton.cdiv(n, block),)
    return _GRID_CACHE[key]


@triton.jit
def hinge_partial_kernel(p_ptr, y_ptr, part_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    p = tl.load(p_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    h = tl.where(m, tl.maximum(1.0 - p * y, 0.0), 0.0)
    tl.store(part_ptr + pid, tl.sum(h, axis=0))


@triton.jit
def mean_of_partials_kernel(part_ptr, out_ptr, num, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.load(part_ptr + offs, mask=offs < num, other=0.0)
    tl.store(out_ptr, tl.sum(v, axis=0) / n)


class ModelNew(nn.Module):
    BLOCK = 256

    def forward(self, predictions, labels):
        n = predictions.numel()
        grid = _grid(n, self.BLOCK)
        partials = torch.empty(grid[0], device=predictions.device, dtype=torch.float32)
        out = torch.empty((), device=predictions.device, dtype=torch.float32)
        hinge_partial_kernel[grid](predictions, labels, partials, n, BLOCK=self.BLOCK)
        mean_of_partials_kernel[(1,)](partials, out, grid[0], n, BLOCK=triton.next_power_of_2(grid[0]))
        return out
'''),
    'diag_matmul_rowscale_typing': Candidate('L1/13_diag_matmul', None, None, text=r'''
from typing import ClassVar, Optional

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_scale_kernel(d_ptr, b_ptr, c_ptr, M, stride_b, stride_c, BLOCK_M: tl.constexpr):
    row = tl.program_id(0)
    pm = tl.program_id(1)
    cols = pm * BLOCK_M + tl.arange(0, BLOCK_M)
    m = cols < M
    s = tl.load(d_ptr + row)
    v = tl.load(b_ptr + row * stride_b + cols, mask=m)
    tl.store(c_ptr + row * stride_c + cols, v * s, mask=m)


class ModelNew(nn.Module):
    """diag(d) @ B == B scaled row by row; no N x N matrix is built."""

    BLOCK_M: ClassVar[int] = 64
    last_shape: Optional[tuple] = None

    def forward(self, d: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        N, M = B.shape
        assert d.shape == (N,), d.shape
        C = torch.empty((N, M), dtype=B.dtype, device=B.device)
        row_scale_kernel[(N, triton.cdiv(M, self.BLOCK_M))](d, B, C, M, B.stride(0), C.stride(0),
                                                            BLOCK_M=self.BLOCK_M)
        self.last_shape = tuple(C.shape)
        return C
'''),
    'diag_matmul_jit_staticmethod': Candidate('L1/13_diag_matmul', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


class Kernels:
    @staticmethod
    @triton.jit
    def row_scale(d_ptr, b_ptr, c_ptr, M, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        cols = tl.arange(0, BLOCK)
        m = cols < M
        tl.store(c_ptr + row * M + cols, tl.load(b_ptr + row * M + cols, mask=m) * tl.load(d_ptr + row), mask=m)


class ModelNew(nn.Module):
    def forward(self, d, B):
        N, M = B.shape
        C = torch.empty_like(B)
        Kernels.row_scale[(N,)](d, B, C, M, BLOCK=triton.next_power_of_2(M))
        return C
'''),
    'matvec_device_ctx': Candidate('L1/4_matrix_vector', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gemv_kernel(a_ptr, x_ptr, y_ptr, M, K, stride_am, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rm = rows < M
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        km = ks < K
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :], mask=rm[:, None] & km[None, :], other=0.0)
        xv = tl.load(x_ptr + ks, mask=km, other=0.0)
        acc += tl.sum(a * xv[None, :], axis=1)
    tl.store(y_ptr + rows, acc, mask=rm)


def _launch(A, x, y):
    M, K = A.shape
    gemv_kernel[(triton.cdiv(M, 16),)](A, x, y, M, K, A.stride(0), BLOCK_M=16, BLOCK_K=32)


class ModelNew(nn.Module):
    def forward(self, A, x):
        y = A.new_empty((A.shape[0], 1))
        if A.is_cuda:
            with torch.cuda.device(A.device.index):
                _launch(A, x, y)
        else:
            _launch(A, x, y)
        return y
'''),
    'matvec_padded_slice_out': Candidate('L1/4_matrix_vector', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK_M = 16


@triton.jit
def gemv_kernel(a_ptr, x_ptr, y_ptr, M, K, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + rows[:, None] * K + ks[None, :], mask=(rows[:, None] < M) & (ks[None, :] < K), other=0.0)
        acc += tl.sum(a * tl.load(x_ptr + ks, mask=ks < K, other=0.0)[None, :], axis=1)
    tl.store(y_ptr + rows, acc)  # y is padded to a multiple of BLOCK_M: no mask needed


class ModelNew(nn.Module):
    def forward(self, A, x):
        M, K = A.shape
        m_pad = triton.cdiv(M, BLOCK_M) * BLOCK_M
        y = torch.empty((m_pad, 1), device=A.device, dtype=torch.float32)
        gemv_kernel[(m_pad // BLOCK_M,)](A, x, y, M, K, BLOCK_M=BLOCK_M, BLOCK_K=32)
        return y[:M]
'''),
    'linear_wt_contiguous_each_call': Candidate('L2/1_linear_relu_bias_add_scale', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_epilogue(x_ptr, wt_ptr, b_ptr, b2_ptr, y_ptr, M, N, K, scale,
                    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(wt_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    nm = rn < N
    acc = tl.maximum(acc + tl.load(b_ptr + rn, mask=nm, other=0.0)[None, :], 0.0)
    acc = (acc + tl.load(b2_ptr + rn, mask=nm, other=0.0)[None, :]) * scale
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & nm[None, :])


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(torch.randn(out_features) * 0.5)
        self.scale = scale

    def forward(self, x):
        M, K = x.shape
        N = self.linear.out_features
        wt = self.linear.weight.t().contiguous()  # K x N, row-major for the kernel's B tile
        y = torch.empty((M, N), device=x.device, dtype=torch.float32)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 16))
        linear_epilogue[grid](x, wt, self.linear.bias, self.bias, y, M, N, K, self.scale, BM=16, BN=16, BK=16)
        return y
'''),
    'piecewise_dataclass_slots_enum': Candidate('X/31_piecewise_clamp_where_chain', None, None, text=r'''
import enum
from dataclasses import dataclass

import torch
import torch.nn as nn
import triton
import triton.language as tl


class Branch(enum.Enum):
    LEFT = -1.0
    RIGHT = 1.0


@dataclass(frozen=True, slots=True)
class Bounds:
    lo: float = -4.0
    hi: float = 4.0
    out_lo: float = -1.0
    out_hi: float = 1.5


@triton.jit
def piecewise_kernel(x_ptr, y_ptr, n, lo, hi, left_at, right_at, out_lo, out_hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    t = tl.minimum(tl.maximum(tl.load(x_ptr + offs, mask=m, other=0.0), lo), hi)
    right = tl.log(1.0 + tl.maximum(t, -0.5)) + 0.3
    left = 0.5 * t * t - 1.2
    mid = 0.25 * t * t * t + 0.5 * t
    y = tl.where(t > right_at, right, tl.where(t < left_at, left, mid))
    tl.store(y_ptr + offs, tl.minimum(tl.maximum(y, out_lo), out_hi), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.bounds = Bounds()

    def forward(self, x):
        b = self.bounds
        y = torch.empty_like(x)
        n = x.numel()
        piecewise_kernel[(triton.cdiv(n, 512),)](x, y, n, b.lo, b.hi, Branch.LEFT.value, Branch.RIGHT.value,
                                                 b.out_lo, b.out_hi, BLOCK=512)
        return y
'''),
    'polar_two_outputs_math': Candidate('X/35_cartesian_to_polar_atan2', None, None, text=r'''
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

PI = math.pi
HALF_PI = math.pi / 2


@triton.jit
def _atan_unit(z):
    # atan on [-1, 1]: Cephes-style reduction to |z| <= tan(pi/8) plus a polynomial
    az = tl.abs(z)
    big = az > 0.4142135623730951
    r = tl.where(big, (az - 1.0) / (az + 1.0), az)
    r2 = r * r
    p = ((8.05374449538e-2 * r2 - 1.38776856032e-1) * r2 + 1.99777106478e-1) * r2 - 3.33329491539e-1
    a = r + r * r2 * p
    a = tl.where(big, a + 0.7853981633974483, a)
    return tl.where(z < 0, -a, a)


@triton.jit
def polar_kernel(x_ptr, y_ptr, r_ptr, th_ptr, n, PI_C: tl.constexpr, HALF_PI_C: tl.constexpr,
                 BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=1.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    tl.store(r_ptr + offs, tl.sqrt(x * x + y * y), mask=m)
    ax = tl.abs(x)
    ay = tl.abs(y)
    swap = ay > ax
    num = tl.where(swap, ax, ay)
    den = tl.where(swap, ay, ax)
    base = _atan_unit(num / tl.where(den == 0, 1.0, den))
    base = tl.where(swap, HALF_PI_C - base, base)
    base = tl.where(x < 0, PI_C - base, base)
    th = tl.where(y < 0, -base, base)
    tl.store(th_ptr + offs, th, mask=m)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor):
        x, y = x.contiguous(), y.contiguous()
        r, th = torch.empty_like(x), torch.empty_like(x)
        n = x.numel()
        polar_kernel[(triton.cdiv(n, 1024),)](x, y, r, th, n, PI_C=PI, HALF_PI_C=HALF_PI, BLOCK=1024)
        return r, th
'''),
    'dequant_walrus_cached_property': Candidate('X/3_int8_dequantize_per_channel', None, None, text=r'''
import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def dequant_kernel(q_ptr, s_ptr, z_ptr, out_ptr, K, BLOCK_K: tl.constexpr):
    row = tl.program_id(0)
    pk = tl.program_id(1)
    cols = pk * BLOCK_K + tl.arange(0, BLOCK_K)
    m = cols < K
    q = tl.load(q_ptr + row * K + cols, mask=m, other=0).to(tl.int32)
    zp = tl.load(z_ptr + row)
    s = tl.load(s_ptr + row)
    tl.store(out_ptr + row * K + cols, (q - zp).to(tl.float32) * s, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    @functools.cached_property
    def block_k(self) -> int:
        return 64

    def forward(self, q, scale, zero_point):
        if (n := q.shape[0]) == 0:
            return torch.empty(q.shape, dtype=torch.float32, device=q.device)
        K = q.shape[1]
        out = torch.empty((n, K), dtype=torch.float32, device=q.device)
        dequant_kernel[(n, triton.cdiv(K, self.block_k))](q, scale, zero_point, out, K, BLOCK_K=self.block_k)
        return out
'''),
    'index_select_3d_grid_int64': Candidate('X/19_index_select_dim1', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def index_select_kernel(x_ptr, idx_ptr, out_ptr, S, K, D, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    k = tl.program_id(1)
    pd = tl.program_id(2)
    src_row = tl.load(idx_ptr + k).to(tl.int64)
    cols = pd * BLOCK_D + tl.arange(0, BLOCK_D)
    m = cols < D
    v = tl.load(x_ptr + (b * S + src_row) * D + cols, mask=m)
    tl.store(out_ptr + (b.to(tl.int64) * K + k) * D + cols, v, mask=m)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        B, S, D = x.shape
        (K,) = idx.shape
        out = x.new_empty(B, K, D)
        BLOCK_D = triton.next_power_of_2(min(D, 128))
        index_select_kernel[(B, K, triton.cdiv(D, BLOCK_D))](x, idx, out, S, K, D, BLOCK_D=BLOCK_D)
        return out
'''),
    'upsample_empty_strided_ctx': Candidate('X/51_upsample_nearest_2x', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl

SCALE = tl.constexpr(2)


@triton.jit
def upsample_nearest_kernel(x_ptr, y_ptr, H, W, OH, OW, total, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    ow = offs % OW
    oh = (offs // OW) % OH
    plane = offs // (OW * OH)
    src = plane * H * W + (oh // SCALE) * W + (ow // SCALE)
    tl.store(y_ptr + offs, tl.load(x_ptr + src, mask=m), mask=m)


class ModelNew(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, x: torch.Tensor, *rest) -> torch.Tensor:
        B, C, H, W = x.shape
        OH, OW = H * 2, W * 2
        y = torch.empty_strided((B, C, OH, OW), (C * OH * OW, OH * OW, OW, 1), dtype=x.dtype, device=x.device)
        total = y.numel()
        with torch.device(x.device):
            upsample_nearest_kernel[(triton.cdiv(total, 256),)](x.contiguous(), y, H, W, OH, OW, total, BLOCK=256)
        return y
'''),
    'matvec_current_stream': Candidate('L1/4_matrix_vector', STREAM, STREAM, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gemv_kernel(a_ptr, x_ptr, y_ptr, M, K, stride_am, BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rm = rows < M
    acc = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        ks = k0 + tl.arange(0, BLOCK_K)
        km = ks < K
        a = tl.load(a_ptr + rows[:, None] * stride_am + ks[None, :], mask=rm[:, None] & km[None, :], other=0.0)
        xv = tl.load(x_ptr + ks, mask=km, other=0.0)
        acc += tl.sum(a * xv[None, :], axis=1)
    tl.store(y_ptr + rows, acc, mask=rm)


class ModelNew(nn.Module):
    def forward(self, A, x):
        M, K = A.shape
        y = torch.empty((M, 1), device=A.device, dtype=torch.float32)
        if A.is_cuda:
            _ = torch.cuda.current_stream(A.device)
        gemv_kernel[(triton.cdiv(M, 16),)](A, x, y, M, K, A.stride(0), BLOCK_M=16, BLOCK_K=32)
        return y
'''),
    'softsign_custom_op': Candidate('L1/27_softsign', LIBRARY, LIBRARY, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softsign_kernel(X, Y, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(X + offs, mask=m, other=0.0)
    tl.store(Y + offs, x / (1.0 + tl.abs(x)), mask=m)


@torch.library.custom_op("kg::softsign", mutates_args=())
def softsign(x: torch.Tensor) -> torch.Tensor:
    y = torch.empty_like(x)
    softsign_kernel[(triton.cdiv(x.numel(), 512),)](x, y, x.numel(), BLOCK=512)
    return y


class ModelNew(nn.Module):
    def forward(self, x):
        return softsign(x)
'''),
    'upsample_channels_last_out': Candidate('X/51_upsample_nearest_2x', LAYOUT, LAYOUT, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def upsample_nhwc_kernel(x_ptr, y_ptr, C, H, W, OH, OW, total,
                         sxb, sxc, sxh, sxw, syb, syc, syh, syw, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < total
    c = offs % C
    ow = (offs // C) % OW
    oh = (offs // (C * OW)) % OH
    b = offs // (C * OW * OH)
    v = tl.load(x_ptr + b * sxb + c * sxc + (oh // 2) * sxh + (ow // 2) * sxw, mask=m)
    tl.store(y_ptr + b * syb + c * syc + oh * syh + ow * syw, v, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        B, C, H, W = x.shape
        y = torch.empty((B, C, 2 * H, 2 * W), device=x.device, dtype=x.dtype, memory_format=torch.channels_last)
        total = y.numel()
        upsample_nhwc_kernel[(triton.cdiv(total, 256),)](x, y, C, H, W, 2 * H, 2 * W, total,
                                                          *x.stride(), *y.stride(), BLOCK=256)
        return y
'''),
}

#: the judge runs kept in the quick suite (``-m "not slow"``): the three candidates of the mended false alarms and
#: two others
QUICK_RUNS = {"softsign_staticmethods", "softsign_slots_only", "rownorm_dataclass_replace", "elu_dtype_constexpr",
              "l1loss_autotune_reset"}

def _params(static_only: bool):
    return candidate_params(CANDIDATES, QUICK_RUNS, static_only)


@pytest.fixture(scope="module")
def bundled_tasks():
    from kernelgym.tasks import load_tasks

    return load_tasks()


@pytest.mark.parametrize("name, policy", _params(static_only=True))
def test_honest_candidate_passes_the_static_checks(name, policy):
    cand = CANDIDATES[name]
    alarm = getattr(cand, policy)
    flags = check_source(cand.text, "triton", policy)
    expect(flags, not flags, alarm if is_static(alarm) else None, f"{name} ({cand.task}, {policy}, static)")


@pytest.mark.parametrize("name, policy", _params(static_only=False))
def test_honest_candidate_is_ok_on_the_cpu_judge(judge, bundled_tasks, name, policy):
    cand = CANDIDATES[name]
    result = judge.evaluate(bundled_tasks.get(cand.task), cand.text, profile=PROFILE, torch_policy=policy)
    flags = [(f["name"], f.get("reason") or "") for f in result.flags]
    if result.status != "ok" and not flags:
        flags = [(result.status, result.message)]
    expect(flags, result.status == "ok", getattr(cand, policy),
           f"{name} ({cand.task}, {policy}): {result.status}: {result.message[:300]}")


# ---- not a false alarm: the GPU compiler's verdict on an annotated constexpr global ----

ANNOTATED_CONSTEXPR_GLOBAL = CANDIDATES["upsample_empty_strided_ctx"].text.replace(
    "SCALE = tl.constexpr(2)", "SCALE: tl.constexpr = 2")


def test_an_annotated_constexpr_global_is_a_compile_error(judge, bundled_tasks):
    """``SCALE: tl.constexpr = 2`` read in a kernel runs in the interpreter, but Triton 3.9's code generator only
    lets a kernel read globals that *are* constexprs (``SCALE = tl.constexpr(2)``, the candidate above) and says the
    annotation "is not supported": the judge's GPU compile check reports what a GPU would, so this is no false
    alarm."""
    assert ANNOTATED_CONSTEXPR_GLOBAL != CANDIDATES["upsample_empty_strided_ctx"].text
    result = judge.evaluate(bundled_tasks.get("X/51_upsample_nearest_2x"), ANNOTATED_CONSTEXPR_GLOBAL,
                            profile=PROFILE, torch_policy="partial")
    assert result.status == "compile_error", (result.status, result.message)
    assert "Cannot access global variable SCALE" in result.message, result.message


# ---- honest snippets checked statically only (ModelNew around a copy kernel) ----

SNIPPET = """
import torch
import torch.nn as nn
import triton
import triton.language as tl
{imports}


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


{pre}


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
{init}

    def forward(self, x):
{body}
        y = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
        return y
"""


def _reach(what: str) -> FalseAlarm:
    return FalseAlarm("forbidden_module_alias", "whose code uses",
                      f"reach (library code that calls getattr/setattr by a name it is handed: {what})")


#: name -> (imports, module-level code, __init__ lines, forward lines, None or the refusal kept)
SNIPPETS = {
    # mended (round 3): __slots__ as a class body's list of attribute names
    "slots_config_class": ("", "class Cfg:\n    __slots__ = ('block', '_warps')\n\n    def __init__(self):\n"
                               "        self.block = 256\n        self._warps = 4", "        self.cfg = Cfg()", "",
                           None),
    "slots_empty_and_list": ("", "class A:\n    __slots__ = ()\n\n\nclass B(A):\n    __slots__ = ['n']", "", "",
                             None),
    # mended (round 3): dataclasses.replace of a frozen config
    "dataclasses_replace": ("import dataclasses", "@dataclasses.dataclass(frozen=True)\nclass Cfg:\n    BLOCK: int = 256",
                            "        self.cfg = Cfg()", "        cfg = dataclasses.replace(self.cfg, BLOCK=128)", None),
    "dataclasses_replace_from_import": ("from dataclasses import dataclass, replace",
                                        "@dataclass\nclass Cfg:\n    BLOCK: int = 256\n\n\nSMALL = replace(Cfg(), BLOCK=64)",
                                        "", "", None),
    # passed already (round 3)
    "set_float32_matmul_precision": ("", "torch.set_float32_matmul_precision('high')", "", "", None),
    "manual_seed_in_init": ("", "", "        torch.manual_seed(0)", "", None),
    "cuda_synchronize_guarded": ("", "", "", "        if x.is_cuda:\n            torch.cuda.synchronize()", None),
    "typing_protocol": ("from typing import Protocol", "class Launch(Protocol):\n    def __call__(self, x: torch.Tensor)"
                        " -> torch.Tensor:\n        ...", "", "", None),
    "typing_cast": ("from typing import cast", "", "", "        x = cast(torch.Tensor, x)", None),
    "dataclasses_asdict_splat": ("from dataclasses import dataclass, asdict", "@dataclass\nclass Cfg:\n    BLOCK: int = 256",
                                 "        self.cfg = Cfg()", "        meta = asdict(self.cfg)", None),
    "property_with_setter": ("", "class Cfg:\n    def __init__(self):\n        self._b = 1\n\n    @property\n    def b(self):"
                             "\n        return self._b\n\n    @b.setter\n    def b(self, v):\n        self._b = v", "", "",
                             None),
    "nn_module_init_called_directly": ("", "", "        nn.Module.__init__(self)", "", None),
    "jitfunction_type_hint": ("from triton.runtime.jit import JITFunction",
                              "def launch(k: JITFunction, a, b):\n    k[(1,)](a, b, a.numel(), BLOCK=256)", "", "", None),
    "torch_testing_in_main": ("", "if __name__ == '__main__':\n    a = torch.randn(4)\n    torch.testing.assert_close(a, a)",
                              "", "", None),
    "triton_jit_call_form": ("", "def _impl(x_ptr, n, B: tl.constexpr):\n    pass\n\n\nimpl_kernel = triton.jit(_impl)",
                             "", "", None),
    "warnings_filterwarnings": ("import warnings", "warnings.filterwarnings('ignore', category=UserWarning)", "", "",
                                None),
    "star_args_and_meta_splat": ("", "", "", "        args = [x, x, x.numel()]\n        meta = dict(BLOCK=256, num_warps=4)"
                                 "\n        copy_kernel[(1,)](*args, **meta)", None),
    "untyped_storage_ptr": ("", "", "", "        same = x.untyped_storage().data_ptr() == x.data_ptr()", None),
    "functools_reduce_lambda": ("import functools", "", "", "        n = functools.reduce(lambda a, b: a * b, x.shape, 1)",
                                None),
    "enum_auto_and_intflag": ("import enum", "class Act(enum.Enum):\n    RELU = enum.auto()\n\n\nclass F(enum.IntFlag):\n"
                              "    A = 1", "", "", None),
    "host_seed_and_bisect": ("import bisect\nimport random", "_B = [64, 128, 256]", "",
                             "        seed = random.randint(0, 2**31 - 1)\n        i = bisect.bisect_left(_B, x.shape[-1])",
                             None),
    "register_parameter_none_and_init": ("import math", "", "        self.w = nn.Parameter(torch.empty(4, 4))\n"
                                         "        nn.init.kaiming_uniform_(self.w, a=math.sqrt(5))\n"
                                         "        self.register_parameter('bias', None)", "", None),
    "dtype_queries": ("", "", "", "        dt = torch.promote_types(x.dtype, torch.float32)\n"
                      "        b = x.dtype.itemsize + x.element_size() + torch.iinfo(torch.int32).bits", None),
    # refused, and left so (strict xfails naming the check)
    "cuda_current_stream": ("", "", "", "        s = torch.cuda.current_stream() if x.is_cuda else None",
                            FalseAlarm("forbidden_attribute", "current_stream",
                                       "guards (FORBIDDEN_ATTRS, streams: a Stream object enters as a context and "
                                       "waits on events; Triton launches on the current stream without it)")),
    "cuda_event_timing_in_main": ("", "if __name__ == '__main__':\n    s = torch.cuda.Event(enable_timing=True)", "", "",
                                  FalseAlarm("forbidden_attribute", ".Event",
                                             "guards (FORBIDDEN_ATTRS; the __main__ exemption is for torch_fallback "
                                             "alone, every hard rule applies there)")),
    "triton_testing_do_bench_in_main": ("", "if __name__ == '__main__':\n    print(triton.testing.do_bench(lambda: None))",
                                        "", "", FalseAlarm("forbidden_module_alias", "triton.testing",
                                                           "reach (FORBIDDEN_SUBMODULES: triton.testing)")),
    "torch_library_custom_op": ("", "@torch.library.custom_op('kg::copy', mutates_args=())\ndef op(t: torch.Tensor) "
                                "-> torch.Tensor:\n    return t", "", "",
                                FalseAlarm("forbidden_module_alias", "torch.library",
                                           "guards (FORBIDDEN_MODULES: kernels registered into the dispatcher are "
                                           "invisible to the profiler's ownership test)")),
    "contextlib_nullcontext": ("import contextlib", "", "", "        with contextlib.nullcontext():\n            pass",
                               FalseAlarm("forbidden_import", "contextlib",
                                          "guards (ALLOWED_MODULES: contextlib.suppress is a try/except, "
                                          "ExitStack.callback defers work to an exit)")),
    "operator_mul_reduce": ("import functools\nimport operator", "", "",
                            "        n = functools.reduce(operator.mul, x.shape, 1)",
                            FalseAlarm("forbidden_import", "operator",
                                       "guards (FORBIDDEN_MODULES: operator.attrgetter is getattr)")),
    "tf32_switch": ("", "torch.backends.cuda.matmul.allow_tf32 = True", "", "",
                    FalseAlarm("monkeypatch", "allow_tf32", "guards (monkeypatch: any write to a module attribute)")),
    "cudnn_benchmark_switch": ("", "torch.backends.cudnn.benchmark = True", "", "",
                               FalseAlarm("monkeypatch", "benchmark",
                                          "guards (monkeypatch: any write to a module attribute)")),
    "eq_and_hash_on_config": ("", "class Cfg:\n    def __init__(self, b):\n        self.b = b\n\n    def __eq__(self, o):"
                              "\n        return self.b == o.b\n\n    def __hash__(self):\n        return hash(self.b)", "",
                              "", FalseAlarm("forbidden_hook", "defines __eq__",
                                             "guards (ALLOWED_DUNDER_METHODS: the interpreter calls __eq__/__hash__ "
                                             "on its own; a frozen dataclass writes them for a config)")),
    "typevar_annotation": ("from typing import TypeVar", "T = TypeVar('T')\n\n\ndef ident(a: T) -> T:\n    return a",
                           "", "", FalseAlarm("forbidden_annotation", "annotates with T",
                                              "guards (_check_annotations: a name bound to a call's value)")),
    "copy_copy_dict": ("import copy", "_BASE = {'BLOCK': 128}", "", "        meta = copy.copy(_BASE)",
                       _reach("copy.copy runs __reduce_ex__/__copy__ of what it is handed, as deepcopy does; "
                              "dict(d) copies a dict")),
    "dataclasses_fields": ("import dataclasses", "@dataclasses.dataclass\nclass Cfg:\n    BLOCK: int = 256", "",
                           "        names = [f.name for f in dataclasses.fields(Cfg)]",
                           _reach("fields hands out the Field objects of any dataclass, a library's too, whose "
                                  "default factories and types the reach rules never judge")),
    "typing_overload": ("from typing import overload", "@overload\ndef f(a: int) -> int: ...\n\n\n@overload\n"
                        "def f(a: float) -> float: ...\n\n\ndef f(a):\n    return a", "", "",
                        _reach("typing.overload, not vetted")),
    "functools_singledispatch": ("import functools", "@functools.singledispatch\ndef f(a):\n    return a", "", "",
                                 _reach("singledispatch's register evaluates annotations with get_type_hints")),
}


def _snippet_params():
    out = []
    for name, (*_, alarm) in SNIPPETS.items():
        for policy in ("partial", "strict"):
            marks = [pytest.mark.xfail(strict=True, raises=KnownFalseAlarm, reason=alarm.reason())] if alarm else []
            out.append(pytest.param(name, policy, marks=marks, id=f"{name}-{policy}"))
    return out


@pytest.mark.parametrize("name, policy", _snippet_params())
def test_honest_snippet_passes_the_static_checks(name, policy):
    imports, pre, init, body, alarm = SNIPPETS[name]
    text = SNIPPET.format(imports=imports, pre=pre, init=init or "        pass", body=body or "        pass")
    flags = check_source(text, "triton", policy)
    expect(flags, not flags, alarm, f"snippet {name} ({policy})")


# ---- the cheats of the mended rules stay refused ----

@pytest.mark.parametrize("pre, flags", [
    # a slot list names public or single-underscore attributes only, in a class body, never read or rebound
    ("class C:\n    __slots__ = ('__dict__',)", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = ('a', '__weakref__')", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = ('__class__',)", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = ('__x',)", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = ('a b',)", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = 'a'", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = {'a': 'doc'}", ["forbidden_attribute"]),
    ("def f():\n    return 'a'\n\n\nclass C:\n    __slots__ = (f(),)", ["forbidden_attribute"]),
    ("__slots__ = ('a',)", ["forbidden_attribute"]),
    ("class C:\n    def m(self):\n        __slots__ = ('a',)\n        return __slots__", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = ('a',)\n    n = len(__slots__)", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = ('a',)\n\n\nk = C.__slots__", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = ('a',)\n    __slots__ += ('b',)", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = ('a',)\n    import math as __slots__", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = ('a',)\n    for __slots__ in [('b',)]:\n        pass", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = ('a',)\n    z = [__slots__ for __slots__ in ()]", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = ('a',)\n    del __slots__", ["forbidden_attribute"]),
    ("class C:\n    __slots__: tuple = ('a',)", ["forbidden_attribute"]),
    ("class C:\n    __slots__ = ('a',)\n\n\ndef f(__slots__):\n    return 1", ["forbidden_attribute"]),
    ("class C:\n    global __slots__\n    __slots__ = ('a',)", ["forbidden_attribute", "global_state"]),
    # the vetting is dataclasses.replace's alone, by identity: its neighbours and getattr stay refused
    ("import dataclasses\nF = dataclasses.fields", ["forbidden_module_alias"]),
    ("import copy\nC = copy.copy", ["forbidden_module_alias"]),
    ("import dataclasses\nR = dataclasses.replace\nG = getattr", ["forbidden_call"]),
])
def test_the_cheats_of_the_mended_rules_stay_refused_statically(pre, flags):
    text = SNIPPET.format(imports="", pre=pre, init="        pass", body="        pass")
    for policy in ("partial", "strict"):
        assert sorted({f[0] for f in check_source(text, "triton", policy)}) == flags, (pre, policy)
