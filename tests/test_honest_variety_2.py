"""Honest Triton candidates in more styles LLM policies write stay ``ok`` (false-alarm hunt, QA round 35).

A second round after ``tests/test_honest_variety.py``, on 27 bundled tasks that round did not cover, in styles it
did not use: a ``torch.autograd.Function`` wrapper, a ``functools.partial`` launcher with ``typing.Final``
constants, ``@triton.autotune`` over a config-building function (and with ``GROUP_M``/``tl.swizzle2d``), an
``enum.IntEnum`` constant, an ``nn.Module`` submodule with its own forward (``_pair``, ``output_size`` helper),
an ``nn.Linear`` subclass as the launching layer in an ``nn.ModuleList``, weights cached in ``__init__`` (a transposed
buffer, a folded batch-norm scale/shift, a LoRA adapter merged into the base weight with ``@``), a K-major weight
cached lazily on first use, ``Optional`` attributes, ``@triton.heuristics`` feeding a grid lambda, ``warnings.warn``,
early returns for empty input, a frozen dataclass with a ``grid`` method, ``tl.associative_scan`` with a jitted
combine function, ``tl.device_assert``, ``tl.range``/``tl.static_range``, ``@torch.no_grad()`` on the forward,
class-level constants, ``@staticmethod`` grids, ``*x.stride()`` splatted into launches, a ``0-dim`` output written
by a second kernel, a fp32 output buffer cast back with ``.to(A.dtype)``, bf16 rounding steps in the kernel, a
version gate on ``triton.__version__``, and more.

Each is judged on the CPU (Triton's interpreter) at the task's small shapes, static checks on, under the default
policy ``partial`` and under ``strict``. Verdicts when written: 29 candidates; 2 static false alarms found and mended
in ``kernelgym/judge/guards.py`` (the ``@`` operator in ``__init__``, refused under ``strict`` although
``torch.matmul`` there was allowed; ``.__version__`` read, refused as a dunder attribute), 1 refusal under ``strict``
kept as a strict xfail (torch upcasting a bf16 input and casting the output back on an elementwise task: the copy
rule, whose mend would lie in the session and let copies do a data-movement task's work). Two honest snippets stay
refused by the static rules (``logging``, ``copy.deepcopy``), strict xfails naming the rule. docs/SECURITY.md,
"False alarms, round 35".
"""

from __future__ import annotations

import pytest

from kernelgym.judge.guards import check_source
from kernelgym.testing.honest import PROFILE, Candidate, FalseAlarm, KnownFalseAlarm, expect, is_static


CANDIDATES: dict[str, Candidate] = {
    'gelu_autograd_fn': Candidate('L1/19_gelu', None, None, text=r'''
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

INV_SQRT2: float = 1.0 / math.sqrt(2.0)


@triton.jit
def _gelu_fwd(x_ptr, y_ptr, n_elements, K: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    y = 0.5 * x * (1.0 + tl.math.erf(x * K))
    tl.store(y_ptr + offsets, y, mask=mask)


class _GeluFunction(torch.autograd.Function):
    """Exact GELU; forward in Triton (no backward needed for inference)."""

    @staticmethod
    def forward(ctx, x: torch.Tensor) -> torch.Tensor:
        x_c = x.contiguous()
        y = torch.empty_like(x_c)
        n = x_c.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)
        _gelu_fwd[grid](x_c, y, n, K=INV_SQRT2, BLOCK_SIZE=1024)
        return y

    @staticmethod
    def backward(ctx, grad_out):
        raise NotImplementedError("inference only")


gelu = _GeluFunction.apply


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return gelu(x)
'''),
    'tanh_partial_launcher': Candidate('L1/18_tanh', None, None, text=r'''
from functools import partial
from typing import Callable, Final

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK: Final[int] = 512
NUM_WARPS: Final[int] = 4


@triton.jit
def tanh_kernel(X, Y, N, BLOCK: tl.constexpr):
    idx = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    msk = idx < N
    x = tl.load(X + idx, mask=msk, other=0.0).to(tl.float32)
    # tanh(x) = 1 - 2 / (exp(2x) + 1), stable for large |x|
    t = 1.0 - 2.0 / (tl.exp(2.0 * x) + 1.0)
    tl.store(Y + idx, t.to(Y.dtype.element_ty), mask=msk)


def _launch(kernel, x: torch.Tensor, *, block: int, num_warps: int) -> torch.Tensor:
    flat = x.reshape(-1)
    out = torch.empty_like(flat)
    n = flat.numel()
    kernel[(triton.cdiv(n, block),)](flat, out, n, BLOCK=block, num_warps=num_warps)
    return out.view_as(x)


triton_tanh: Callable[[torch.Tensor], torch.Tensor] = partial(_launch, tanh_kernel, block=BLOCK, num_warps=NUM_WARPS)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return triton_tanh(x)
'''),
    'l2norm_autotune_loop': Candidate('L1/35_l2_normalize', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl

EPS = 1e-12


def _configs():
    return [triton.Config({"BLOCK_D": bd}, num_warps=nw) for bd in (64, 128, 256) for nw in (2, 4)]


@triton.autotune(configs=_configs(), key=["D"])
@triton.jit
def l2_normalize_kernel(x_ptr, out_ptr, D, stride_row, eps, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_row
    o_row = out_ptr + row * stride_row
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D)
        v = tl.load(x_row + cols, mask=cols < D, other=0.0)
        acc += v * v
    norm = tl.sqrt(tl.sum(acc, axis=0))
    inv = 1.0 / tl.maximum(norm, eps)
    for start in range(0, D, BLOCK_D):
        cols = start + tl.arange(0, BLOCK_D)
        m = cols < D
        v = tl.load(x_row + cols, mask=m, other=0.0)
        tl.store(o_row + cols, v * inv, mask=m)


class ModelNew(nn.Module):
    def __init__(self, eps: float = EPS):
        super().__init__()
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.dim() == 2, "expects (B, D)"
        x = x.contiguous()
        B, D = x.shape
        out = torch.empty_like(x)
        l2_normalize_kernel[(B,)](x, out, D, x.stride(0), self.eps)
        return out
'''),
    'var_enum_twopass': Candidate('L1/44_var_dim', None, None, text=r'''
import enum

import torch
import torch.nn as nn
import triton
import triton.language as tl


class Correction(enum.IntEnum):
    POPULATION = 0
    BESSEL = 1


@triton.jit
def _row_var(x_ptr, out_ptr, n_cols, correction, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * n_cols
    cols = tl.arange(0, BLOCK)
    s = tl.zeros([BLOCK], tl.float32)
    for c0 in tl.range(0, n_cols, BLOCK):
        v = tl.load(base + c0 + cols, mask=c0 + cols < n_cols, other=0.0)
        s += v
    mean = tl.sum(s, 0) / n_cols
    ss = tl.zeros([BLOCK], tl.float32)
    for c0 in tl.range(0, n_cols, BLOCK):
        v = tl.load(base + c0 + cols, mask=c0 + cols < n_cols, other=0.0)
        d = tl.where(c0 + cols < n_cols, v - mean, 0.0)
        ss += d * d
    var = tl.sum(ss, 0) / (n_cols - correction)
    tl.store(out_ptr + row, var)


class ModelNew(nn.Module):
    correction: Correction = Correction.BESSEL

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        *lead, d = x.shape
        x2 = x.reshape(-1, d).contiguous()
        out = torch.empty(x2.shape[0], device=x.device, dtype=torch.float32)
        _row_var[(x2.shape[0],)](x2, out, d, int(self.correction), BLOCK=128)
        return out.reshape(lead).to(x.dtype)
'''),
    'maxpool2d_submodule': Candidate('L1/52_max_pool_2d', None, None, text=r'''
import torch
import torch.nn as nn
from torch.nn.modules.utils import _pair
import triton
import triton.language as tl


@triton.jit
def maxpool2d_kernel(x_ptr, y_ptr, H, W, OH, OW,
                     KH: tl.constexpr, KW: tl.constexpr, SH: tl.constexpr, SW: tl.constexpr,
                     PH: tl.constexpr, PW: tl.constexpr, BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    pid = tl.program_id(1)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    valid = offs < OH * OW
    oh = offs // OW
    ow = offs % OW
    acc = tl.full([BLOCK], float("-inf"), tl.float32)
    x_base = x_ptr + plane * H * W
    for kh in tl.static_range(KH):
        for kw in tl.static_range(KW):
            ih = oh * SH - PH + kh
            iw = ow * SW - PW + kw
            inb = valid & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            v = tl.load(x_base + ih * W + iw, mask=inb, other=float("-inf"))
            acc = tl.maximum(acc, v)
    tl.store(y_ptr + plane * OH * OW + offs, acc, mask=valid)


class TritonMaxPool2d(nn.Module):
    """Drop-in for nn.MaxPool2d (no dilation, no ceil_mode)."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride if stride is not None else kernel_size)
        self.padding = _pair(padding)

    def output_size(self, h: int, w: int):
        (kh, kw), (sh, sw), (ph, pw) = self.kernel_size, self.stride, self.padding
        return (h + 2 * ph - kh) // sh + 1, (w + 2 * pw - kw) // sw + 1

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, c, h, w = x.shape
        oh, ow = self.output_size(h, w)
        x = x.contiguous()
        y = x.new_empty((n, c, oh, ow))
        grid = lambda meta: (n * c, triton.cdiv(oh * ow, meta["BLOCK"]))
        maxpool2d_kernel[grid](x, y, h, w, oh, ow, *self.kernel_size, *self.stride, *self.padding, BLOCK=64)
        return y


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = TritonMaxPool2d(kernel_size, stride=stride, padding=padding)

    def forward(self, x):
        return self.pool(x)
'''),
    'pwconv_cached_wt_buffer': Candidate('L1/69_pointwise_conv2d', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def conv1x1_kernel(x_ptr, wt_ptr, b_ptr, y_ptr, CIN, COUT, P,
                   BLOCK_P: tl.constexpr, BLOCK_CO: tl.constexpr, BLOCK_CI: tl.constexpr):
    n = tl.program_id(2)
    offs_p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    offs_co = tl.program_id(1) * BLOCK_CO + tl.arange(0, BLOCK_CO)
    acc = tl.zeros((BLOCK_P, BLOCK_CO), dtype=tl.float32)
    for ci0 in range(0, CIN, BLOCK_CI):
        ci = ci0 + tl.arange(0, BLOCK_CI)
        # x[n, ci, p] as a (P, CI) tile
        xt = tl.load(x_ptr + n * CIN * P + ci[None, :] * P + offs_p[:, None],
                     mask=(ci[None, :] < CIN) & (offs_p[:, None] < P), other=0.0)
        # W^T[ci, co], cached in __init__ as a (CIN, COUT) contiguous buffer
        wt = tl.load(wt_ptr + ci[:, None] * COUT + offs_co[None, :],
                     mask=(ci[:, None] < CIN) & (offs_co[None, :] < COUT), other=0.0)
        acc += tl.dot(xt, wt)
    acc += tl.load(b_ptr + offs_co, mask=offs_co < COUT, other=0.0)[None, :]
    tl.store(y_ptr + n * COUT * P + offs_co[None, :] * P + offs_p[:, None], acc,
             mask=(offs_p[:, None] < P) & (offs_co[None, :] < COUT))


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)
        # keep the weight transposed once, so the kernel reads it K-major
        self.register_buffer("weight_t", conv.weight.detach().view(out_channels, in_channels).t().contiguous())
        self.bias = nn.Parameter(conv.bias.detach().clone())
        self.in_channels, self.out_channels = in_channels, out_channels

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        N, C, H, W = x.shape
        assert C == self.in_channels
        x = x.contiguous()
        P = H * W
        y = torch.empty((N, self.out_channels, H, W), dtype=x.dtype, device=x.device)
        grid = (triton.cdiv(P, 32), triton.cdiv(self.out_channels, 32), N)
        conv1x1_kernel[grid](x, self.weight_t, self.bias, y, C, self.out_channels, P,
                             BLOCK_P=32, BLOCK_CO=32, BLOCK_CI=16)
        return y
'''),
    'rmsnorm_silu_bf16_fused': Candidate('L2/13_linear_rmsnorm_silu', None, None, text=r'''
from typing import Optional

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fused_linear_rmsnorm_silu(x_ptr, w_ptr, b_ptr, g_ptr, out_ptr, M, N, K, eps,
                              stride_xm, stride_wn, stride_om,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    # each program owns BLOCK_M full rows (BLOCK_N >= N), so the RMS is computed in registers
    pid = tl.program_id(0)
    rm = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        rk = k * BLOCK_K + tl.arange(0, BLOCK_K)
        a = tl.load(x_ptr + rm[:, None] * stride_xm + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + rn[None, :] * stride_wn + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc = tl.dot(a, b, acc)
    bias = tl.load(b_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
    # nn.Linear rounds its output to bf16 before the fp32 normalisation
    y = (acc + bias[None, :]).to(tl.bfloat16).to(tl.float32)
    y = tl.where(rn[None, :] < N, y, 0.0)
    ms = tl.sum(y * y, axis=1) / N
    r = 1.0 / tl.sqrt(ms + eps)
    g = tl.load(g_ptr + rn, mask=rn < N, other=0.0).to(tl.float32)
    z = y * r[:, None] * g[None, :]
    z = z * tl.sigmoid(z)
    tl.store(out_ptr + rm[:, None] * stride_om + rn[None, :], z.to(out_ptr.dtype.element_ty),
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.weight = nn.Parameter(1.0 + 0.2 * torch.randn(out_features))
        self.eps = eps
        self._block_n: Optional[int] = None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        M, K = x.shape
        N = self.linear.out_features
        if self._block_n is None:
            self._block_n = triton.next_power_of_2(N)
        out = torch.empty((M, N), device=x.device, dtype=x.dtype)
        BLOCK_M = 16
        fused_linear_rmsnorm_silu[(triton.cdiv(M, BLOCK_M),)](
            x, self.linear.weight, self.linear.bias, self.weight, out, M, N, K, self.eps,
            x.stride(0), self.linear.weight.stride(0), out.stride(0),
            BLOCK_M=BLOCK_M, BLOCK_N=self._block_n, BLOCK_K=32)
        return out
'''),
    'rollflip_grid_meta': Candidate('X/57_roll_flip_2d', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl

SHIFT_H = 37
SHIFT_W = -101


@triton.jit
def _pos_mod(i, n):
    r = i % n
    return tl.where(r < 0, r + n, r)


@triton.jit
def roll_flip_kernel(src, dst, H, W, SH: tl.constexpr, SW: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    i = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    j = tl.program_id(2) * BLOCK_W + tl.arange(0, BLOCK_W)
    si = _pos_mod(i - SH, H)
    sj = _pos_mod(W - 1 - j - SW, W)
    m = (i[:, None] < H) & (j[None, :] < W)
    v = tl.load(src + plane * H * W + si[:, None] * W + sj[None, :], mask=m)
    tl.store(dst + plane * H * W + i[:, None] * W + j[None, :], v, mask=m)


class ModelNew(nn.Module):
    def __init__(self, shifts=(SHIFT_H, SHIFT_W)):
        super().__init__()
        self.sh, self.sw = shifts

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.numel() == 0:
            return torch.empty_like(x)
        x = x.contiguous()
        B, C, H, W = x.size()
        out = torch.empty_like(x)
        grid = lambda META: (B * C, triton.cdiv(H, META["BLOCK_H"]), triton.cdiv(W, META["BLOCK_W"]))
        roll_flip_kernel[grid](x, out, H, W, SH=self.sh, SW=self.sw, BLOCK_H=8, BLOCK_W=16)
        return out
'''),
    'snake_heuristics_warn': Candidate('X/66_snake_activation', None, None, text=r'''
import warnings

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.heuristics({"BLOCK_T": lambda args: min(1024, triton.next_power_of_2(args["T"]))})
@triton.jit
def snake_kernel(x_ptr, alpha_ptr, y_ptr, C, T, BLOCK_T: tl.constexpr):
    row = tl.program_id(0)  # (b, c) pair
    c = row % C
    t = tl.program_id(1) * BLOCK_T + tl.arange(0, BLOCK_T)
    m = t < T
    a = tl.load(alpha_ptr + c)
    x = tl.load(x_ptr + row * T + t, mask=m, other=0.0)
    s = tl.sin(a * x)
    tl.store(y_ptr + row * T + t, x + s * s / (a + 1e-9), mask=m)


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.alpha = nn.Parameter(torch.rand(channels) * 1.5 + 0.25)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not x.is_contiguous():
            warnings.warn("snake: non-contiguous input, copying", stacklevel=2)
            x = x.contiguous()
        B, C, T = x.shape
        y = torch.empty_like(x)
        snake_kernel[lambda meta: (B * C, triton.cdiv(T, meta["BLOCK_T"]))](x, self.alpha, y, C, T)
        return y
'''),
    'embedding_submodule_2d': Candidate('X/20_embedding_lookup_bf16', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def embedding_kernel(ids_ptr, table_ptr, out_ptr, n_tokens, dim, BLOCK_T: tl.constexpr, BLOCK_D: tl.constexpr):
    t = tl.program_id(0) * BLOCK_T + tl.arange(0, BLOCK_T)
    d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    tmask = t < n_tokens
    ids = tl.load(ids_ptr + t, mask=tmask, other=0).to(tl.int64)
    m = tmask[:, None] & (d[None, :] < dim)
    rows = tl.load(table_ptr + ids[:, None] * dim + d[None, :], mask=m)
    tl.store(out_ptr + t.to(tl.int64)[:, None] * dim + d[None, :], rows, mask=m)


class ModelNew(nn.Module):
    def __init__(self, num_embeddings: int, dim: int):
        super().__init__()
        self.embed = nn.Embedding(num_embeddings, dim, padding_idx=0)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        weight = self.embed.weight
        out_shape = (*tokens.shape, weight.shape[1])
        if tokens.numel() == 0:
            return weight.new_empty(out_shape)
        ids = tokens.reshape(-1).contiguous()
        out = torch.empty((ids.numel(), weight.shape[1]), dtype=weight.dtype, device=weight.device)
        grid = (triton.cdiv(ids.numel(), 16), triton.cdiv(weight.shape[1], 64))
        embedding_kernel[grid](ids, weight, out, ids.numel(), weight.shape[1], BLOCK_T=16, BLOCK_D=64)
        return out.view(out_shape)
'''),
    'cross_frozen_dataclass': Candidate('X/34_cross_product_3d', None, None, text=r'''
from dataclasses import dataclass

import torch
import torch.nn as nn
import triton
import triton.language as tl


@dataclass(frozen=True)
class LaunchConfig:
    block: int = 256
    num_warps: int = 4

    def grid(self, n: int):
        return (triton.cdiv(n, self.block),)


@triton.jit
def cross3_kernel(a_ptr, b_ptr, c_ptr, n_rows, stride_a, stride_b, stride_c, BLOCK: tl.constexpr):
    r = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = r < n_rows
    r = r.to(tl.int64)
    a0 = tl.load(a_ptr + r * stride_a + 0, mask=m)
    a1 = tl.load(a_ptr + r * stride_a + 1, mask=m)
    a2 = tl.load(a_ptr + r * stride_a + 2, mask=m)
    b0 = tl.load(b_ptr + r * stride_b + 0, mask=m)
    b1 = tl.load(b_ptr + r * stride_b + 1, mask=m)
    b2 = tl.load(b_ptr + r * stride_b + 2, mask=m)
    tl.store(c_ptr + r * stride_c + 0, a1 * b2 - a2 * b1, mask=m)
    tl.store(c_ptr + r * stride_c + 1, a2 * b0 - a0 * b2, mask=m)
    tl.store(c_ptr + r * stride_c + 2, a0 * b1 - a1 * b0, mask=m)


CFG = LaunchConfig()


class ModelNew(nn.Module):
    def __init__(self, cfg: LaunchConfig = CFG):
        super().__init__()
        self.cfg = cfg

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        assert a.shape == b.shape and a.shape[-1] == 3, f"bad shapes {tuple(a.shape)} {tuple(b.shape)}"
        c = torch.empty_like(a)
        n = a.shape[0]
        cross3_kernel[self.cfg.grid(n)](a, b, c, n, a.stride(0), b.stride(0), c.stride(0),
                                        BLOCK=self.cfg.block, num_warps=self.cfg.num_warps)
        return c
'''),
    'cosine_loss_two_stage': Candidate('L1/86_cosine_similarity_loss', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl

_EPS = 1e-8


@triton.jit
def row_cos_kernel(a_ptr, b_ptr, out_ptr, D, eps, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    dot = tl.zeros([BLOCK_D], tl.float32)
    na = tl.zeros([BLOCK_D], tl.float32)
    nb = tl.zeros([BLOCK_D], tl.float32)
    for off in range(0, D, BLOCK_D):
        cols = off + tl.arange(0, BLOCK_D)
        m = cols < D
        a = tl.load(a_ptr + row * D + cols, mask=m, other=0.0)
        b = tl.load(b_ptr + row * D + cols, mask=m, other=0.0)
        dot += a * b
        na += a * a
        nb += b * b
    denom = tl.maximum(tl.sqrt(tl.sum(na, 0)) * tl.sqrt(tl.sum(nb, 0)), eps)
    tl.store(out_ptr + row, 1.0 - tl.sum(dot, 0) / denom)


@triton.jit
def mean_kernel(v_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for off in range(0, n, BLOCK):
        idx = off + tl.arange(0, BLOCK)
        acc += tl.load(v_ptr + idx, mask=idx < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, 0) / n)


class ModelNew(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a, b = a.contiguous(), b.contiguous()
        B, D = a.shape
        per_row = torch.empty(B, device=a.device, dtype=torch.float32)
        row_cos_kernel[(B,)](a, b, per_row, D, _EPS, BLOCK_D=128)
        loss = torch.empty((), device=a.device, dtype=torch.float32)
        mean_kernel[(1,)](per_row, loss, B, BLOCK=256)
        return loss
'''),
    'glu_linear_two_acc': Candidate('L2/15_linear_glu_scale', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK_M": 32, "BLOCK_H": 32, "BLOCK_K": 16}, num_warps=4),
        triton.Config({"BLOCK_M": 16, "BLOCK_H": 32, "BLOCK_K": 32}, num_warps=2),
    ],
    key=["M", "H", "K"],
)
@triton.jit
def linear_glu_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, H, K, scale,
                      BLOCK_M: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_h = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_h = pid_h * BLOCK_H + tl.arange(0, BLOCK_H)
    acc_a = tl.zeros((BLOCK_M, BLOCK_H), dtype=tl.float32)
    acc_g = tl.zeros((BLOCK_M, BLOCK_H), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        x = tl.load(x_ptr + offs_m[:, None] * K + offs_k[None, :],
                    mask=(offs_m[:, None] < M) & (offs_k[None, :] < K), other=0.0)
        wmask = (offs_k[:, None] < K) & (offs_h[None, :] < H)
        wa = tl.load(w_ptr + offs_h[None, :] * K + offs_k[:, None], mask=wmask, other=0.0)
        wg = tl.load(w_ptr + (offs_h[None, :] + H) * K + offs_k[:, None], mask=wmask, other=0.0)
        acc_a += tl.dot(x, wa)
        acc_g += tl.dot(x, wg)
    ba = tl.load(b_ptr + offs_h, mask=offs_h < H, other=0.0)
    bg = tl.load(b_ptr + H + offs_h, mask=offs_h < H, other=0.0)
    a = acc_a + ba[None, :]
    g = acc_g + bg[None, :]
    res = a * tl.sigmoid(g) * scale
    tl.store(out_ptr + offs_m[:, None] * H + offs_h[None, :], res, mask=(offs_m[:, None] < M) & (offs_h[None, :] < H))


def linear_glu(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, scale: float) -> torch.Tensor:
    M, K = x.shape
    H = weight.shape[0] // 2
    out = torch.empty((M, H), device=x.device, dtype=x.dtype)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]), triton.cdiv(H, META["BLOCK_H"]))
    linear_glu_kernel[grid](x, weight, bias, out, M, H, K, scale)
    return out


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int, scale: float):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return linear_glu(x.contiguous(), self.linear.weight, self.linear.bias, self.scale)
'''),
    'logaddexp_broadcast_helper': Candidate('L1/99_logaddexp', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _logaddexp(a, b):
    mx = tl.maximum(a, b)
    mn = tl.minimum(a, b)
    return mx + tl.log(1.0 + tl.exp(mn - mx))


@triton.jit
def logaddexp_kernel(x_ptr, y_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(x_ptr + offs, mask=mask, other=0.0)
    b = tl.load(y_ptr + offs, mask=mask, other=0.0)
    tl.store(o_ptr + offs, _logaddexp(a, b), mask=mask)


class ModelNew(nn.Module):
    BLOCK = 256

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        shape = torch.broadcast_shapes(x.shape, y.shape)
        assert x.shape == shape and y.shape == shape, "no broadcasting in this kernel"
        out = torch.empty(shape, dtype=torch.result_type(x, y), device=x.device)
        n = out.numel()
        logaddexp_kernel[(triton.cdiv(n, self.BLOCK),)](x.contiguous(), y.contiguous(), out, n, BLOCK=self.BLOCK)
        return out
'''),
    'revcumsum_assoc_scan': Candidate('L1/47_reverse_cumsum', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _add(a, b):
    return a + b


@triton.jit
def suffix_sum_kernel(x_ptr, y_ptr, D, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    m = cols < D
    x = tl.load(x_ptr + row * D + cols, mask=m, other=0.0)
    y = tl.associative_scan(x, 0, _add, reverse=True)
    tl.store(y_ptr + row * D + cols, y, mask=m)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        rows, D = x.shape
        y = torch.empty_like(x)
        suffix_sum_kernel[(rows,)](x, y, D, BLOCK=triton.next_power_of_2(D))
        return y
'''),
    'maxdim_flatten_lead': Candidate('L1/39_max_dim', None, None, text=r'''
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_max_kernel(x_ptr, out_ptr, n_rows, n_cols, ROWS: tl.constexpr, BLOCK_C: tl.constexpr):
    r = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    best = tl.full([ROWS], float("-inf"), dtype=tl.float32)
    for c0 in range(0, n_cols, BLOCK_C):
        c = c0 + tl.arange(0, BLOCK_C)
        m = (r[:, None] < n_rows) & (c[None, :] < n_cols)
        v = tl.load(x_ptr + r[:, None] * n_cols + c[None, :], mask=m, other=float("-inf"))
        best = tl.maximum(best, tl.max(v, axis=1))
    tl.store(out_ptr + r, best, mask=r < n_rows)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lead = x.shape[:-1]
        n_cols = x.shape[-1]
        n_rows = math.prod(lead)
        x2 = x.contiguous().view(n_rows, n_cols)
        out = x2.new_empty(n_rows)
        ROWS = 4
        row_max_kernel[(triton.cdiv(n_rows, ROWS),)](x2, out, n_rows, n_cols, ROWS=ROWS, BLOCK_C=32)
        return out.view(lead)
'''),
    'selu_class_consts_nograd': Candidate('L1/24_selu', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def selu_kernel(x_ptr, y_ptr, n, alpha, scale, BLOCK: tl.constexpr):
    pid = tl.program_id(axis=0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    neg = alpha * (tl.exp(tl.minimum(x, 0.0)) - 1.0)
    y = scale * tl.where(x > 0, x, neg)
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    ALPHA: float = 1.6732632423543772848170429916717
    SCALE: float = 1.0507009873554804934193349852946

    def __init__(self):
        super().__init__()

    @staticmethod
    def _grid(n: int, block: int):
        return (triton.cdiv(n, block),)

    @torch.no_grad()
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x, memory_format=torch.contiguous_format)
        n = x.numel()
        selu_kernel[self._grid(n, 1024)](x.contiguous(), out, n, self.ALPHA, self.SCALE, BLOCK=1024, num_warps=8)
        return out
'''),
    'mean_dim0_columns': Candidate('L1/38_mean_dim', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def col_mean_kernel(x_ptr, out_ptr, R, D, stride_r, inv_r, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_D + tl.arange(0, BLOCK_D)
    acc = tl.zeros([BLOCK_R, BLOCK_D], dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        m = (rows[:, None] < R) & (cols[None, :] < D)
        acc += tl.load(x_ptr + rows[:, None] * stride_r + cols[None, :], mask=m, other=0.0)
    tl.store(out_ptr + cols, tl.sum(acc, axis=0) * inv_r, mask=cols < D)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 0):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert self.dim == 0 and x.ndim == 2
        if x.stride(1) != 1:
            x = x.contiguous()
        R, D = x.shape
        out = torch.empty(D, dtype=x.dtype, device=x.device)
        col_mean_kernel[(triton.cdiv(D, 32),)](x, out, R, D, x.stride(0), 1.0 / R, BLOCK_R=16, BLOCK_D=32)
        return out
'''),
    'lora_merged_in_init': Candidate('L2/63_linear_lora_add_silu', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_silu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc += tl.dot(a, w)
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    out = acc * tl.sigmoid(acc)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], out, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    """LoRA merged into the base weight once at construction (W' = W + s * B @ A), one fused GEMM + SiLU."""

    def __init__(self, in_features, out_features, rank, lora_scale):
        super().__init__()
        self.base = nn.Linear(in_features, out_features)
        self.lora_a = nn.Linear(in_features, rank, bias=False)
        self.lora_b = nn.Linear(rank, out_features, bias=False)
        self.lora_scale = lora_scale
        with torch.no_grad():
            merged = self.base.weight + lora_scale * (self.lora_b.weight @ self.lora_a.weight)
        self.register_buffer("merged_weight", merged.contiguous())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        M, K = x.shape
        N = self.merged_weight.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
        linear_silu_kernel[grid](x, self.merged_weight, self.base.bias, y, M, N, K, BLOCK_M=32, BLOCK_N=32, BLOCK_K=16)
        return y
'''),
    'batchnorm_folded_init': Candidate('L1/32_batch_norm', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def affine_channel_kernel(x_ptr, scale_ptr, shift_ptr, y_ptr, C, HW, BLOCK: tl.constexpr):
    nc = tl.program_id(0)
    c = nc % C
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = offs < HW
    s = tl.load(scale_ptr + c)
    t = tl.load(shift_ptr + c)
    x = tl.load(x_ptr + nc * HW + offs, mask=m)
    tl.store(y_ptr + nc * HW + offs, x * s + t, mask=m)


class ModelNew(nn.Module):
    def __init__(self, channels: int, eps: float = 1e-5):
        super().__init__()
        self.bn = nn.BatchNorm2d(channels, eps=eps)
        with torch.no_grad():
            self.bn.weight.copy_(1.0 + 0.3 * torch.randn(channels))
            self.bn.bias.copy_(0.3 * torch.randn(channels))
            self.bn.running_mean.copy_(0.5 * torch.randn(channels))
            self.bn.running_var.copy_(0.5 + 1.5 * torch.rand(channels))
            # fold the inference-mode affine transform once: y = x * scale + shift
            scale = self.bn.weight * torch.rsqrt(self.bn.running_var + eps)
            shift = self.bn.bias - self.bn.running_mean * scale
        self.register_buffer("scale", scale.clone())
        self.register_buffer("shift", shift.clone())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        N, C, H, W = x.shape
        y = torch.empty_like(x)
        affine_channel_kernel[(N * C, triton.cdiv(H * W, 128))](x, self.scale, self.shift, y, C, H * W, BLOCK=128)
        return y
'''),
    'matmul_fp16_acc_fp32_out_cast': Candidate('L1/2_matmul_rectangular_fp16', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mm_fp32_out(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    """fp16 GEMM accumulating in an fp32 output buffer, returned in the input dtype."""

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        A, B = A.contiguous(), B.contiguous()
        M, K = A.shape
        N = B.shape[1]
        C = torch.empty((M, N), device=A.device, dtype=torch.float32)
        mm_fp32_out[(triton.cdiv(M, 32), triton.cdiv(N, 32))](A, B, C, M, N, K, BM=32, BN=32, BK=32)
        return C.to(A.dtype)
'''),
    'linear_tanh_lazy_wt_cache': Candidate('L2/11_linear_tanh_scale_bias_add', None, None, text=r'''
from typing import Optional

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_tanh_affine(x_ptr, wt_ptr, b_ptr, g_ptr, be_ptr, y_ptr, M, N, K,
                       BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(wt_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, w, acc)
    nm = rn < N
    b = tl.load(b_ptr + rn, mask=nm, other=0.0).to(tl.float32)
    y = (acc + b[None, :]).to(tl.bfloat16).to(tl.float32)
    t = 2.0 * tl.sigmoid(2.0 * y) - 1.0
    t = t.to(tl.bfloat16).to(tl.float32)
    g = tl.load(g_ptr + rn, mask=nm, other=0.0).to(tl.float32)
    be = tl.load(be_ptr + rn, mask=nm, other=0.0).to(tl.float32)
    out = (t * g[None, :]).to(tl.bfloat16).to(tl.float32) + be[None, :]
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], out.to(tl.bfloat16), mask=(rm[:, None] < M) & nm[None, :])


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.gamma = nn.Parameter(torch.rand(out_features) * 2.0 + 0.5)
        self.beta = nn.Parameter(torch.randn(out_features) * 0.5)
        self._weight_t: Optional[torch.Tensor] = None

    def _wt(self) -> torch.Tensor:
        # K-major copy of the weight, made on first use (after .to(dtype)/.to(device) moved the parameters)
        w = self.linear.weight
        if self._weight_t is None or self._weight_t.dtype != w.dtype or self._weight_t.device != w.device:
            self._weight_t = w.detach().t().contiguous()
        return self._weight_t

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        M, K = x.shape
        N = self.linear.out_features
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        linear_tanh_affine[(triton.cdiv(M, 16), triton.cdiv(N, 32))](
            x, self._wt(), self.linear.bias, self.gamma, self.beta, y, M, N, K, BM=16, BN=32, BK=16)
        return y
'''),
    'deep_mlp_modulelist_submodules': Candidate('L3/1_deep_mlp_relu', None, None, text=r'''
from typing import List

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_act_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K, APPLY_RELU: tl.constexpr,
                      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm, pn = tl.program_id(0), tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc += tl.dot(a, w)
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    if APPLY_RELU:
        acc = tl.maximum(acc, 0.0)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class TritonLinear(nn.Linear):
    """nn.Linear whose forward is a Triton GEMM with an optional fused ReLU."""

    def __init__(self, in_features: int, out_features: int, relu: bool = False):
        super().__init__(in_features, out_features)
        self.relu = relu

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        M, K = x.shape
        N = self.out_features
        y = x.new_empty((M, N))
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 32))
        linear_act_kernel[grid](x, self.weight, self.bias, y, M, N, K, APPLY_RELU=self.relu, BM=16, BN=32, BK=32)
        return y


class ModelNew(nn.Module):
    def __init__(self, d_in: int, hidden: int, d_out: int, layers: int):
        super().__init__()
        dims: List[int] = [d_in] + [hidden] * layers
        self.hidden = nn.ModuleList(TritonLinear(dims[i], dims[i + 1], relu=True) for i in range(layers))
        self.out = TritonLinear(hidden, d_out)
        for layer in self.hidden:
            nn.init.kaiming_normal_(layer.weight, nonlinearity="relu")
        nn.init.kaiming_normal_(self.out.weight, nonlinearity="linear")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        for layer in self.hidden:
            x = layer(x)
        return self.out(x)
'''),
    'gather_long_idx': Candidate('X/17_gather_dim1', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gather_rows_kernel(x_ptr, idx_ptr, out_ptr, N, J, sx0, si0, so0, BLOCK_J: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    j = tl.program_id(1) * BLOCK_J + tl.arange(0, BLOCK_J)
    m = j < J
    cols = tl.load(idx_ptr + b * si0 + j, mask=m, other=0)
    tl.device_assert((cols >= 0) & (cols < N), "index out of range")
    vals = tl.load(x_ptr + b * sx0 + cols, mask=m)
    tl.store(out_ptr + b * so0 + j, vals, mask=m)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        if idx.dtype != torch.int64:
            idx = idx.long()
        x, idx = x.contiguous(), idx.contiguous()
        (B, N), J = x.shape, idx.shape[1]
        out = torch.empty((B, J), dtype=x.dtype, device=x.device)
        sx0, _ = x.stride()
        si0, _ = idx.stride()
        gather_rows_kernel[(B, triton.cdiv(J, 64))](x, idx, out, N, J, sx0, si0, out.stride(0), BLOCK_J=64)
        return out
'''),
    'hardsigmoid_version_gate': Candidate('L1/26_hardsigmoid', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl

# older Triton releases spell the clamp differently; pick the path once at import
_TRITON_MAJOR = int(triton.__version__.split(".")[0])
USE_CLAMP = _TRITON_MAJOR >= 3


@triton.jit
def hardsigmoid_kernel(x_ptr, y_ptr, n, USE_CLAMP: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    if USE_CLAMP:
        y = tl.clamp(x / 6.0 + 0.5, 0.0, 1.0)
    else:
        y = tl.minimum(tl.maximum(x / 6.0 + 0.5, 0.0), 1.0)
    tl.store(y_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        hardsigmoid_kernel[(triton.cdiv(n, 512),)](x, y, n, USE_CLAMP=USE_CLAMP, BLOCK=512)
        return y
'''),
    'matmul_fp16_swizzle2d': Candidate('L1/2_matmul_rectangular_fp16', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 4}, num_stages=3, num_warps=4),
             triton.Config({"BLOCK_M": 64, "BLOCK_N": 32, "BLOCK_K": 32, "GROUP_M": 8}, num_stages=4, num_warps=4)],
    key=["M", "N", "K"],
)
@triton.jit
def fp16_gemm(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid_m, pid_n = tl.swizzle2d(tl.program_id(0), tl.program_id(1), tl.num_programs(0), tl.num_programs(1), GROUP_M)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_rem = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_rem), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_rem) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, out_dtype=tl.float32)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, c,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        M, K = A.shape
        K2, N = B.shape
        assert K == K2
        C = torch.empty((M, N), device=A.device, dtype=A.dtype)
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))
        fp16_gemm[grid](A, B, C, M, N, K, *A.stride(), *B.stride(), *C.stride())
        return C
'''),
    'bmm_logsoftmax_row_program': Candidate('L2/26_bmm_scale_log_softmax', None, None, text=r'''
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bmm_logsoftmax_kernel(a_ptr, b_ptr, o_ptr, M, N, K, scale,
                          sab, sam, sak, sbb, sbk, sbn, sob, som, son,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    bid = tl.program_id(1)
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = tl.arange(0, BLOCK_N)  # the whole row of scores
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(a_ptr + bid * sab + rm[:, None] * sam + rk[None, :] * sak,
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + bid * sbb + rk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    s = tl.where(rn[None, :] < N, acc * scale, float("-inf"))
    row_max = tl.max(s, axis=1)
    shifted = s - row_max[:, None]
    lse = tl.log(tl.sum(tl.exp(shifted), axis=1))
    out = shifted - lse[:, None]
    tl.store(o_ptr + bid * sob + rm[:, None] * som + rn[None, :] * son, out,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        B, M, K = a.shape
        N = b.shape[-1]
        out = torch.empty((B, M, N), dtype=a.dtype, device=a.device)
        BLOCK_M = 16
        bmm_logsoftmax_kernel[(triton.cdiv(M, BLOCK_M), B)](
            a, b, out, M, N, K, 1.0 / math.sqrt(K), *a.stride(), *b.stride(), *out.stride(),
            BLOCK_M=BLOCK_M, BLOCK_N=triton.next_power_of_2(N), BLOCK_K=16)
        return out
'''),
    'gelu_tanh_bf16_upcast_in_torch': Candidate('L1/20_gelu_tanh_bf16', None, FalseAlarm('torch_fallback', "torch's copies", 'session (torch_copied_bytes >= TORCH_COPY_SHARE * output_bytes on a data-movement task)'), text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def gelu_tanh_f32(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
    y = 0.5 * x * (1.0 + (2.0 * tl.sigmoid(2.0 * inner) - 1.0))
    tl.store(y_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xf = x.float().contiguous()
        y = torch.empty_like(xf)
        n = xf.numel()
        gelu_tanh_f32[(triton.cdiv(n, 256),)](xf, y, n, BLOCK=256)
        return y.to(x.dtype)
'''),
    'pixel_unshuffle_index_math': Candidate('X/54_pixel_unshuffle_r2', None, None, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl

R = 2


@triton.jit
def pixel_unshuffle_kernel(x_ptr, y_ptr, C, H, W, total, R: tl.constexpr, BLOCK: tl.constexpr):
    # one flat index per output element of (B, C*R*R, H//R, W//R)
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = o < total
    OH = H // R
    OW = W // R
    ow = o % OW
    t = o // OW
    oh = t % OH
    t = t // OH
    oc = t % (C * R * R)
    b = t // (C * R * R)
    c = oc // (R * R)
    rr = oc % (R * R)
    i = oh * R + rr // R
    j = ow * R + rr % R
    v = tl.load(x_ptr + ((b * C + c) * H + i) * W + j, mask=m)
    tl.store(y_ptr + o, v, mask=m)


class ModelNew(nn.Module):
    def __init__(self, downscale_factor: int = R):
        super().__init__()
        self.r = downscale_factor

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, c, h, w = x.shape
        r = self.r
        assert h % r == 0 and w % r == 0
        y = x.new_empty(b, c * r * r, h // r, w // r)
        total = y.numel()
        pixel_unshuffle_kernel[(triton.cdiv(total, 256),)](x.contiguous(), y, c, h, w, total, R=r, BLOCK=256)
        return y
'''),
}

#: the judge runs kept in the quick suite (``-m "not slow"``): the two mended false alarms and two others
QUICK_RUNS = {"lora_merged_in_init", "hardsigmoid_version_gate", "gelu_autograd_fn", "maxpool2d_submodule"}

def _params(static_only: bool):
    out = []
    for name, cand in CANDIDATES.items():
        for policy in ("partial", "strict"):
            alarm = getattr(cand, policy)
            if static_only and not is_static(alarm):
                alarm = None
            marks = [pytest.mark.xfail(strict=True, raises=KnownFalseAlarm, reason=alarm.reason())] if alarm else []
            if not static_only and name not in QUICK_RUNS:
                marks.append(pytest.mark.slow)
            out.append(pytest.param(name, policy, marks=marks, id=f"{name}-{policy}"))
    return out


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
#: name -> (imports, module-level code, __init__ lines, forward lines, None or the false alarm)
SNIPPETS = {
    "torch_compiler_disable": ("", "@torch.compiler.disable\ndef launch(t):\n    return t", "", "        x = launch(x)",
                               None),
    "super_with_class_and_self": ("", "", "        super(ModelNew, self).__init__()", "", None),
    "weight_data_t_cached": ("", "", "        self.w = nn.Parameter(torch.randn(4, 4))\n"
                                     "        self.wt = self.w.data.t().contiguous()", "", None),
    "type_checking_import": ("from typing import TYPE_CHECKING", "if TYPE_CHECKING:\n    from torch import Tensor",
                             "", "", None),
    "torch_to_tl_dtype_map": ("", "_TL = {torch.float32: tl.float32, torch.float16: tl.float16}", "",
                              "        d = _TL[x.dtype]", None),
    "functools_cache_block": ("import functools", "@functools.cache\ndef blk(n):\n    return triton.next_power_of_2(n)",
                              "", "        b = blk(x.shape[-1])", None),
    "repr_of_config_class": ("", "class Cfg:\n    def __repr__(self):\n        return 'Cfg()'", "", "", None),
    "autocast_disabled": ("", "", "", "        with torch.autocast(device_type=x.device.type, enabled=False):\n"
                                      "            pass", None),
    "device_properties_guarded": ("", "", "        if torch.cuda.is_available():\n            self.sms = "
                                          "torch.cuda.get_device_properties(0).multi_processor_count", "", None),
    "init_builds_buffers_with_torch": ("import torch.nn.functional as F", "",
                                       "        w = torch.randn(3, 3)\n        self.register_buffer('wp', F.pad(w, (0, 1)))\n"
                                       "        self.register_buffer('wf', torch.flip(w, dims=(0,)))", "", None),
    # mended (round 35): @ in a constructor, as torch.matmul there already was
    "init_merges_weights_with_matmul_operator": ("", "", "        a, b = torch.randn(4, 2), torch.randn(2, 4)\n"
                                                         "        self.register_buffer('w', a @ b)", "", None),
    "tl_static_and_device_asserts": ("", "@triton.jit\ndef k(x, B: tl.constexpr):\n    tl.static_assert(B % 16 == 0)\n"
                                         "    tl.device_assert(B > 0)", "", "", None),
    "autotune_prune_and_restore": ("", "def prune(configs, named_args, **kw):\n    return configs[:1]\n\n\n"
                                       "@triton.autotune(configs=[triton.Config({'B': 64})], key=['n'],\n"
                                       "                 prune_configs_by={'early_config_prune': prune}, "
                                       "restore_value=['y'])\n@triton.jit\ndef k(y, n, B: tl.constexpr):\n    pass",
                                   "", "", None),
    "jit_noinline_helper_with_tl_tensor_hints": ("", "@triton.jit(noinline=True)\ndef h(a: tl.tensor) -> tl.tensor:\n"
                                                     "    return a + 1", "", "", None),
    "modulelist_and_parameterlist": ("", "class Blk(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                         "        self.lin = nn.Linear(4, 4)",
                                     "        self.blocks = nn.ModuleList([Blk() for _ in range(3)])\n"
                                     "        self.ps = nn.ParameterList([nn.Parameter(torch.ones(2))])",
                                     "        ws = [b.lin.weight for b in self.blocks]", None),
    "kernel_name_for_debug": ("", "", "", "        name = copy_kernel.__name__", None),
    "shape_cache_dict": ("", "_BLOCKS = {}", "", "        b = _BLOCKS.setdefault(x.shape[-1], 256)", None),
    "classmethod_launcher": ("", "class Ops:\n    kernel = copy_kernel\n\n    @classmethod\n    def run(cls, a, b):\n"
                                 "        cls.kernel[(1,)](a, b, a.numel(), BLOCK=256)", "", "", None),
    "tl_math_and_bitcast": ("", "@triton.jit\ndef h(a):\n    r = tl.math.rsqrt(a) + tl.math.exp2(a) + tl.fma(a, a, a)\n"
                                "    return r.to(tl.uint32, bitcast=True)", "", "", None),
    "channels_last_and_storage_offset": ("", "", "", "        c = x.is_contiguous(memory_format=torch.channels_last)\n"
                                                     "        off = x.storage_offset()", None),
    # mended (round 35): a package's version string read
    "triton_version_gate": ("", "NEW = int(triton.__version__.split('.')[0]) >= 3", "", "", None),
    "torch_version_gate": ("", "NEW = tuple(int(v) for v in torch.__version__.split('.')[:2]) >= (2, 1)", "", "",
                           None),
    # refused by the static rules, and left so
    "logging_debug": ("import logging", "logger = logging.getLogger(__name__)", "", "        logger.debug('x %s', x.shape)",
                      FalseAlarm("forbidden_import", "imports 'logging'",
                                 "guards (ALLOWED_MODULES; logging.config.listen serves a socket and applies the "
                                 "configs it receives, FileHandler opens files: admitting it is not a guards-only "
                                 "mend)")),
    "copy_deepcopy_weight": ("import copy", "", "        self.w = nn.Parameter(torch.randn(4))\n"
                                                "        self.w2 = copy.deepcopy(self.w)", "",
                             FalseAlarm("forbidden_module_alias", "copy.deepcopy",
                                        "reach (deepcopy reaches getattr, and runs __reduce_ex__/__deepcopy__ of "
                                        "whatever it is handed: a reflection gadget; .clone() does the same "
                                        "for a tensor)")),
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


# ---- the cheats the mended rules exist for stay refused ----

@pytest.mark.parametrize("init, body, flags", [
    # @ in the forward (or any method but a constructor): torch doing a matrix product, under strict
    ("", "        z = x @ x", ["torch_fallback"]),
    ("", "        z = torch.matmul(x, x) if False else x @ x.t()", ["torch_fallback"]),
    # __version__ is readable, never writable
    ("", "        torch.__version__ = '9.0'", ["forbidden_attribute", "monkeypatch"]),
    ("", "        triton.__version__ += 'x'", ["forbidden_attribute", "monkeypatch"]),
    ("        self.__version__ = 1", "", ["forbidden_attribute"]),
    # other dunder attributes stay refused
    ("", "        c = x.__class__", ["forbidden_attribute"]),
    ("", "        d = torch.__dict__", ["forbidden_attribute"]),
])
def test_the_cheats_of_the_mended_rules_stay_refused_statically(init, body, flags):
    text = SNIPPET.format(imports="", pre="", init=init or "        pass", body=body or "        pass")
    assert sorted({f[0] for f in check_source(text, "triton", "strict")}) == flags


HELPER_INIT_MATMUL = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


class Product:
    def __init__(self, a, b):
        self.value = a @ b


class ModelNew(nn.Module):
    def forward(self, A, B):
        c = Product(A, B).value
        y = torch.empty_like(c)
        copy_kernel[(triton.cdiv(c.numel(), 256),)](c, y, c.numel(), BLOCK=256)
        return y
'''


def test_a_matrix_product_in_a_helpers_constructor_called_by_the_forward_is_refused_at_run_time(judge, bundled_tasks):
    """The constructor exemption is static only (as for ``torch.matmul`` there before): a forward that builds a
    helper whose ``__init__`` multiplies the inputs with ``@`` passes the static rules, and ``strict`` refuses the
    torch operators at run time."""
    assert check_source(HELPER_INIT_MATMUL, "triton", "strict") == []
    result = judge.evaluate(bundled_tasks.get("L1/1_matmul_square"), HELPER_INIT_MATMUL, profile=PROFILE,
                            torch_policy="strict")
    assert result.status == "rejected", (result.status, result.message)
    assert [f["name"] for f in result.flags] == ["torch_fallback"], result.flags
    assert "aten::m" in result.flags[0]["reason"], result.flags
