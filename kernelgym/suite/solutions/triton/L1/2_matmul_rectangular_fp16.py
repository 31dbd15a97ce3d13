"""Triton solution: tiled fp16 tensor-core matmul (fp32 accumulation) with masked edges for odd sizes.

N = 7000 gives B rows of 14000 bytes: Triton only assumes a stride divisible by 16 (elements) aligned, so every load
of B would be split into single elements. B is first copied into rows padded to a multiple of 64 elements (84 MB,
a few percent of the matmul's time), whose loads are 16-byte vectors; the padding is never read (masked on N).
The fixed 128x128x64 tile reached 0.22x of cuBLAS on the H200, so the tile is now picked by an autotune sweep."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


#: the tile shape the earlier, fixed version used first; then the shapes Hopper's tensor cores usually run best with.
#: The sweep (at the first call, per M/N/K) keeps the fastest; every config is one more compilation in each fresh
#: worker, so the list is short.
MATMUL_CONFIGS = [triton.Config({"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8},
                                num_warps=8, num_stages=3)]
MATMUL_CONFIGS += [triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8}, num_warps=w, num_stages=s)
                   for bm, bn, bk, w, s in [(128, 256, 64, 8, 3), (256, 128, 64, 8, 3), (128, 128, 64, 4, 4),
                                            (128, 256, 32, 8, 4)]]


@triton.autotune(configs=MATMUL_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                   stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    mask_m = offs_m[:, None] < M
    mask_n = offs_n[None, :] < N

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=mask_m & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n, other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_m & mask_n)


@triton.jit
def _pad_rows_kernel(src_ptr, dst_ptr, C, src_stride, dst_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < C
    vals = tl.load(src_ptr + row * src_stride + offs, mask=mask)
    tl.store(dst_ptr + row * dst_stride + offs, vals, mask=mask)


def padded_rows(b, multiple=64):
    """``b`` (rows x cols, unit column stride) copied into rows whose stride is a multiple of ``multiple``."""
    rows, cols = b.shape
    stride = triton.cdiv(cols, multiple) * multiple
    out = torch.empty((rows, stride), device=b.device, dtype=b.dtype)
    BLOCK = 1024
    _pad_rows_kernel[(rows, triton.cdiv(cols, BLOCK))](b, out, cols, b.stride(0), stride, BLOCK=BLOCK)
    return out


def matmul(a, b, stride_bk, stride_bn, M, N, K):
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    _matmul_kernel[grid](a, b, c, M, N, K,
                         a.stride(0), a.stride(1), stride_bk, stride_bn, c.stride(0), c.stride(1))
    return c


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, B: torch.Tensor) -> torch.Tensor:
        M, K = A.shape
        N = B.shape[1]
        A = A.contiguous()
        if B.stride(1) != 1 or B.stride(0) % 16:
            B = padded_rows(B.contiguous())
        return matmul(A, B, B.stride(0), B.stride(1), M, N, K)
