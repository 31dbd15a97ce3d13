"""Triton solution: one program per row walking blocks from the end; suffix sums = block total - prefix + x + carry."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rev_cumsum_kernel(x_ptr, y_ptr, D, stride_x, stride_y, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    y_row = y_ptr + row * stride_y
    cols = tl.arange(0, BLOCK)
    carry = tl.sum(tl.zeros((BLOCK,), tl.float32), axis=0)
    n_blocks = tl.cdiv(D, BLOCK)
    for i in range(0, n_blocks):
        start = (n_blocks - 1 - i) * BLOCK
        offs = start + cols
        mask = offs < D
        x = tl.load(x_row + offs, mask=mask, other=0.0).to(tl.float32)
        total = tl.sum(x, axis=0)
        suffix = total - tl.cumsum(x, axis=0) + x + carry
        tl.store(y_row + offs, suffix.to(y_ptr.dtype.element_ty), mask=mask)
        carry += total


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        xm = x.movedim(1, -1).contiguous()
        D = xm.shape[-1]
        x2 = xm.view(-1, D)
        y2 = torch.empty_like(x2)
        BLOCK = min(1024, triton.next_power_of_2(D))
        _rev_cumsum_kernel[(x2.shape[0],)](x2, y2, D, x2.stride(0), y2.stride(0), BLOCK=BLOCK, num_warps=4)
        return y2.view(xm.shape).movedim(-1, 1)
