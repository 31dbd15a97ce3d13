"""Triton elementwise x * y + z in a single pass over memory."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _fma_kernel(x_ptr, y_ptr, z_ptr, o_ptr, numel, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < numel
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    z = tl.load(z_ptr + offs, mask=mask)
    tl.store(o_ptr + offs, x * y + z, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        x, y, z = x.contiguous(), y.contiguous(), z.contiguous()
        out = torch.empty_like(x)
        numel = x.numel()
        BLOCK = 4096
        _fma_kernel[(triton.cdiv(numel, BLOCK),)](x, y, z, out, numel, BLOCK=BLOCK, num_warps=8)
        return out
