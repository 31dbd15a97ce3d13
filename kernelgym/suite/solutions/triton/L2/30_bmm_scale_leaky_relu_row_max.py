"""Triton: one fused batched kernel; each program owns a block of rows of one batch, sweeps all column tiles with
tl.dot, applies scale and LeakyReLU in registers and keeps a running row max (no (B, M, N) intermediate).

The fixed 64x128x32 tile ran at 0.976x eager on the H200, so the tile is picked by a short autotune sweep that lists
the old one first."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

BMM_CONFIGS = [triton.Config({"BLOCK_M": 64, "BLOCK_N": 128, "BLOCK_K": 32}, num_warps=4, num_stages=3)]
BMM_CONFIGS += [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk}, num_warps=w, num_stages=3)
                for bm, bn, bk, w in [(128, 128, 32, 8), (64, 128, 64, 4)]]


@triton.autotune(configs=BMM_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _bmm_leaky_rowmax_kernel(
    a_ptr, b_ptr, out_ptr,
    M, N, K,
    stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn, stride_ob, stride_om,
    scale, slope,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    batch = tl.program_id(1).to(tl.int64)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    mask_m = offs_m < M
    row_max = tl.full((BLOCK_M,), float("-inf"), dtype=tl.float32)
    for n0 in range(0, N, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        mask_n = offs_n < N
        a_ptrs = a_ptr + batch * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
        b_ptrs = b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for k0 in range(0, K, BLOCK_K):
            kmask = (offs_k + k0) < K
            a = tl.load(a_ptrs, mask=mask_m[:, None] & kmask[None, :], other=0.0)
            b = tl.load(b_ptrs, mask=kmask[:, None] & mask_n[None, :], other=0.0)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
        y = acc * scale
        y = tl.where(y >= 0.0, y, y * slope)
        y = tl.where(mask_n[None, :], y, float("-inf"))
        row_max = tl.maximum(row_max, tl.max(y, axis=1))
    tl.store(out_ptr + batch * stride_ob + offs_m * stride_om, row_max, mask=mask_m)


class ModelNew(nn.Module):
    def __init__(self, scale, negative_slope):
        super().__init__()
        self.scale = scale
        self.negative_slope = negative_slope

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a = a.contiguous()
        b = b.contiguous()
        B, M, K = a.shape
        N = b.shape[2]
        out = torch.empty((B, M), device=a.device, dtype=a.dtype)
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), B)
        _bmm_leaky_rowmax_kernel[grid](
            a, b, out, M, N, K,
            a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1), b.stride(2),
            out.stride(0), out.stride(1),
            float(self.scale), float(self.negative_slope),
        )
        return out
