"""Triton solution: flat, vectorised elementwise ReLU over the contiguous tensor.

Pure streaming (one read, one write per element), so only the memory access shape matters. The sweep at the first
call keeps the fastest config: the earlier fixed launch first (BLOCK 4096, 8 warps, int64 offsets, masked: 0.95x of
eager on the H200), then STREAM configs that load with evict_first (read once), use int32 offsets where the tensor
allows and drop the mask when the block divides the size, over PyTorch-like small CTAs (1024/2048 elements, 4 warps)
and larger blocks (8192/16384: 8 loads of 16 bytes per thread in flight). All compile for sm_90 without spills; the
STREAM configs are not measured on the H200 yet.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_INT32_MAX = 2 ** 31 - 1

#: the earlier fixed launch first (STREAM off: the same code as before), then the streaming variants
RELU_CONFIGS = [triton.Config({"BLOCK": 4096, "STREAM": False}, num_warps=8)]
RELU_CONFIGS += [triton.Config({"BLOCK": b, "STREAM": True}, num_warps=w)
                 for b, w in [(4096, 8), (1024, 4), (2048, 4), (8192, 8), (16384, 16)]]


@triton.autotune(configs=RELU_CONFIGS, key=["n"])
@triton.heuristics({
    # no mask when every block is full; int64 offsets only where the last block's offsets pass int32
    "EVEN": lambda a: a["STREAM"] and a["n"] % a["BLOCK"] == 0,
    "WIDE": lambda a: not a["STREAM"] or a["n"] + a["BLOCK"] > _INT32_MAX,
})
@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, STREAM: tl.constexpr, EVEN: tl.constexpr,
                 WIDE: tl.constexpr):
    pid = tl.program_id(0)
    if WIDE:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs, eviction_policy="evict_first")
        y = tl.where(x > 0, x, 0.0)
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty))
    else:
        mask = offs < n
        if STREAM:
            x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first")
        else:
            x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        y = tl.where(x > 0, x, 0.0)
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

        _relu_kernel[grid](x, y, n)
        return y
