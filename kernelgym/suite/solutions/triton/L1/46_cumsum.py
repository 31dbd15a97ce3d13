"""Triton solution: one program per row; block-wise tl.cumsum plus a running carry across blocks."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _cumsum_kernel(x_ptr, y_ptr, D, stride_x, stride_y, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    y_row = y_ptr + row * stride_y
    cols = tl.arange(0, BLOCK)
    carry = tl.sum(tl.zeros((BLOCK,), tl.float32), axis=0)
    for start in range(0, D, BLOCK):
        offs = start + cols
        mask = offs < D
        x = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)
        c = tl.cumsum(x, axis=0) + carry
        tl.store(y_row + offs, c.to(y_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xm = x.movedim(self.dim, -1).contiguous()
        D = xm.shape[-1]
        x2 = xm.view(-1, D)
        y2 = torch.empty_like(x2)
        BLOCK = min(1024, triton.next_power_of_2(D))
        _cumsum_kernel[(x2.shape[0],)](x2, y2, D, x2.stride(0), y2.stride(0), BLOCK=BLOCK, num_warps=4)
        return y2.view(xm.shape).movedim(-1, self.dim)
