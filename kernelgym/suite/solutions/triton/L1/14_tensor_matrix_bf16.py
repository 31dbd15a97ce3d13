"""Triton solution: the 3D tensor is viewed as one (BATCH*S) x K matrix and multiplied with a bf16 tiled matmul.

At the full size (16000 x 4096 times 4096 x 6144) every size and stride is a multiple of 16, so the pointer loads
are already 16-byte cp.async vectors and 3000 tiles of 128x256 fill the 132 SMs 22.7 times: no alignment, wave or
split-K problem. The fixed 128x128x64 tile still ran at 0.785x of cuBLAS on the H200, so the tile and the load path
are now picked by an autotune sweep whose first entry is that fixed config:

* pointer path (``TMA=False``): masked ``tl.load`` tiles, pipelined with cp.async;
* TMA path (``TMA=True``): the tiles come through host-side ``TensorDescriptor`` objects
  (triton.tools.tensor_descriptor, same API in Triton 3.6 and 3.9) as Hopper TMA copies, with no address arithmetic
  or masks in the loop (the edges read as zeros) and a TMA store of C. A pre_hook gives the descriptors each
  config's block shape.

The configs other than the first are not measured on the H200 yet.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


def _set_block_shapes(nargs):
    """The descriptors' block shapes follow the config being run (TMA tiles are part of the descriptor)."""
    nargs["a_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_K"]]
    nargs["b_desc"].block_shape = [nargs["BLOCK_K"], nargs["BLOCK_N"]]
    nargs["c_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_N"]]


def _config(bm, bn, bk, stages, tma, num_warps):
    return triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8, "TMA": tma},
                         num_warps=num_warps, num_stages=stages, pre_hook=_set_block_shapes)


#: the earlier fixed config first, then Hopper-sized tiles (shared memory per stage: 128x256x64 48 KB, 128x128x64
#: 32 KB; 128x128x64 in 3 stages leaves room for two blocks per SM). Each config is one more compilation in every
#: fresh worker, so the list is short.
MATMUL_CONFIGS = [
    _config(128, 128, 64, 3, False, num_warps=8),
    _config(128, 256, 64, 3, False, num_warps=8),
    _config(128, 256, 64, 3, True, num_warps=8),
    _config(128, 256, 64, 4, True, num_warps=8),
    _config(256, 128, 64, 3, True, num_warps=8),
    _config(128, 128, 64, 4, True, num_warps=8),
    _config(128, 128, 64, 3, True, num_warps=8),
]


@triton.autotune(configs=MATMUL_CONFIGS, key=["M", "N", "K"])
@triton.jit
def _matmul_kernel(a_ptr, b_ptr, c_ptr, a_desc, b_desc, c_desc, M, N, K,
                   stride_am, stride_bk, stride_cm,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   GROUP_M: tl.constexpr, TMA: tl.constexpr, UPCAST: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = pid // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((pid % num_pid_in_group) % group_size_m)
    pid_n = (pid % num_pid_in_group) // group_size_m

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    if TMA:
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            a = a_desc.load([off_m, k * BLOCK_K])
            b = b_desc.load([k * BLOCK_K, off_n])
            if UPCAST:  # the CPU interpreter multiplies bf16 tiles as raw uint16; on the GPU the bf16 dot is used
                a = a.to(tl.float32)
                b = b.to(tl.float32)
            acc = tl.dot(a, b, acc)
        c_desc.store([off_m, off_n], acc.to(c_desc.dtype))
    else:
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        offs_k = tl.arange(0, BLOCK_K)
        a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
        b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
        mask_m = offs_m[:, None] < M
        mask_n = offs_n[None, :] < N
        for k in range(0, tl.cdiv(K, BLOCK_K)):
            k_left = K - k * BLOCK_K
            a = tl.load(a_ptrs, mask=mask_m & (offs_k[None, :] < k_left), other=0.0)
            b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & mask_n, other=0.0)
            if UPCAST:
                a = a.to(tl.float32)
                b = b.to(tl.float32)
            acc = tl.dot(a, b, acc)
            a_ptrs += BLOCK_K
            b_ptrs += BLOCK_K * stride_bk
        c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :]
        tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask_m & mask_n)


def _rows16(x):
    """``x`` if its rows start on 16 bytes with unit column stride (what TMA needs), else such a padded copy."""
    if x.stride(1) == 1 and x.stride(0) % 8 == 0 and x.data_ptr() % 16 == 0:
        return x
    rows, cols = x.shape
    out = torch.empty((rows, triton.cdiv(cols, 8) * 8), device=x.device, dtype=x.dtype)[:, :cols]
    out.copy_(x)
    return out


def _descriptor(x):
    return TensorDescriptor(x, list(x.shape), list(x.stride()), [16, 16])  # block shape set per config


def matmul(a, b):
    M, K = a.shape
    N = b.shape[1]
    a, b = _rows16(a), _rows16(b)
    c = torch.empty((M, triton.cdiv(N, 8) * 8), device=a.device, dtype=a.dtype)[:, :N]

    def grid(meta):
        return (triton.cdiv(M, meta["BLOCK_M"]) * triton.cdiv(N, meta["BLOCK_N"]),)

    # CPU tensors only reach the kernel under Triton's interpreter, whose bf16 tl.dot multiplies raw bit patterns
    _matmul_kernel[grid](a, b, c, _descriptor(a), _descriptor(b), _descriptor(c), M, N, K,
                         a.stride(0), b.stride(0), c.stride(0), UPCAST=not a.is_cuda)
    return c


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, W: torch.Tensor) -> torch.Tensor:
        K = A.shape[-1]
        A2 = A.contiguous().view(-1, K)
        N = W.shape[1]
        C = matmul(A2, W)
        return C.reshape(*A.shape[:-1], N)
