"""Triton: one fused kernel; each program owns a block of rows, sweeps all output-feature tiles with tl.dot,
applies bias, scale and clamp in registers and accumulates the row sums (the (M, N) activation never hits memory)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _linear_clamp_rowsum_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr,
    M, N, K,
    stride_xm, stride_xk, stride_wn, stride_wk,
    scale,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    row_sum = tl.zeros((BLOCK_M,), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        mask_n = offs_n < N
        x_ptrs = x_ptr + offs_m[:, None] * stride_xm + offs_k[None, :] * stride_xk
        w_ptrs = w_ptr + offs_n[None, :] * stride_wn + offs_k[:, None] * stride_wk
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            kmask = (offs_k + k0) < K
            a = tl.load(x_ptrs, mask=mask_m[:, None] & kmask[None, :], other=0.0)
            b = tl.load(w_ptrs, mask=kmask[:, None] & mask_n[None, :], other=0.0)
            acc = tl.dot(a, b, acc, input_precision="tf32x3")  # fp32-accurate: the row sum adds up TF32 error
            x_ptrs += BLOCK_K * stride_xk
            w_ptrs += BLOCK_K * stride_wk
        bias = tl.load(b_ptr + offs_n, mask=mask_n, other=0.0)
        y = (acc + bias[None, :]) * scale
        y = tl.minimum(tl.maximum(y, -1.0), 1.0)
        y = tl.where(mask_n[None, :], y, 0.0)
        row_sum += tl.sum(y, axis=1)
    tl.store(out_ptr + offs_m, row_sum, mask=mask_m)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, scale):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x.contiguous()
        w = self.linear.weight
        M, K = x.shape
        N = w.shape[0]
        out = torch.empty((M, 1), device=x.device, dtype=x.dtype)
        BLOCK_M, BLOCK_N, BLOCK_K = 64, 128, 32
        grid = (triton.cdiv(M, BLOCK_M),)
        _linear_clamp_rowsum_kernel[grid](
            x, w, self.linear.bias, out, M, N, K,
            x.stride(0), x.stride(1), w.stride(0), w.stride(1),
            float(self.scale),
            BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4, num_stages=3,
        )
        return out
