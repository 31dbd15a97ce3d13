"""Triton NCHW -> NHWC transpose fused with the per-channel affine: out[n, p, c] = x[n, c, p] * w[c] + b[c]."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _nchw_to_nhwc_affine_kernel(x_ptr, w_ptr, b_ptr, o_ptr, C, P, BC: tl.constexpr, BP: tl.constexpr):
    pid_p = tl.program_id(0)
    pid_c = tl.program_id(1)
    n = tl.program_id(2).to(tl.int64)
    offs_c = pid_c * BC + tl.arange(0, BC)
    offs_p = pid_p * BP + tl.arange(0, BP)
    c_ok = offs_c < C
    p_ok = offs_p < P
    base = n * C * P
    # read a (BC, BP) tile along the contiguous pixel axis of x[n] (C, P)
    xt = tl.load(x_ptr + base + offs_c[:, None] * P + offs_p[None, :], mask=c_ok[:, None] & p_ok[None, :], other=0.0)
    w = tl.load(w_ptr + offs_c, mask=c_ok, other=0.0)
    b = tl.load(b_ptr + offs_c, mask=c_ok, other=0.0)
    yt = xt * w[:, None] + b[:, None]
    # write the (BP, BC) tile along the contiguous channel axis of out[n] (P, C)
    tl.store(o_ptr + base + offs_p[:, None] * C + offs_c[None, :], tl.trans(yt), mask=p_ok[:, None] & c_ok[None, :])


class ModelNew(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(channels))
        self.bias = nn.Parameter(torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n, c, h, w = x.shape
        p = h * w
        out = torch.empty((n, h, w, c), device=x.device, dtype=x.dtype)
        BC, BP = 32, 128
        grid = (triton.cdiv(p, BP), triton.cdiv(c, BC), n)
        _nchw_to_nhwc_affine_kernel[grid](x, self.weight, self.bias, out, c, p, BC=BC, BP=BP, num_warps=4)
        return out
