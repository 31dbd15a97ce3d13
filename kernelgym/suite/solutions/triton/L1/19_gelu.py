"""Triton solution: flat elementwise exact (erf) GELU computed in fp32.

Memory bound, but erf costs about 35 instructions per element, so occupancy matters: the earlier fixed launch (BLOCK
4096, 8 warps, int64 offsets, masked: 0.92x of eager on the H200) needs 40 registers for sm_90, 48 resident warps
per SM. It stays first in the sweep (the fastest config is kept at the first call), then STREAM configs that load
with evict_first (read once), use int32 offsets where the tensor allows and drop the mask when the block divides the
size: 27-32 registers, so full occupancy, at 512/1024/4096 elements per CTA; 2048 with 4 warps and 8192 with 16
(about 40 registers) trade occupancy for more loads per thread. No spills; the STREAM configs are not measured on
the H200 yet.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

_INT32_MAX = 2 ** 31 - 1

#: the earlier fixed launch first (STREAM off: the same code as before), then the streaming variants
GELU_CONFIGS = [triton.Config({"BLOCK": 4096, "STREAM": False}, num_warps=8)]
GELU_CONFIGS += [triton.Config({"BLOCK": b, "STREAM": True}, num_warps=w)
                 for b, w in [(4096, 8), (512, 4), (1024, 4), (2048, 4), (8192, 16)]]


@triton.autotune(configs=GELU_CONFIGS, key=["n"])
@triton.heuristics({
    # no mask when every block is full; int64 offsets only where the last block's offsets pass int32
    "EVEN": lambda a: a["STREAM"] and a["n"] % a["BLOCK"] == 0,
    "WIDE": lambda a: not a["STREAM"] or a["n"] + a["BLOCK"] > _INT32_MAX,
})
@triton.jit
def _gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr, STREAM: tl.constexpr, EVEN: tl.constexpr,
                 WIDE: tl.constexpr):
    pid = tl.program_id(0)
    if WIDE:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs, eviction_policy="evict_first").to(tl.float32)
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty))
    else:
        mask = offs < n
        if STREAM:
            x = tl.load(x_ptr + offs, mask=mask, other=0.0, eviction_policy="evict_first").to(tl.float32)
        else:
            x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        y = 0.5 * x * (1.0 + tl.math.erf(x * 0.7071067811865476))
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

        _gelu_kernel[grid](x, y, n)
        return y
