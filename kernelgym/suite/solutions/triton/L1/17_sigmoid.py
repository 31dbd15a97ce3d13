"""Triton solution: flat elementwise sigmoid, 1 / (1 + exp(-x)) in fp32.

Memory bound (one read, one write per element). The launch shapes come from ``benchmarks/streaming_variants.py`` on
an H100 (docs/BENCHMARKS.md, twenty-third session; not yet measured on the H200): int32 offsets and no mask when the
block divides the size, plain loads and stores (``evict_first`` loads with ``.cs`` stores were 0.9-2.8% slower at
every shape, persistent grids 0.78-0.95x of eager), 8 warps. The sweep keeps the fastest of BLOCK 2048 (the fastest
there: 1.0024x of eager), 4096 and 8192; the earlier launch (BLOCK 4096, 8 warps, int64 offsets, masked: 0.93x of
eager on the H200) is gone.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_INT32_MAX = 2 ** 31 - 1

SIGMOID_CONFIGS = [triton.Config({"BLOCK": b}, num_warps=8) for b in (2048, 4096, 8192)]


@triton.autotune(configs=SIGMOID_CONFIGS, key=["n"])
@triton.heuristics({
    # no mask when every block is full; int64 offsets only where the last block's offsets pass int32
    "EVEN": lambda a: a["n"] % a["BLOCK"] == 0,
    "WIDE": lambda a: a["n"] + a["BLOCK"] > _INT32_MAX,
})
@triton.jit
def _sigmoid_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr, WIDE: tl.constexpr):
    pid = tl.program_id(0)
    if WIDE:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs).to(tl.float32)
        y = 1.0 / (1.0 + tl.exp(-x))
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty))
    else:
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        y = 1.0 / (1.0 + tl.exp(-x))
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()

        def grid(meta):
            return (triton.cdiv(n, meta["BLOCK"]),)

        _sigmoid_kernel[grid](x, y, n)
        return y
