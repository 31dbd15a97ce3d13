"""Triton solution: one program per row; per-lane running max and first index, then a lane reduction (first-index ties)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _argmax_kernel(x_ptr, y_ptr, D, stride_x, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_x
    cols = tl.arange(0, BLOCK)
    best_v = tl.full((BLOCK,), float("-inf"), tl.float32)
    best_i = tl.zeros((BLOCK,), tl.int32)
    for start in range(0, D, BLOCK):
        offs = start + cols
        x = tl.load(x_row + offs, mask=offs < D, other=float("-inf")).to(tl.float32)
        upd = x > best_v
        best_v = tl.where(upd, x, best_v)
        best_i = tl.where(upd, offs, best_i)
    m = tl.max(best_v, axis=0)
    idx = tl.min(tl.where(best_v == m, best_i, 2147483647), axis=0)
    idx = tl.where(idx == 2147483647, 0, idx)
    tl.store(y_ptr + row, idx.to(tl.int64))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        D = x.shape[-1]
        x2 = x.contiguous().view(-1, D)
        y = torch.empty(x2.shape[0], device=x.device, dtype=torch.int64)
        BLOCK = min(2048, triton.next_power_of_2(D))
        _argmax_kernel[(x2.shape[0],)](x2, y, D, x2.stride(0), BLOCK=BLOCK, num_warps=8)
        return y.view(x.shape[:-1])
