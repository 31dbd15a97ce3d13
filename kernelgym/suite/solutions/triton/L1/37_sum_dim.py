"""Triton solution: x viewed as (outer, R, inner); each program sums R for a coalesced strip of inner columns."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


#: the fixed strip the earlier version used (0.86-0.92x of eager on the H200) first, then wider strips and deeper
#: row blocks (more bytes in flight per program); the sweep at the first call keeps the fastest
SUM_CONFIGS = [triton.Config({"BLOCK_R": 32, "BLOCK_N": 128}, num_warps=8)]
SUM_CONFIGS += [triton.Config({"BLOCK_R": r, "BLOCK_N": n}, num_warps=w)
                for r, n, w in [(64, 128, 8), (32, 256, 8), (64, 256, 8), (128, 64, 4)]]


@triton.autotune(configs=SUM_CONFIGS, key=["R", "INNER"])
@triton.jit
def _sum_mid_kernel(x_ptr, y_ptr, R, INNER, BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr):
    outer = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < INNER
    base = x_ptr + outer * R * INNER
    acc = tl.zeros((BLOCK_R, BLOCK_N), dtype=tl.float32)
    for r0 in range(0, R, BLOCK_R):
        offs_r = r0 + tl.arange(0, BLOCK_R)
        ptrs = base + offs_r.to(tl.int64)[:, None] * INNER + offs_n[None, :]
        acc += tl.load(ptrs, mask=(offs_r[:, None] < R) & mask_n[None, :], other=0.0).to(tl.float32)
    s = tl.sum(acc, axis=0)
    tl.store(y_ptr + outer * INNER + offs_n, s.to(y_ptr.dtype.element_ty), mask=mask_n)


class ModelNew(nn.Module):
    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dim = self.dim % x.dim()
        x = x.contiguous()
        shape = list(x.shape)
        R = shape[dim]
        outer = 1
        for s in shape[:dim]:
            outer *= s
        inner = 1
        for s in shape[dim + 1:]:
            inner *= s
        out_shape = shape[:dim] + [1] + shape[dim + 1:]
        y = torch.empty(out_shape, device=x.device, dtype=x.dtype)
        def grid(meta):
            return (outer, triton.cdiv(inner, meta["BLOCK_N"]))

        _sum_mid_kernel[grid](x, y, R, inner)
        return y
