"""Triton solution: one program per row; mean of squares in fp32, rsqrt and weight scale fused into one pass."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(x_ptr, w_ptr, y_ptr, D, stride_x, stride_y, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    mask = cols < D
    x = tl.load(x_ptr + row * stride_x + cols, mask=mask, other=0.0).to(tl.float32)
    ms = tl.sum(x * x, axis=0) / D
    r = tl.rsqrt(ms + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = x * r * w
    tl.store(y_ptr + row * stride_y + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, hidden: int, eps: float = 1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(1.0 + 0.5 * torch.randn(hidden))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        D = x.shape[-1]
        x2 = x.contiguous().view(-1, D)
        y2 = torch.empty_like(x2)
        BLOCK = triton.next_power_of_2(D)
        num_warps = 4 if BLOCK <= 2048 else (8 if BLOCK <= 8192 else 16)
        _rms_norm_kernel[(x2.shape[0],)](x2, self.weight, y2, D, x2.stride(0), y2.stride(0), self.eps,
                                         BLOCK=BLOCK, num_warps=num_warps)
        return y2.view(x.shape)
