"""Honest Triton candidates in the many styles LLM policies write stay ``ok`` (false-alarm hunt, QA).

Each candidate below is an honest kernel for a bundled task: the work is done by its own ``@triton.jit`` kernels,
torch only allocates outputs and makes views. Styles covered: helper functions and several kernels,
``@triton.autotune`` with several configs and a ``key`` (also ``reset_to_zero``), ``@triton.heuristics``, launches
in a loop over chunks or batch entries, outputs from ``torch.empty``/``empty_like``/``empty_strided``/``new_empty``/
``zeros``, an in-place kernel on a freshly allocated buffer, ``contiguous``/``view``/``reshape``/``t()`` glue, grids
as lambdas over ``meta``, 2-D and 3-D grids, ``triton.cdiv``/``next_power_of_2``, module-level constants (also a
``tl.constexpr`` global), config dicts, a frozen dataclass and a ``NamedTuple`` as configs, ``torch.no_grad`` /
``inference_mode``, tuples of outputs, parameters copied from an ``nn.Linear``/``nn.LayerNorm`` built with the same
init (or the submodule kept and only its parameters read), a preallocated output buffer cached across calls,
``math``, ``functools.lru_cache``, type hints, docstrings, ``is_cuda`` branches, ``assert``, f-strings, ``__all__``,
integer (int8/int64) and multi-dtype outputs, Random tasks with seeds drawn on the host, and tasks with parameters.

Each is judged on the CPU (Triton's interpreter) at the task's small shapes, static checks on, under the default
policy ``partial`` and under ``strict``. Where an honest candidate is not ``ok``, the test is a strict xfail naming the
check that fires (a false alarm to mend; see the QA report): it must fail *with that check's flag*, any other
verdict fails the test.

Verdicts when written (2026-12-07): 46 candidates; under ``partial`` 40 ok, 6 rejected (all by static rules);
under ``strict`` 34 ok, 12 rejected (the same 6, one static torch rule, five at run time). Of the 30 snippets checked
statically, 7 are false alarms. A preallocated output buffer reused across calls (``cached_out``) is ``ok``
under both and is kept here as legitimate: the kernel rewrites the whole buffer on every call, the judge scrubs
what it released, so nothing is gained from it.

Runtime: the static checks of every candidate and the static rejections run in seconds; the judge runs of the
honest candidates are ``slow`` (a few seconds each, a minute each for the Random tasks) except a handful.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kernelgym.judge.guards import check_source
from kernelgym.testing.honest import PROFILE, FalseAlarm, KnownFalseAlarm, expect, is_static


@dataclass(frozen=True)
class Candidate:
    task: str
    partial: FalseAlarm | None  # None: must be ok under partial
    strict: FalseAlarm | None  # None: must be ok under strict
    slow: bool
    text: str


CANDIDATES: dict[str, Candidate] = {
    'relu_all': Candidate('L1/15_relu', None, None, slow=False, text=r'''
"""ReLU in Triton.

A flat 1-D launch over the contiguous tensor; exports only ModelNew.
"""
from typing import Tuple

import torch
import torch.nn as nn
import triton
import triton.language as tl

__all__ = ["ModelNew"]

BLOCK_SIZE = 1024


@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    """out = max(x, 0) elementwise."""
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, tl.maximum(x, 0.0), mask=mask)


def _grid(n: int) -> Tuple[int]:
    return (triton.cdiv(n, BLOCK_SIZE),)


def triton_relu(x: torch.Tensor) -> torch.Tensor:
    assert x.dtype == torch.float32, f"expected float32, got {x.dtype}"
    x = x.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    relu_kernel[_grid(n)](x, out, n, BLOCK_SIZE=BLOCK_SIZE)
    return out


class ModelNew(nn.Module):
    """Drop-in replacement for Model using a Triton kernel."""

    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return triton_relu(x)
'''),
    'leaky_heuristics': Candidate('L1/16_leaky_relu', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.heuristics({"EVEN_N": lambda args: args["n_elements"] % args["BLOCK"] == 0})
@triton.jit
def _leaky_relu_kernel(x_ptr, y_ptr, n_elements, slope, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if EVEN_N:
        x = tl.load(x_ptr + offs)
        tl.store(y_ptr + offs, tl.where(x >= 0, x, x * slope))
    else:
        mask = offs < n_elements
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        tl.store(y_ptr + offs, tl.where(x >= 0, x, x * slope), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, negative_slope: float = 0.1):
        super().__init__()
        self.negative_slope = float(negative_slope)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        assert x.is_floating_point(), "leaky_relu needs a floating tensor"
        if not x.is_contiguous():
            x = x.contiguous()
        y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        n = x.numel()
        BLOCK = 512
        _leaky_relu_kernel[(triton.cdiv(n, BLOCK),)](x, y, n, self.negative_slope, BLOCK=BLOCK)
        return y
'''),
    'softplus_chunks': Candidate('L1/22_softplus', None, None, slow=False, text=r'''
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

CHUNK = 1 << 11  # elements per launch
LOG2E = 1.0 / math.log(2.0)


@triton.jit
def softplus_kernel(x_ptr, y_ptr, n, beta, threshold, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    bx = x * beta
    soft = tl.log(1.0 + tl.exp(bx)) / beta
    y = tl.where(bx > threshold, x, soft)
    tl.store(y_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    """Softplus, launched once per chunk of the flattened input."""

    def __init__(self, beta: float = 2.0, threshold: float = 10.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, x):
        flat = x.contiguous().view(-1)
        out = torch.empty_like(flat)
        total = flat.numel()
        block = 256 if not x.is_cuda else 1024
        for start in range(0, total, CHUNK):
            stop = min(start + CHUNK, total)
            src, dst = flat[start:stop], out[start:stop]
            n = stop - start
            softplus_kernel[(triton.cdiv(n, block),)](src, dst, n, self.beta, self.threshold, BLOCK=block)
        return out.view(x.shape)
'''),
    'hardtanh_getattr': Candidate('L1/25_hardtanh', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def hardtanh_kernel(x_ptr, y_ptr, n, lo, hi, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.minimum(tl.maximum(x, lo), hi), mask=m)


class ModelNew(nn.Module):
    def __init__(self, min_val: float = -0.75, max_val: float = 1.25):
        super().__init__()
        self.min_val = min_val
        self.max_val = max_val

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        lo = getattr(self, "min_val", -1.0)
        hi = getattr(self, "max_val", 1.0)
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        hardtanh_kernel[(triton.cdiv(n, 1024),)](x, y, n, lo, hi, BLOCK=1024)
        return y
'''),
    'sigmoid_inplace_clone': Candidate('L1/17_sigmoid', None, FalseAlarm('torch_fallback', "torch's copies", 'session (torch_copied_bytes >= TORCH_COPY_SHARE * output_bytes + reference state + relayout)'), slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sigmoid_inplace_kernel(buf_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(buf_ptr + offs, mask=m)
    tl.store(buf_ptr + offs, 1.0 / (1.0 + tl.exp(-v)), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = x.clone()  # fresh buffer; the kernel works in place on it
        n = out.numel()
        sigmoid_inplace_kernel[(triton.cdiv(n, 512),)](out, n, BLOCK=512)
        return out
'''),
    'sigmoid_inplace_empty': Candidate('L1/17_sigmoid', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


@triton.jit
def sigmoid_inplace_kernel(buf_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    v = tl.load(buf_ptr + offs, mask=m)
    tl.store(buf_ptr + offs, tl.sigmoid(v), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        grid = (triton.cdiv(n, 512),)
        copy_kernel[grid](x, out, n, BLOCK=512)
        sigmoid_inplace_kernel[grid](out, n, BLOCK=512)
        return out
'''),
    'softmax_lru': Candidate('L1/28_softmax', None, None, slow=False, text=r'''
import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl


@functools.lru_cache(maxsize=None)
def _launch_params(n_cols: int) -> dict:
    block = triton.next_power_of_2(n_cols)
    warps = 4 if block <= 2048 else 8
    return {"BLOCK_SIZE": block, "num_warps": warps}


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, out_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols, mask=mask, other=-float("inf"))
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    den = tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, num / den, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    @torch.no_grad()
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols, **_launch_params(n_cols))
        return y
'''),
    'logsoftmax_online': Candidate('L1/29_log_softmax', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _row_stats(x_ptr, row_start, n_cols, BLOCK: tl.constexpr):
    """Online max / sum-exp over one row, BLOCK columns at a time."""
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row_start + cols, mask=cols < n_cols, other=-float("inf"))
        new_m = tl.maximum(m, x)
        s = s * tl.exp(m - new_m) + tl.exp(x - new_m)
        s = tl.where(new_m == -float("inf"), 0.0, s)
        m = new_m
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - row_max), axis=0)
    return row_max, total


@triton.jit
def log_softmax_kernel(x_ptr, y_ptr, stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    start = row * stride
    row_max, total = _row_stats(x_ptr, start, n_cols, BLOCK)
    lse = row_max + tl.log(total)
    for c in range(0, n_cols, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        mask = cols < n_cols
        x = tl.load(x_ptr + start + cols, mask=mask, other=0.0)
        tl.store(y_ptr + start + cols, x - lse, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape[0], x.shape[-1]
        y = torch.empty_like(x)
        log_softmax_kernel[(rows,)](x, y, x.stride(0), cols, BLOCK=128)
        return y
'''),
    'layernorm_param_copy': Candidate('L1/30_layer_norm', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def layernorm_fwd(X, Y, W, B, stride, N, eps, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride + cols, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=0) / N
    diff = tl.where(mask, x - mean, 0.0)
    var = tl.sum(diff * diff, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    w = tl.load(W + cols, mask=mask)
    b = tl.load(B + cols, mask=mask)
    tl.store(Y + row * stride + cols, diff * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    """LayerNorm whose affine parameters are copied from an nn.LayerNorm built with the same init."""

    def __init__(self, hidden: int, eps: float = 1e-5):
        super().__init__()
        ref = nn.LayerNorm(hidden, eps=eps)
        with torch.no_grad():
            ref.weight.copy_(1.0 + 0.5 * torch.randn(hidden))
            ref.bias.copy_(0.5 * torch.randn(hidden))
        self.weight = nn.Parameter(ref.weight.detach().clone())
        self.bias = nn.Parameter(ref.bias.detach().clone())
        self.eps = eps
        self.hidden = hidden

    def forward(self, x):
        shape = x.shape
        x2 = x.reshape(-1, self.hidden)
        if not x2.is_contiguous():
            x2 = x2.contiguous()
        y = torch.empty_like(x2)
        BLOCK_N = triton.next_power_of_2(self.hidden)
        layernorm_fwd[(x2.shape[0],)](x2, y, self.weight, self.bias, x2.stride(0), self.hidden, self.eps,
                                       BLOCK_N=BLOCK_N)
        return y.reshape(shape)
'''),
    'rmsnorm_dataclass': Candidate('L1/31_rms_norm', None, None, slow=False, text=r'''
from dataclasses import dataclass

import torch
import torch.nn as nn
import triton
import triton.language as tl


@dataclass(frozen=True)
class LaunchConfig:
    block: int
    num_warps: int = 4


@triton.jit
def rmsnorm_kernel(x_ptr, w_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=0.0)
    ms = tl.sum(x * x, axis=0) / n_cols
    inv = tl.rsqrt(ms + eps)
    w = tl.load(w_ptr + offs, mask=mask, other=0.0)
    tl.store(y_ptr + row * n_cols + offs, x * inv * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.5 * torch.randn(hidden))

    def config(self, n_cols: int) -> LaunchConfig:
        return LaunchConfig(block=triton.next_power_of_2(n_cols))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n_rows, n_cols = x.shape
        cfg = self.config(n_cols)
        y = torch.empty_like(x)
        rmsnorm_kernel[(n_rows,)](x, self.weight, y, n_cols, self.eps, BLOCK=cfg.block, num_warps=cfg.num_warps)
        return y
'''),
    'sumdim_2dgrid': Candidate('L1/37_sum_dim', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim_kernel(x_ptr, out_ptr, R, INNER, BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    outer = tl.program_id(0)
    pid_i = tl.program_id(1)
    inner = pid_i * BLOCK_I + tl.arange(0, BLOCK_I)
    imask = inner < INNER
    acc = tl.zeros((BLOCK_I,), dtype=tl.float32)
    base = x_ptr + outer * R * INNER
    for r0 in range(0, R, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        ptrs = base + rows[:, None] * INNER + inner[None, :]
        tile = tl.load(ptrs, mask=(rows[:, None] < R) & imask[None, :], other=0.0)
        acc += tl.sum(tile, axis=0)
    tl.store(out_ptr + outer * INNER + inner, acc, mask=imask)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dim = self.dim % x.dim()
        x = x.contiguous()
        outer = 1
        for s in x.shape[:dim]:
            outer *= s
        R = x.shape[dim]
        inner = x.numel() // (outer * R)
        out_shape = list(x.shape)
        out_shape[dim] = 1
        out = x.new_empty(out_shape)
        grid = lambda meta: (outer, triton.cdiv(inner, meta["BLOCK_I"]))
        sum_dim_kernel[grid](x, out, R, inner, BLOCK_R=16, BLOCK_I=32)
        return out
'''),
    'argmax_int64': Candidate('L1/41_argmax', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def argmax_kernel(x_ptr, out_ptr, n_cols, stride_row, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    vals = tl.load(x_ptr + row * stride_row + cols, mask=cols < n_cols, other=-float("inf"))
    idx = tl.argmax(vals, axis=0)
    tl.store(out_ptr + row, idx.to(tl.int64))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        B, D = x.shape
        out = torch.empty(B, dtype=torch.long, device=x.device)
        argmax_kernel[(B,)](x, out, D, x.stride(0), BLOCK=triton.next_power_of_2(D))
        return out
'''),
    'argmin_loop': Candidate('L1/42_argmin', None, None, slow=True, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def argmin_dim1_kernel(x_ptr, out_ptr, R, D, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    pid_d = tl.program_id(1)
    d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    dmask = d < D
    best = tl.full((BLOCK_D,), float("inf"), tl.float32)
    best_idx = tl.zeros((BLOCK_D,), tl.int64)
    for r in range(0, R):
        v = tl.load(x_ptr + (b * R + r) * D + d, mask=dmask, other=float("inf"))
        take = v < best  # strict: first occurrence wins, like torch
        best = tl.where(take, v, best)
        best_idx = tl.where(take, r, best_idx)
    tl.store(out_ptr + b * D + d, best_idx, mask=dmask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        B, R, D = x.shape
        out = torch.empty((B, D), device=x.device, dtype=torch.int64)
        BLOCK_D = 32
        argmin_dim1_kernel[(B, triton.cdiv(D, BLOCK_D))](x, out, R, D, BLOCK_D=BLOCK_D)
        return out
'''),
    'cumsum_carry': Candidate('L1/46_cumsum', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def cumsum_rows(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    carry = tl.zeros((), dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        m = cols < n_cols
        x = tl.load(x_ptr + row * n_cols + cols, mask=m, other=0.0)
        c = tl.cumsum(x, axis=0) + carry
        tl.store(y_ptr + row * n_cols + cols, c, mask=m)
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        assert self.dim in (1, -1), "this kernel scans the last dimension of a 2-D tensor"
        x = x.contiguous()
        y = torch.empty_like(x)
        cumsum_rows[(x.shape[0],)](x, y, x.shape[1], BLOCK=128)
        return y
'''),
    'matmul_autotune': Candidate('L1/1_matmul_square', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


def get_autotune_configs():
    return [
        triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16, "GROUP_M": 4}, num_warps=4, num_stages=2),
        triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_warps=4, num_stages=3),
        triton.Config({"BLOCK_M": 128, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, num_warps=8, num_stages=3),
    ]


@triton.autotune(configs=get_autotune_configs(), key=["M", "N", "K"])
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                  stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)

    accumulator = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        accumulator = tl.dot(a, b, accumulator)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    c = accumulator.to(tl.float32)

    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    tl.store(c_ptrs, c, mask=c_mask)


def matmul(a, b):
    assert a.shape[1] == b.shape[0], "Incompatible dimensions"
    M, K = a.shape
    K, N = b.shape
    c = torch.empty((M, N), device=a.device, dtype=torch.float32)
    grid = lambda META: (triton.cdiv(M, META["BLOCK_M"]) * triton.cdiv(N, META["BLOCK_N"]),)
    matmul_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1))
    return c


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, A, B):
        return matmul(A, B)
'''),
    'matmul_tb_strides': Candidate('L1/9_matmul_transposed_b', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, allow_tf32=False)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        Bt = B.t()  # a view: (K, N) with strides (1, K); no copy
        M, K = A.shape
        N = Bt.shape[1]
        C = torch.empty(M, N, device=A.device, dtype=A.dtype)
        BM, BN, BK = 32, 32, 16
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
        mm_kernel[grid](A, Bt, C, M, N, K, A.stride(0), A.stride(1), Bt.stride(0), Bt.stride(1),
                        C.stride(0), C.stride(1), BM=BM, BN=BN, BK=BK)
        return C
'''),
    'matmul_tb_contiguous': Candidate('L1/9_matmul_transposed_b', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * sam + kk[None, :] * sak, mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * sbk + rn[None, :] * sbn, mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, allow_tf32=False)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        Bt = B.t().contiguous()  # (K, N) row-major for coalesced loads
        M, K = A.shape
        N = Bt.shape[1]
        C = torch.empty(M, N, device=A.device, dtype=A.dtype)
        BM, BN, BK = 32, 32, 16
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
        mm_kernel[grid](A, Bt, C, M, N, K, A.stride(0), A.stride(1), Bt.stride(0), Bt.stride(1),
                        C.stride(0), C.stride(1), BM=BM, BN=BN, BK=BK)
        return C
'''),
    'linear_relu_params': Candidate('L2/1_linear_relu_bias_add_scale', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fused_linear_relu_bias_scale(x_ptr, w_ptr, b_ptr, bias2_ptr, y_ptr, M, N, K, scale,
                                 stride_xm, stride_xk, stride_wn, stride_wk, stride_ym, stride_yn,
                                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        ks = k + offs_k
        x = tl.load(x_ptr + offs_m[:, None] * stride_xm + ks[None, :] * stride_xk,
                    mask=(offs_m[:, None] < M) & (ks[None, :] < K), other=0.0)
        # W is (N, K): read it as W^T tile (K, N)
        w = tl.load(w_ptr + ks[:, None] * stride_wk + offs_n[None, :] * stride_wn,
                    mask=(ks[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc = tl.dot(x, w, acc)
    nmask = offs_n < N
    b = tl.load(b_ptr + offs_n, mask=nmask, other=0.0)
    b2 = tl.load(bias2_ptr + offs_n, mask=nmask, other=0.0)
    y = tl.maximum(acc + b[None, :], 0.0)
    y = (y + b2[None, :]) * scale
    tl.store(y_ptr + offs_m[:, None] * stride_ym + offs_n[None, :] * stride_yn, y,
             mask=(offs_m[:, None] < M) & nmask[None, :])


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        linear = nn.Linear(in_features, out_features)  # same init (and RNG draws) as the reference
        self.weight = nn.Parameter(linear.weight.detach().clone())
        self.linear_bias = nn.Parameter(linear.bias.detach().clone())
        self.bias = nn.Parameter(torch.randn(out_features) * 0.5)
        self.scale = scale

    def forward(self, x):
        M, K = x.shape
        N = self.weight.shape[0]
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
        fused_linear_relu_bias_scale[grid](
            x, self.weight, self.linear_bias, self.bias, y, M, N, K, self.scale,
            x.stride(0), x.stride(1), self.weight.stride(0), self.weight.stride(1), y.stride(0), y.stride(1),
            BLOCK_M=32, BLOCK_N=32, BLOCK_K=16)
        return y
'''),
    'matmul_gelu_submodule': Candidate('L2/21_matmul_gelu_scale', None, None, slow=True, text=r'''
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

SQRT1_2 = 1.0 / math.sqrt(2.0)


@triton.jit
def _gelu(x):
    return 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))


@triton.jit
def matmul_gelu_scale_kernel(x_ptr, w_ptr, out_ptr, M, N, K, scale,
                             BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    acc = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k0 in tl.range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(w_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    out = _gelu(acc) * scale
    tl.store(out_ptr + rm[:, None] * N + rn[None, :], out, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, k, n, scale):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(k, n) / k ** 0.5)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        w = self.weight.contiguous()
        M, K = x.shape
        N = w.shape[1]
        out = torch.empty((M, N), dtype=torch.float32, device=x.device)
        cfg = {"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 16}
        grid = (triton.cdiv(M, cfg["BLOCK_M"]), triton.cdiv(N, cfg["BLOCK_N"]))
        matmul_gelu_scale_kernel[grid](x, w, out, M, N, K, self.scale, **cfg)
        return out
'''),
    'linear_rowsum_keepsub': Candidate('L2/4_linear_scale_clamp_row_sum', None, None, slow=True, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_clamp_rowsum_kernel(x_ptr, w_ptr, b_ptr, out_ptr, M, N, K, scale,
                               BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    rm = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_sum = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        rn = n0 + tl.arange(0, BLOCK_N)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            rk = k0 + tl.arange(0, BLOCK_K)
            a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
            w = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
            acc += tl.dot(a, w)
        b = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
        y = (acc + b[None, :]) * scale
        y = tl.minimum(tl.maximum(y, -1.0), 1.0)
        y = tl.where(rn[None, :] < N, y, 0.0)
        row_sum += tl.sum(y, axis=1)
    tl.store(out_ptr + rm, row_sum, mask=rm < M)


class ModelNew(nn.Module):
    """Keeps the nn.Linear submodule for its parameters; never calls it."""

    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x):
        M, K = x.shape
        N = self.linear.out_features
        out = torch.empty(M, 1, device=x.device, dtype=torch.float32)
        BLOCK_M = 16
        linear_clamp_rowsum_kernel[(triton.cdiv(M, BLOCK_M),)](
            x.contiguous(), self.linear.weight, self.linear.bias, out, M, N, K, float(self.scale),
            BLOCK_M=BLOCK_M, BLOCK_N=32, BLOCK_K=16)
        return out
'''),
    'adam_tuple': Candidate('X/11_adam_step', None, None, slow=False, text=r'''
import math
from typing import Tuple

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def adam_kernel(p_ptr, g_ptr, m_ptr, v_ptr, p_out, m_out, v_out, n,
                beta1, beta2, step_size, inv_sqrt_bc2, eps, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask)
    m = tl.load(m_ptr + offs, mask=mask)
    v = tl.load(v_ptr + offs, mask=mask)
    m = beta1 * m + (1.0 - beta1) * g
    v = beta2 * v + (1.0 - beta2) * g * g
    denom = tl.sqrt(v) * inv_sqrt_bc2 + eps
    tl.store(p_out + offs, p - step_size * (m / denom), mask=mask)
    tl.store(m_out + offs, m, mask=mask)
    tl.store(v_out + offs, v, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, lr: float, beta1: float, beta2: float, eps: float, step: int):
        super().__init__()
        self.lr, self.beta1, self.beta2, self.eps, self.step = lr, beta1, beta2, eps, step

    def forward(self, param, grad, exp_avg, exp_avg_sq) -> Tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        bc1 = 1.0 - self.beta1 ** self.step
        bc2 = 1.0 - self.beta2 ** self.step
        step_size = self.lr / bc1
        inv_sqrt_bc2 = 1.0 / math.sqrt(bc2)
        tensors = [t.contiguous() for t in (param, grad, exp_avg, exp_avg_sq)]
        p_new, m_new, v_new = (torch.empty_like(t) for t in tensors[:1] * 3)
        n = param.numel()
        BLOCK = 1024
        adam_kernel[(triton.cdiv(n, BLOCK),)](*tensors, p_new, m_new, v_new, n, self.beta1, self.beta2,
                                              step_size, inv_sqrt_bc2, self.eps, BLOCK=BLOCK)
        return p_new, m_new, v_new
'''),
    'sgd_empty_strided': Candidate('X/10_sgd_nesterov_momentum_step', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sgd_nesterov_kernel(p_ptr, g_ptr, b_ptr, p_out_ptr, b_out_ptr, n, lr, mu, wd, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask)
    g = tl.load(g_ptr + offs, mask=mask) + wd * p
    buf = mu * tl.load(b_ptr + offs, mask=mask) + g
    tl.store(b_out_ptr + offs, buf, mask=mask)
    tl.store(p_out_ptr + offs, p - lr * (g + mu * buf), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, lr: float, momentum: float, weight_decay: float):
        super().__init__()
        self.lr, self.momentum, self.weight_decay = lr, momentum, weight_decay

    def forward(self, param, grad, momentum_buf):
        assert param.is_contiguous() and grad.is_contiguous() and momentum_buf.is_contiguous()
        new_param = torch.empty_strided(param.size(), param.stride(), dtype=param.dtype, device=param.device)
        new_buf = momentum_buf.new_empty(momentum_buf.shape)
        n = param.numel()
        sgd_nesterov_kernel[(triton.cdiv(n, 256),)](param, grad, momentum_buf, new_param, new_buf, n,
                                                    self.lr, self.momentum, self.weight_decay, BLOCK=256)
        return (new_param, new_buf)
'''),
    'dropout_seed_item': Candidate('X/44_dropout_training', None, None, slow=True, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl

P = 0.3


@triton.jit
def dropout_kernel(x_ptr, y_ptr, n, p, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    r = tl.rand(seed, offs)
    keep = r > p
    tl.store(y_ptr + offs, tl.where(keep, x / (1.0 - p), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        seed = torch.randint(0, 2 ** 31 - 1, (1,)).item()
        dropout_kernel[(triton.cdiv(n, 1024),)](x, y, n, P, seed, BLOCK=1024)
        return y
'''),
    'gauss_python_random': Candidate('X/45_gaussian_noise_injection', None, None, slow=True, text=r'''
import random

import torch
import torch.nn as nn
import triton
import triton.language as tl

SIGMA = 0.75


@triton.jit
def add_noise_kernel(x_ptr, y_ptr, n, sigma, seed, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    z = tl.randn(seed, offs)
    tl.store(y_ptr + offs, x + sigma * z, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        n = x.numel()
        seed = random.randint(0, 2 ** 31 - 1)
        add_noise_kernel[(triton.cdiv(n, 4096),)](x, y, n, SIGMA, seed, BLOCK=4096)
        return y
'''),
    'bernoulli_seed_int': Candidate('X/48_bernoulli_from_probs', None, None, slow=True, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bernoulli_kernel(p_ptr, out_ptr, n, seed, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    p = tl.load(p_ptr + offs, mask=mask, other=0.0)
    u = tl.rand(seed, offs)
    tl.store(out_ptr + offs, (u < p).to(tl.float32), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, p):
        p = p.contiguous()
        out = torch.empty_like(p)
        seed = int(torch.randint(0, 2 ** 31 - 1, (1,), device="cpu"))
        n = p.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)
        bernoulli_kernel[grid](p, out, n, seed, BLOCK=2048)
        return out
'''),
    'int8_pertoken': Candidate('X/7_dynamic_per_token_int8_quant', None, None, slow=True, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _round_half_even(y):
    r = tl.floor(y + 0.5)
    tie = (r - y) == 0.5
    odd = (r - 2.0 * tl.floor(r * 0.5)) == 1.0
    return tl.where(tie & odd, r - 1.0, r)


@triton.jit
def quant_kernel(x_ptr, q_ptr, s_ptr, D, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < D
    x = tl.load(x_ptr + row * D + cols, mask=mask, other=0.0).to(tl.float32)
    amax = tl.max(tl.abs(x), axis=0)
    scale = amax * (1.0 / 127.0)
    q = _round_half_even(x / scale)
    q = tl.minimum(tl.maximum(q, -127.0), 127.0)
    tl.store(q_ptr + row * D + cols, q.to(tl.int8), mask=mask)
    tl.store(s_ptr + row, scale)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        x = x.contiguous()
        T, D = x.shape
        q = torch.empty((T, D), dtype=torch.int8, device=x.device)
        scale = torch.empty((T, 1), dtype=torch.float32, device=x.device)
        quant_kernel[(T,)](x, q, scale, D, BLOCK_D=triton.next_power_of_2(D))
        return q, scale
'''),
    'int8_static': Candidate('X/2_int8_quantize_per_tensor_static', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl

INV_SCALE = 42.5
ZERO_POINT = -3


@triton.jit
def quantize_kernel(x_ptr, q_ptr, n, inv_scale, zp, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(x_ptr + offs, mask=mask, other=0.0) * inv_scale
    r = tl.floor(y + 0.5)
    is_tie = (r - y) == 0.5
    is_odd = (r - 2.0 * tl.floor(r * 0.5)) == 1.0
    r = tl.where(is_tie & is_odd, r - 1.0, r) + zp
    r = tl.clamp(r, -128.0, 127.0)
    tl.store(q_ptr + offs, r.to(tl.int8), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        q = torch.empty(x.shape, dtype=torch.int8, device=x.device)
        n = x.numel()
        quantize_kernel[(triton.cdiv(n, 1024),)](x, q, n, INV_SCALE, float(ZERO_POINT), BLOCK=1024)
        return q
'''),
    'histogram_atomic': Candidate('X/27_row_histogram_bincount', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bincount_rows_kernel(x_ptr, counts_ptr, N, NB, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    offs = chunk * BLOCK + tl.arange(0, BLOCK)
    mask = offs < N
    v = tl.load(x_ptr + row * N + offs, mask=mask, other=0)
    ones = tl.full((BLOCK,), 1, tl.int64)
    tl.atomic_add(counts_ptr + row * NB + v, ones, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, num_bins: int):
        super().__init__()
        self.num_bins = num_bins

    def forward(self, x):
        x = x.contiguous()
        B, N = x.shape
        counts = torch.zeros((B, self.num_bins), dtype=torch.int64, device=x.device)
        BLOCK = 256
        bincount_rows_kernel[(B, triton.cdiv(N, BLOCK))](x, counts, N, self.num_bins, BLOCK=BLOCK)
        return counts
'''),
    'horner_tolist': Candidate('X/29_polynomial_horner_deg8', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def horner_kernel(x_ptr, y_ptr, n, c0, c1, c2, c3, c4, c5, c6, c7, c8, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = c8 + tl.zeros_like(x)
    y = y * x + c7
    y = y * x + c6
    y = y * x + c5
    y = y * x + c4
    y = y * x + c3
    y = y * x + c2
    y = y * x + c1
    y = y * x + c0
    tl.store(y_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self, degree: int):
        super().__init__()
        assert degree == 8, "kernel is specialised for degree 8"
        self.degree = degree
        self.register_buffer("coeffs", torch.randn(degree + 1) * 0.6 ** torch.arange(degree + 1, dtype=torch.float32))

    def forward(self, x):
        coeffs = self.coeffs.tolist()  # 9 scalars, passed by value
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        horner_kernel[(triton.cdiv(n, 1024),)](x, y, n, *coeffs, BLOCK=1024)
        return y
'''),
    'horner_buffer_ptr': Candidate('X/29_polynomial_horner_deg8', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def horner_kernel(x_ptr, c_ptr, y_ptr, n, DEGREE: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.zeros_like(x) + tl.load(c_ptr + DEGREE)
    for i in tl.static_range(DEGREE - 1, -1, -1):
        y = y * x + tl.load(c_ptr + i)
    tl.store(y_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self, degree: int):
        super().__init__()
        self.degree = degree
        self.register_buffer("coeffs", torch.randn(degree + 1) * 0.6 ** torch.arange(degree + 1, dtype=torch.float32))

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        horner_kernel[(triton.cdiv(n, 1024),)](x, self.coeffs, y, n, DEGREE=self.degree, BLOCK=1024)
        return y
'''),
    'fma_cached_out': Candidate('L1/97_fused_multiply_add', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fma_kernel(x_ptr, y_ptr, z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = tl.load(y_ptr + offs, mask=m)
    z = tl.load(z_ptr + offs, mask=m)
    tl.store(out_ptr + offs, x * y + z, mask=m)


class ModelNew(nn.Module):
    """Reuses one preallocated output buffer across calls of the same shape (avoids the allocator)."""

    def __init__(self):
        super().__init__()
        self._out = None

    def forward(self, x, y, z):
        if self._out is None or self._out.shape != x.shape or self._out.device != x.device:
            self._out = torch.empty_like(x)
        out = self._out
        n = x.numel()
        fma_kernel[(triton.cdiv(n, 1024),)](x, y, z, out, n, BLOCK=1024)
        return out
'''),
    'type_alias': Candidate('L1/97_fused_multiply_add', None, None, slow=False, text=r'''
from typing import Optional

import torch
import torch.nn as nn
import triton
import triton.language as tl

Tensor = torch.Tensor


@triton.jit
def fma_kernel(x_ptr, y_ptr, z_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) * tl.load(y_ptr + offs, mask=m)
             + tl.load(z_ptr + offs, mask=m), mask=m)


def fused_multiply_add(x: Tensor, y: Tensor, z: Tensor, out: Optional[Tensor] = None) -> Tensor:
    x, y, z = x.contiguous(), y.contiguous(), z.contiguous()
    if out is None:
        out = torch.empty_like(x)
    n = x.numel()
    fma_kernel[(triton.cdiv(n, 1024),)](x, y, z, out, n, BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: Tensor, y: Tensor, z: Tensor) -> Tensor:
        return fused_multiply_add(x, y, z)
'''),
    'main_selftest': Candidate('L1/28_softmax', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=mask, other=-float("inf"))
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + row * n_cols + cols, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        softmax_kernel[(x.shape[0],)](x, y, x.shape[1], BLOCK=triton.next_power_of_2(x.shape[1]))
        return y


if __name__ == "__main__":
    x = torch.randn(16, 1000, device="cuda")
    ref = torch.softmax(x, dim=1)
    out = ModelNew()(x)
    print("max abs err", (out - ref).abs().max().item())
    assert torch.allclose(out, ref, atol=1e-6), "mismatch"
'''),
    # strict: with the static false alarm mended, the run-time aten-op rule refuses F.pad (aten::constant_pad_nd
    # writes the padded copy, 412% of the output): a strict-policy question, not a static rule
    'avgpool_fpad': Candidate('L1/54_avg_pool_1d', None, FalseAlarm('torch_fallback', 'torch operators did compute in the forward: aten::constant_pad_nd', 'session (run-time aten ops under strict)'), slow=False, text=r'''
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def avg_pool1d_kernel(x_ptr, y_ptr, L_pad, L_out, KSIZE: tl.constexpr, STRIDE: tl.constexpr,
                      BLOCK: tl.constexpr):
    row = tl.program_id(0)
    pid = tl.program_id(1)
    o = pid * BLOCK + tl.arange(0, BLOCK)
    m = o < L_out
    acc = tl.zeros((BLOCK,), tl.float32)
    for k in tl.static_range(KSIZE):
        acc += tl.load(x_ptr + row * L_pad + o * STRIDE + k, mask=m, other=0.0)
    tl.store(y_ptr + row * L_out + o, acc / KSIZE, mask=m)


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.k, self.s, self.p = kernel_size, stride, padding

    def forward(self, x):
        N, C, L = x.shape
        xp = F.pad(x, (self.p, self.p)).contiguous()  # zero padding: count_include_pad=True
        L_pad = L + 2 * self.p
        L_out = (L_pad - self.k) // self.s + 1
        y = torch.empty((N, C, L_out), device=x.device, dtype=x.dtype)
        BLOCK = 64
        avg_pool1d_kernel[(N * C, triton.cdiv(L_out, BLOCK))](xp, y, L_pad, L_out, KSIZE=self.k, STRIDE=self.s,
                                                              BLOCK=BLOCK)
        return y
'''),
    'avgpool_masked': Candidate('L1/54_avg_pool_1d', None, None, slow=True, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def avg_pool1d_kernel(x_ptr, y_ptr, L, L_out, PAD: tl.constexpr, KSIZE: tl.constexpr, STRIDE: tl.constexpr,
                      BLOCK: tl.constexpr):
    row = tl.program_id(0)
    o = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = o < L_out
    acc = tl.zeros((BLOCK,), tl.float32)
    for k in tl.static_range(KSIZE):
        i = o * STRIDE + k - PAD
        acc += tl.load(x_ptr + row * L + i, mask=m & (i >= 0) & (i < L), other=0.0)
    tl.store(y_ptr + row * L_out + o, acc / KSIZE, mask=m)


class ModelNew(nn.Module):
    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.k, self.s, self.p = kernel_size, stride, padding

    def forward(self, x):
        x = x.contiguous()
        N, C, L = x.shape
        L_out = (L + 2 * self.p - self.k) // self.s + 1
        y = x.new_empty((N, C, L_out))
        avg_pool1d_kernel[(N * C, triton.cdiv(L_out, 64))](x, y, L, L_out, PAD=self.p, KSIZE=self.k, STRIDE=self.s,
                                                           BLOCK=64)
        return y
'''),
    'mse_two_stage': Candidate('L1/81_mse_loss', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sq_diff_partial_kernel(a_ptr, b_ptr, partial_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    d = tl.load(a_ptr + offs, mask=m, other=0.0) - tl.load(b_ptr + offs, mask=m, other=0.0)
    tl.store(partial_ptr + pid, tl.sum(d * d, axis=0))


@triton.jit
def finalize_mean_kernel(partial_ptr, out_ptr, num_partials, n, BLOCK: tl.constexpr):
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, num_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + offs, mask=offs < num_partials, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) / n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        a = predictions.contiguous().view(-1)
        b = targets.contiguous().view(-1)
        n = a.numel()
        BLOCK = 1024
        num_blocks = triton.cdiv(n, BLOCK)
        partial = torch.empty(num_blocks, device=a.device, dtype=torch.float32)
        out = torch.empty((), device=a.device, dtype=torch.float32)
        sq_diff_partial_kernel[(num_blocks,)](a, b, partial, n, BLOCK=BLOCK)
        finalize_mean_kernel[(1,)](partial, out, num_blocks, n, BLOCK=256)
        return out
'''),
    'mse_atomic_zeros': Candidate('L1/81_mse_loss', None, None, slow=False, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.autotune(
    configs=[triton.Config({"BLOCK": 512}), triton.Config({"BLOCK": 1024}), triton.Config({"BLOCK": 2048})],
    key=["n"],
    reset_to_zero=["out_ptr"],
)
@triton.jit
def mse_atomic_kernel(a_ptr, b_ptr, out_ptr, n, inv_n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    d = tl.load(a_ptr + offs, mask=m, other=0.0) - tl.load(b_ptr + offs, mask=m, other=0.0)
    tl.atomic_add(out_ptr, tl.sum(d * d, axis=0) * inv_n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions, targets):
        a, b = predictions.contiguous(), targets.contiguous()
        n = a.numel()
        out = torch.zeros(1, device=a.device, dtype=torch.float32)
        mse_atomic_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](a, b, out, n, 1.0 / n)
        return out.reshape(())
'''),
    'add_rmsnorm_fp16': Candidate('X/67_fused_add_rmsnorm_fp16', None, None, slow=True, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def fused_add_rmsnorm_kernel(x_ptr, r_ptr, w_ptr, y_ptr, h_ptr, D, eps, BLOCK_D: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_D)
    mask = cols < D
    x = tl.load(x_ptr + row * D + cols, mask=mask, other=0.0)
    r = tl.load(r_ptr + row * D + cols, mask=mask, other=0.0)
    h = x + r  # fp16 sum, as the reference
    tl.store(h_ptr + row * D + cols, h, mask=mask)
    hf = h.to(tl.float32)
    var = tl.sum(hf * hf, axis=0) / D
    normed = (hf * tl.rsqrt(var + eps)).to(tl.float16)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float16)
    tl.store(y_ptr + row * D + cols, normed * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(hidden))

    def forward(self, x: torch.Tensor, residual: torch.Tensor):
        x, residual = x.contiguous(), residual.contiguous()
        T, D = x.shape
        y = torch.empty_like(x)
        h = torch.empty_like(x)
        fused_add_rmsnorm_kernel[(T,)](x, residual, self.weight, y, h, D, self.eps,
                                       BLOCK_D=triton.next_power_of_2(D))
        return y, h
'''),
    'persistent_constexpr_global': Candidate('L1/15_relu', None, None, slow=True, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = tl.constexpr(256)
DEFAULT_PROGRAMS = 4


@triton.jit
def relu_persistent(x_ptr, y_ptr, n, NUM_PROGRAMS: tl.constexpr):
    pid = tl.program_id(0)
    num_tiles = tl.cdiv(n, BLOCK)
    for tile in range(pid, num_tiles, NUM_PROGRAMS):
        offs = tile * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m)
        tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=m)


def _num_programs(x: torch.Tensor) -> int:
    if x.is_cuda:
        return torch.cuda.get_device_properties(x.device).multi_processor_count * 4
    return DEFAULT_PROGRAMS


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        progs = min(_num_programs(x), triton.cdiv(n, 256))
        relu_persistent[(progs,)](x, y, n, NUM_PROGRAMS=progs)
        return y
'''),
    'transpose_scale_add': Candidate('L1/96_transpose_scale_add', None, None, slow=True, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def transpose_scale_add_kernel(x_ptr, y_ptr, out_ptr, M, N, sxb, sxm, sxn, syb, syn, sym, alpha,
                               BLOCK_N: tl.constexpr, BLOCK_M: tl.constexpr):
    b = tl.program_id(2)
    pn = tl.program_id(0)
    pm = tl.program_id(1)
    rn = pn * BLOCK_N + tl.arange(0, BLOCK_N)
    rm = pm * BLOCK_M + tl.arange(0, BLOCK_M)
    mask = (rn[:, None] < N) & (rm[None, :] < M)
    xt = tl.load(x_ptr + b * sxb + rm[None, :] * sxm + rn[:, None] * sxn, mask=mask)
    yv = tl.load(y_ptr + b * syb + rn[:, None] * syn + rm[None, :] * sym, mask=mask)
    tl.store(out_ptr + b * syb + rn[:, None] * syn + rm[None, :] * sym, xt * alpha + yv, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, x, y):
        B, M, N = x.shape
        y = y.contiguous()
        out = torch.empty_like(y)
        BN, BM = 16, 16
        grid = (triton.cdiv(N, BN), triton.cdiv(M, BM), B)
        transpose_scale_add_kernel[grid](x, y, out, M, N, *x.stride(), *y.stride(), self.alpha,
                                         BLOCK_N=BN, BLOCK_M=BM)
        return out
'''),
    # refused by design (global_state): moved to STATIC_BY_DESIGN below
    'global_warn_once': Candidate('L1/17_sigmoid', None, None, slow=False, text=r'''
import warnings

import torch
import torch.nn as nn
import triton
import triton.language as tl

_WARNED = False


@triton.jit
def sigmoid_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.sigmoid(x), mask=m)


def _maybe_warn(x: torch.Tensor) -> None:
    global _WARNED
    if not x.is_contiguous() and not _WARNED:
        warnings.warn("non-contiguous input: copying")
        _WARNED = True


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        _maybe_warn(x)
        x = x.contiguous()
        y = torch.empty_like(x)
        sigmoid_kernel[(triton.cdiv(x.numel(), 512),)](x, y, x.numel(), BLOCK=512)
        return y
'''),
    'future_inference_mode': Candidate('L1/31_rms_norm', None, None, slow=True, text=r'''
from __future__ import annotations

from typing import Optional

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rms_norm_fwd(X, W, Y, stride_x, stride_y, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(X + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / N + eps)
    w = tl.load(W + cols, mask=mask, other=0.0)
    tl.store(Y + row * stride_y + cols, x * rstd * w, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.5 * torch.randn(hidden))

    @staticmethod
    def _launch(x: torch.Tensor, w: torch.Tensor, eps: float, out: Optional[torch.Tensor] = None) -> torch.Tensor:
        out = torch.empty_like(x) if out is None else out
        n_rows, n_cols = x.shape
        _rms_norm_fwd[(n_rows,)](x, w, out, x.stride(0), out.stride(0), n_cols, eps,
                                 BLOCK=triton.next_power_of_2(n_cols))
        return out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            return self._launch(x.contiguous(), self.weight, self.eps)
'''),
    'hasattr_namedtuple': Candidate('L1/16_leaky_relu', None, None, slow=False, text=r'''
from typing import NamedTuple

import torch
import torch.nn as nn
import triton
import triton.language as tl


class Launch(NamedTuple):
    block: int
    warps: int


CONFIG = Launch(block=256, warps=2)


@triton.jit
def leaky_kernel(x_ptr, y_ptr, n, slope, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.where(x > 0, x, x * slope), mask=m)


class ModelNew(nn.Module):
    def __init__(self, negative_slope: float = 0.1):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x):
        slope = self.negative_slope if hasattr(self, "negative_slope") else 0.01
        x = x.contiguous()
        y = torch.empty_like(x)
        leaky_kernel[(triton.cdiv(x.numel(), CONFIG.block),)](x, y, x.numel(), slope, BLOCK=CONFIG.block,
                                                              num_warps=CONFIG.warps)
        return y
'''),
    'linear_manual_init': Candidate('L2/1_linear_relu_bias_add_scale', None, None, slow=False, text=r'''
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_epilogue_kernel(x_ptr, w_ptr, b_ptr, b2_ptr, y_ptr, M, N, K, scale,
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
    b = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    b2 = tl.load(b2_ptr + rn, mask=rn < N, other=0.0)
    y = (tl.maximum(acc + b[None, :], 0.0) + b2[None, :]) * scale
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], y, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.linear_bias = nn.Parameter(torch.empty(out_features))
        # nn.Linear.reset_parameters, spelled out
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        fan_in, _ = nn.init._calculate_fan_in_and_fan_out(self.weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        nn.init.uniform_(self.linear_bias, -bound, bound)
        self.bias = nn.Parameter(torch.randn(out_features) * 0.5)
        self.scale = scale

    def forward(self, x):
        x = x.contiguous()
        M, K = x.shape
        N = self.weight.shape[0]
        y = torch.empty(M, N, device=x.device, dtype=x.dtype)
        linear_epilogue_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](
            x, self.weight, self.linear_bias, self.bias, y, M, N, K, self.scale, BM=32, BN=32, BK=16)
        return y
'''),
    'linear_manual_init_public': Candidate('L2/1_linear_relu_bias_add_scale', None, None, slow=True, text=r'''
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def linear_epilogue_kernel(x_ptr, w_ptr, b_ptr, b2_ptr, y_ptr, M, N, K, scale,
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
    b = tl.load(b_ptr + rn, mask=rn < N, other=0.0)
    b2 = tl.load(b2_ptr + rn, mask=rn < N, other=0.0)
    y = (tl.maximum(acc + b[None, :], 0.0) + b2[None, :]) * scale
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], y, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(out_features, in_features))
        self.linear_bias = nn.Parameter(torch.empty(out_features))
        # nn.Linear.reset_parameters, spelled out
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        fan_in = self.weight.shape[1]
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        nn.init.uniform_(self.linear_bias, -bound, bound)
        self.bias = nn.Parameter(torch.randn(out_features) * 0.5)
        self.scale = scale

    def forward(self, x):
        x = x.contiguous()
        M, K = x.shape
        N = self.weight.shape[0]
        y = torch.empty(M, N, device=x.device, dtype=x.dtype)
        linear_epilogue_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](
            x, self.weight, self.linear_bias, self.bias, y, M, N, K, self.scale, BM=32, BN=32, BK=16)
        return y
'''),
    'bmm_loop_launch': Candidate('L1/3_batched_matmul', None, None, slow=True, text=r'''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["M", "N", "K"])
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rn = tl.max_contiguous(tl.multiple_of(rn, BN), BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    """One 2-D GEMM launch per batch entry."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        A, B = A.contiguous(), B.contiguous()
        batch, M, K = A.shape
        N = B.shape[2]
        C = torch.empty((batch, M, N), device=A.device, dtype=torch.float32)
        grid = (triton.cdiv(M, 32), triton.cdiv(N, 32))
        for b in range(batch):
            gemm_kernel[grid](A[b], B[b], C[b], M, N, K, BM=32, BN=32, BK=16)
        return C
'''),
}

#: honest-looking candidates that stay refused under ``strict`` by design (their ``strict`` field names the refusal,
#: which a plain test below asserts): ``x.clone()`` then an in-place kernel on an elementwise task lets torch's copy
#: write the whole output, and on a data-movement-bound task a copy is the work (docs/SECURITY.md, the copy rule)
BY_DESIGN: dict[str, Candidate] = {name: CANDIDATES.pop(name) for name in ("sigmoid_inplace_clone",)}

#: the honest snippets checked statically only (ModelNew around a copy kernel, the snippet at module level or in
#: the forward): name -> (imports, module-level code, forward lines, None or the false alarm)
SNIPPET = '''
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

    def forward(self, x):
{body}
        y = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 256),)](x, y, x.numel(), BLOCK=256)
        return y
'''
SNIPPETS = {
    "from_torch_import_Tensor_annotation": ("from torch import Tensor", "def f(t: Tensor) -> Tensor:\n    return t",
                                            "        x = f(x)", None),
    "typing_NamedTuple_config": ("from typing import NamedTuple", "class Cfg(NamedTuple):\n    block: int", "", None),
    "functools_wraps_decorator": ("import functools", ("def contig(fn):\n    @functools.wraps(fn)\n    def w(*a):\n"
                                  "        return fn(*[t.contiguous() for t in a])\n    return w"), "", None),
    "enum_config": ("import enum", "class Mode(enum.Enum):\n    FAST = 1\n    SLOW = 2", "        mode = Mode.FAST", None),
    "dataclass_field": ("from dataclasses import dataclass, field",
                        "@dataclass\nclass Cfg:\n    blocks: list = field(default_factory=list)", "", None),
    "finfo_eps": ("", "", "        eps = torch.finfo(x.dtype).eps", None),
    "math_prod": ("import math", "", "        rows = math.prod(x.shape[:-1])", None),
    "itertools_product_autotune_configs": (
        "import itertools", ("CONFIGS = [triton.Config({'BM': bm, 'BN': bn}, num_warps=w)\n"
                            "           for bm, bn, w in itertools.product([32, 64], [32, 64], [4, 8])]"), "", None),
    "config_pre_hook_lambda": ("", "CFG = triton.Config({'BLOCK': 256}, pre_hook=lambda nargs: nargs['y_ptr'].zero_())",
                               "", None),
    "libdevice_from_extra": ("from triton.language.extra import libdevice",
                             "@triton.jit\ndef t(x):\n    return libdevice.tanh(x)", "", None),
    "libdevice_from_extra_cuda": ("from triton.language.extra.cuda import libdevice",
                                  "@triton.jit\ndef t(x):\n    return libdevice.tanh(x)", "", None),
    "triton_driver_sm_count": ("", ("def sms():\n    dev = triton.runtime.driver.active.get_current_device()\n"
                                   "    props = triton.runtime.driver.active.utils.get_device_properties(dev)\n"
                                   "    return props['multiprocessor_count']"), "", None),
    "cuda_capability_branch": ("", "", "        cap = torch.cuda.get_device_capability() if x.is_cuda else (0, 0)", None),
    "cuda_is_available_device": ("", "DEVICE = 'cuda' if torch.cuda.is_available() else 'cpu'", "", None),
    "tl_dtype_constant": ("", "ACC_DTYPE = tl.float32", "", None),
    "data_ptr_alignment": ("", "", "        aligned = x.data_ptr() % 16 == 0", None),
    "debug_print_fstring": ("", "", "        print(f'shape={tuple(x.shape)} dtype={x.dtype}')", None),
    "isinstance_and_type_name": ("", "", "        assert isinstance(x, torch.Tensor), type(x).__name__", None),
    "x_T_and_mT": ("", "", "        a, b = x.T, x.mT", None),
    "from_triton_import_helpers": ("from triton import cdiv, next_power_of_2", "",
                                   "        b = next_power_of_2(cdiv(8, 2))", None),
    "no_grad_decorated_helper": ("", "@torch.no_grad()\ndef helper(t):\n    return t", "        x = helper(x)", None),
    "abc_base_and_property": ("from abc import ABC, abstractmethod",
                              ("class Base(ABC):\n    @abstractmethod\n    def run(self):\n        ...\n\n"
                              "    @property\n    def n(self):\n        return 1"), "", None),
    "numpy_shape_math": ("import numpy as np", "", "        s = int(np.prod(x.shape))", None),
    # false alarms (static rules alone)
    "typing_alias_annotation": (
        "from typing import Tuple", "Shape = Tuple[int, int]\n\n\ndef f(s: Shape) -> int:\n    return s[0]",
        "        f((1, 2))", None),
    # refused by design (global_state): moved to STATIC_BY_DESIGN below
    "nonlocal_counter_closure": (
        "", ("def counter():\n    c = 0\n\n    def inc():\n        nonlocal c\n        c += 1\n        return c\n"
            "    return inc"), "        counter()()", None),
    "getattr_with_default": ("", "", "        b = getattr(self, 'bias', None)", None),
    "torch_backends_read_only": ("", "", "        ok = torch.backends.cudnn.is_available()", None),
    "collections_namedtuple_config": (
        "from collections import namedtuple", "Cfg = namedtuple('Cfg', ['block', 'warps'])", "", None),
    "F_pad_glue": ("import torch.nn.functional as F", "", "        x = F.pad(x, (1, 1))", None),
    "main_block_selftest_matmul": (
        "", "if __name__ == '__main__':\n    a = torch.randn(4, 4)\n    print(torch.matmul(a, a))", "", None),
}

#: honest-looking code the static rules refuse by design, not false alarms: ``global``/``nonlocal`` (the
#: ``global_state`` rule, docs/SECURITY.md "Static rules, one by one": an honest kernel never needs mutable module
#: state, and refusing it makes an attempt to cache outputs across calls visible as such). Each is asserted refused
#: with its flag under both policies: name -> (flag, text)
STATIC_BY_DESIGN: dict[str, tuple[str, str]] = {
    "global_warn_once": ("global_state", CANDIDATES.pop("global_warn_once").text),
    "nonlocal_counter_closure": ("global_state", SNIPPET.format(
        imports="", pre=SNIPPETS.pop("nonlocal_counter_closure")[1], body="        counter()()")),
}

def alarm_of(cand: Candidate, policy: str, static_only: bool) -> FalseAlarm | None:
    """The documented false alarm of ``cand`` under ``policy`` (``static_only``: only one the static checks raise)."""
    alarm = getattr(cand, policy)
    return alarm if alarm is not None and (is_static(alarm) or not static_only) else None


def _params(static_only: bool):
    out = []
    for name, cand in CANDIDATES.items():
        for policy in ("partial", "strict"):
            alarm = alarm_of(cand, policy, static_only)
            marks = []
            if alarm is not None:
                marks.append(pytest.mark.xfail(strict=True, raises=KnownFalseAlarm, reason=alarm.reason()))
            if not static_only and not is_static(alarm) and (cand.slow or name not in QUICK_RUNS):
                marks.append(pytest.mark.slow)
            out.append(pytest.param(name, policy, marks=marks, id=f"{name}-{policy}"))
    return out


#: the judge runs kept in the quick suite besides the static rejections (no worker starts for those): a few fast
#: honest candidates
QUICK_RUNS = {"relu_all", "leaky_heuristics", "softmax_lru", "matmul_autotune", "adam_tuple", "fma_cached_out"}


@pytest.mark.parametrize("name, policy", _params(static_only=True))
def test_honest_candidate_passes_the_static_checks(name, policy):
    cand = CANDIDATES[name]
    flags = check_source(cand.text, "triton", policy)
    expect(flags, not flags, alarm_of(cand, policy, static_only=True), f"{name} ({cand.task}, {policy}, static)")


@pytest.mark.parametrize("name, policy", _params(static_only=False))
def test_honest_candidate_is_ok_on_the_cpu_judge(judge, bundled_tasks, name, policy):
    cand = CANDIDATES[name]
    result = judge.evaluate(bundled_tasks.get(cand.task), cand.text, profile=PROFILE, torch_policy=policy)
    flags = [(f["name"], f.get("reason") or "") for f in result.flags]
    if result.status != "ok" and not flags:
        flags = [(result.status, result.message)]
    expect(flags, result.status == "ok", getattr(cand, policy),
           f"{name} ({cand.task}, {policy}): {result.status}: {result.message[:300]}")


@pytest.fixture(scope="module")
def bundled_tasks():
    from kernelgym.tasks import load_tasks

    return load_tasks()


def _snippet_params():
    out = []
    for name, (_, _, _, alarm) in SNIPPETS.items():
        for policy in ("partial", "strict"):
            applies = alarm is not None and not (alarm.flag == "torch_fallback" and policy == "partial")
            marks = [pytest.mark.xfail(strict=True, raises=KnownFalseAlarm, reason=alarm.reason())] if applies else []
            out.append(pytest.param(name, policy, marks=marks, id=f"{name}-{policy}"))
    return out


@pytest.mark.parametrize("name, policy", _snippet_params())
def test_honest_snippet_passes_the_static_checks(name, policy):
    imports, pre, body, alarm = SNIPPETS[name]
    text = SNIPPET.format(imports=imports, pre=pre, body=body or "        pass")
    flags = check_source(text, "triton", policy)
    applies = alarm is not None and not (alarm.flag == "torch_fallback" and policy == "partial")
    expect(flags, not flags, alarm if applies else None, f"snippet {name} ({policy})")


@pytest.mark.parametrize("policy", ["partial", "strict"])
@pytest.mark.parametrize("name", sorted(STATIC_BY_DESIGN))
def test_global_state_is_refused_by_design(name, policy):
    """``global``/``nonlocal`` stay refused (a documented design choice, not a false alarm to mend)."""
    flag, text = STATIC_BY_DESIGN[name]
    assert [f[0] for f in check_source(text, "triton", policy)] == [flag]


@pytest.mark.parametrize("name", sorted(BY_DESIGN))
def test_a_candidate_refused_by_design_passes_partial_and_is_refused_under_strict(judge, bundled_tasks, name):
    """Not a false alarm: the copy rule refuses ``x.clone()`` and an in-place kernel on an elementwise task under
    ``strict`` (torch's copy wrote the whole output; the task is not compute-heavy, so no input relayout is
    allowed), while ``partial`` and the static checks let it through."""
    cand = BY_DESIGN[name]
    for policy in ("partial", "strict"):
        assert check_source(cand.text, "triton", policy) == [], (name, policy)
    task = bundled_tasks.get(cand.task)
    ok = judge.evaluate(task, cand.text, profile=PROFILE, torch_policy="partial")
    assert ok.status == "ok", (ok.status, ok.message)
    refused = judge.evaluate(task, cand.text, profile=PROFILE, torch_policy="strict")
    assert refused.status == "rejected", (refused.status, refused.message)
    assert [f["name"] for f in refused.flags] == [cand.strict.flag], refused.flags
    assert cand.strict.says in refused.flags[0]["reason"], refused.flags
