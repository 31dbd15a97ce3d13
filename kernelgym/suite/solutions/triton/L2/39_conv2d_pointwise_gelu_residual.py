"""Triton: one fused kernel; a 1x1 conv in NCHW is, per image, W (C_out, C_in) @ X (C_in, H*W). Tiled tl.dot GEMM
with conv bias, exact GELU and the residual add of x in the epilogue."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _pointwise_conv_gelu_residual_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr,
    COUT, CIN, P,
    sxn, sxc, son, soc,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_n = tl.program_id(0)     # pixel tiles vary fastest: neighbouring programs share the weight tile
    pid_m = tl.program_id(1)
    img = tl.program_id(2).to(tl.int64)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)   # output channel
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)   # pixel
    offs_k = tl.arange(0, BLOCK_K)                     # input channel
    mask_m = offs_m < COUT
    mask_n = offs_n < P
    w_ptrs = w_ptr + offs_m[:, None] * CIN + offs_k[None, :]
    x_ptrs = x_ptr + img * sxn + offs_k[:, None] * sxc + offs_n[None, :]

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, CIN, BLOCK_K):
        kmask = (offs_k + k0) < CIN
        a = tl.load(w_ptrs, mask=mask_m[:, None] & kmask[None, :], other=0.0)
        b = tl.load(x_ptrs, mask=kmask[:, None] & mask_n[None, :], other=0.0)
        acc = tl.dot(a, b, acc)
        w_ptrs += BLOCK_K
        x_ptrs += BLOCK_K * sxc

    mask = mask_m[:, None] & mask_n[None, :]
    bias = tl.load(b_ptr + offs_m, mask=mask_m, other=0.0)
    y = acc + bias[:, None]
    y = 0.5 * y * (1.0 + tl.math.erf(y * 0.7071067811865476))
    res = tl.load(x_ptr + img * sxn + offs_m[:, None] * sxc + offs_n[None, :], mask=mask, other=0.0)
    tl.store(out_ptr + img * son + offs_m[:, None] * soc + offs_n[None, :], res + y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        NB, C, H, W = x.shape
        COUT = self.conv.weight.shape[0]
        w = self.conv.weight.reshape(COUT, C)
        P = H * W
        out = torch.empty((NB, COUT, H, W), device=x.device, dtype=x.dtype)
        BLOCK_M, BLOCK_N, BLOCK_K = 128, 128, 32
        grid = (triton.cdiv(P, BLOCK_N), triton.cdiv(COUT, BLOCK_M), NB)
        _pointwise_conv_gelu_residual_kernel[grid](
            x, w, self.conv.bias, out,
            COUT, C, P,
            x.stride(0), x.stride(1), out.stride(0), out.stride(1),
            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=8, num_stages=3,
        )
        return out
