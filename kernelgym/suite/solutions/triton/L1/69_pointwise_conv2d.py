"""Triton pointwise (1x1) convolution as a batched GEMM: Y[n] = W @ X[n] + b, X[n] viewed as (CIN, H*W)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _pointwise_conv_kernel(x_ptr, w_ptr, b_ptr, y_ptr, CIN, COUT, P,
                           HAS_BIAS: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_p = tl.program_id(1)
    n = tl.program_id(2).to(tl.int64)
    offs_m = pid_m * BM + tl.arange(0, BM)
    offs_p = pid_p * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    m_mask = offs_m < COUT
    p_mask = offs_p < P
    x_base = x_ptr + n * CIN * P
    acc = tl.zeros([BM, BN], dtype=tl.float32)
    for k0 in range(0, CIN, BK):
        kk = k0 + offs_k
        k_mask = kk < CIN
        a = tl.load(w_ptr + offs_m[:, None] * CIN + kk[None, :], mask=m_mask[:, None] & k_mask[None, :], other=0.0)
        b = tl.load(x_base + kk[:, None] * P + offs_p[None, :], mask=k_mask[:, None] & p_mask[None, :], other=0.0)
        acc += tl.dot(a, b)
    if HAS_BIAS:
        bias = tl.load(b_ptr + offs_m, mask=m_mask, other=0.0)
        acc += bias[:, None]
    y_ptrs = y_ptr + n * COUT * P + offs_m[:, None] * P + offs_p[None, :]
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=m_mask[:, None] & p_mask[None, :])


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        n, cin, h, w = x.shape
        weight = self.conv.weight.reshape(self.conv.out_channels, cin).contiguous()
        bias = self.conv.bias
        cout = weight.shape[0]
        p = h * w
        y = torch.empty((n, cout, h, w), device=x.device, dtype=x.dtype)
        BM, BN, BK = 128, 128, 32
        grid = (triton.cdiv(cout, BM), triton.cdiv(p, BN), n)
        _pointwise_conv_kernel[grid](x, weight, bias if bias is not None else weight, y, cin, cout, p,
                                     HAS_BIAS=bias is not None, BM=BM, BN=BN, BK=BK, num_warps=8, num_stages=3)
        return y
