"""Triton solution: memory-bound matrix-vector product, each program reduces a block of rows in fp32.

Earlier fixed launch (BLOCK_M 8, BLOCK_K 512, 4 warps, one program per 8 whole rows): 0.94-0.99x of eager on the
H100 (2.61 vs 2.54 ms at M = 60000, K = 32768: 7.9 GB of A read once, ~3.0 TB/s). It is kept as the first config
of an autotune sweep (picked by time at the first call, so the sweep can only match or beat it, noise aside).

New configs (not measured on a GPU yet):

* SPLIT > 1 (split-K): a program reduces BLOCK_M rows over one of SPLIT equal column ranges and adds its fp32
  partial sums into the output with one atomic add per row (the output starts as zeros, 240 KB;
  ``reset_to_zero`` re-zeroes it between the sweep's timing runs and before the run after it). An unsplit program
  reads 8 x 128 KB = 1 MiB and runs for ~0.25 ms, so the last wave drains with fewer and fewer loads in flight for
  a noticeable part of the 2.5 ms; split programs read 128-256 KB and the tail shrinks with them. Programs are
  numbered with the column range fastest, so programs resident together read whole rows.
* EVEN (where BLOCK_M divides M and SPLIT * BLOCK_K divides K, as at the task shape): no masks in the loop;
  ``evict_first`` on A (read once) so the 128 KB vector x stays in L2 for every program.
* wider blocks (BLOCK_K 1024, BLOCK_M 16) keep 8-16 16-byte loads per thread in flight.

Accumulation stays fp32 (elementwise in a BLOCK_M x BLOCK_K tile, reduced once at the end); only the order of the
SPLIT partial adds varies between runs, far inside the task's 1e-2 tolerance.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _config(bm, bk, split, evict, warps):
    return triton.Config({"BLOCK_M": bm, "BLOCK_K": bk, "SPLIT": split, "EVICT": evict}, num_warps=warps)


#: the earlier fixed launch first, then split-K and wider-block variants (each config is one more compilation)
MATVEC_CONFIGS = [
    triton.Config({"BLOCK_M": 8, "BLOCK_K": 512, "SPLIT": 1, "EVICT": False}, num_warps=4),
    _config(8, 1024, 1, True, 4),
    _config(8, 512, 4, True, 4),
    _config(8, 1024, 8, True, 8),
    _config(16, 512, 8, True, 8),
    _config(4, 1024, 4, True, 4),
]


@triton.autotune(configs=MATVEC_CONFIGS, key=["M", "K"], reset_to_zero=["y_ptr"])
@triton.heuristics({
    # the column range of one split, a whole number of column blocks
    "CHUNK": lambda a: triton.cdiv(triton.cdiv(a["K"], a["SPLIT"]), a["BLOCK_K"]) * a["BLOCK_K"],
    "EVEN": lambda a: a["M"] % a["BLOCK_M"] == 0 and a["K"] % (a["BLOCK_K"] * a["SPLIT"]) == 0,
})
@triton.jit
def _matvec_kernel(a_ptr, x_ptr, y_ptr, M, K, stride_am, stride_ak, stride_x, stride_y,
                   BLOCK_M: tl.constexpr, BLOCK_K: tl.constexpr, SPLIT: tl.constexpr, EVICT: tl.constexpr,
                   CHUNK: tl.constexpr, EVEN: tl.constexpr):
    pid = tl.program_id(0)
    split = pid % SPLIT
    pid_m = pid // SPLIT
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    mask_m = offs_m < M
    row_ptrs = a_ptr + offs_m.to(tl.int64)[:, None] * stride_am
    acc = tl.zeros((BLOCK_M, BLOCK_K), dtype=tl.float32)
    k_lo = split * CHUNK
    k_hi = tl.minimum(k_lo + CHUNK, K)
    for k0 in range(k_lo, k_hi, BLOCK_K):
        offs_k = k0 + tl.arange(0, BLOCK_K)
        if EVEN:
            if EVICT:
                a = tl.load(row_ptrs + offs_k[None, :] * stride_ak, eviction_policy="evict_first")
            else:
                a = tl.load(row_ptrs + offs_k[None, :] * stride_ak)
            x = tl.load(x_ptr + offs_k * stride_x)
        else:
            mask_k = offs_k < k_hi
            if EVICT:
                a = tl.load(row_ptrs + offs_k[None, :] * stride_ak, mask=mask_m[:, None] & mask_k[None, :],
                            other=0.0, eviction_policy="evict_first")
            else:
                a = tl.load(row_ptrs + offs_k[None, :] * stride_ak, mask=mask_m[:, None] & mask_k[None, :],
                            other=0.0)
            x = tl.load(x_ptr + offs_k * stride_x, mask=mask_k, other=0.0)
        acc += a.to(tl.float32) * x.to(tl.float32)[None, :]
    y = tl.sum(acc, axis=1)
    if SPLIT > 1:  # partial sums of one column range: added into the zeroed output
        tl.atomic_add(y_ptr + offs_m * stride_y, y, mask=mask_m, sem="relaxed")
    else:
        tl.store(y_ptr + offs_m * stride_y, y.to(y_ptr.dtype.element_ty), mask=mask_m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        M, K = A.shape
        # zeros: the SPLIT configs add their partial sums into it (the others overwrite it)
        y = torch.zeros((M, 1), device=A.device, dtype=torch.float32)

        def grid(meta):
            return (triton.cdiv(M, meta["BLOCK_M"]) * meta["SPLIT"],)

        _matvec_kernel[grid](A, x, y, M, K, A.stride(0), A.stride(1), x.stride(0), y.stride(0))
        return y if A.dtype == torch.float32 else y.to(A.dtype)
