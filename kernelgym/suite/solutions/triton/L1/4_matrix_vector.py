"""Triton solution: memory-bound matrix-vector product, each program reduces a block of rows in fp32."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _matvec_kernel(a_ptr, x_ptr, y_ptr, M, K, stride_am, stride_ak, stride_x, stride_y,
                   BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    offs_m = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    mask_m = offs_m < M
    row_ptrs = a_ptr + offs_m.to(tl.int64)[:, None] * stride_am
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        mask_k = offs_k < K
        a = tl.load(row_ptrs + offs_k[None, :] * stride_ak, mask=mask_m[:, None] & mask_k[None, :], other=0.0)
        x = tl.load(x_ptr + offs_k * stride_x, mask=mask_k, other=0.0)
        acc += a.to(tl.float32) * x.to(tl.float32)[None, :]
    y = tl.sum(acc, axis=1)
    tl.store(y_ptr + offs_m * stride_y, y.to(y_ptr.dtype.element_ty), mask=mask_m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        M, K = A.shape
        y = torch.empty((M, 1), device=A.device, dtype=A.dtype)
        BLOCK_M, BLOCK_K = 8, 512
        grid = (triton.cdiv(M, BLOCK_M),)
        _matvec_kernel[grid](A, x, y, M, K, A.stride(0), A.stride(1), x.stride(0), y.stride(0),
                             BLOCK_M=BLOCK_M, BLOCK_K=BLOCK_K, num_warps=4)
        return y
