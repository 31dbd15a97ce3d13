"""Triton solution: x viewed as (outer, R, inner); each program sums R for a coalesced strip of inner columns.

The sweep at the first call keeps the fastest config. First the earlier launch exactly (BLOCK_R 32, BLOCK_N 128,
8 warps, 2D grid with the outer index fastest: 0.99x of eager on the H200; ptxas keeps one 16-byte load per thread
in flight there). The GROUPED configs number the programs so that the strips of one outer slice are neighbours: the
programs resident together walk the same rows and read them whole (a 12 KiB row of the task shape across its 24
strips) rather than 512-byte pieces of many slices; they load with evict_first (read once), drop the masks where the
blocks divide R and inner, and keep 4-8 loads per thread in flight: larger row blocks or strips (64x128, 32x256,
16x512), or PREFETCH, which issues the next row block's loads before adding the current one. No register spills
for sm_90. The GROUPED configs are not measured on the H200 yet.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


#: the earlier fixed launch first (GROUPED off: the same code and grid as before), then the grouped variants
SUM_CONFIGS = [triton.Config({"BLOCK_R": 32, "BLOCK_N": 128, "GROUPED": False, "PREFETCH": False}, num_warps=8)]
SUM_CONFIGS += [triton.Config({"BLOCK_R": r, "BLOCK_N": n, "GROUPED": True, "PREFETCH": pre}, num_warps=8)
                for r, n, pre in [(32, 128, True), (64, 128, False), (32, 256, False), (16, 512, False),
                                  (64, 128, True)]]


@triton.autotune(configs=SUM_CONFIGS, key=["R", "INNER"])
@triton.heuristics({
    "EVEN_R": lambda a: a["GROUPED"] and a["R"] % a["BLOCK_R"] == 0,
    "EVEN_N": lambda a: a["GROUPED"] and a["INNER"] % a["BLOCK_N"] == 0,
    # the pipelined loop loads the first row block before the loop: whole row blocks only, at least one
    "PIPE": lambda a: a["GROUPED"] and a["PREFETCH"] and a["R"] % a["BLOCK_R"] == 0 and a["R"] >= a["BLOCK_R"],
})
@triton.jit
def _sum_mid_kernel(x_ptr, y_ptr, R, INNER, BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr, GROUPED: tl.constexpr,
                    PREFETCH: tl.constexpr, EVEN_R: tl.constexpr, EVEN_N: tl.constexpr, PIPE: tl.constexpr):
    if GROUPED:  # 1D grid, the strips of one outer slice numbered together
        pid = tl.program_id(0)
        n_strips = tl.cdiv(INNER, BLOCK_N)
        outer = (pid // n_strips).to(tl.int64)
        pid_n = pid % n_strips
    else:
        outer = tl.program_id(0).to(tl.int64)
        pid_n = tl.program_id(1)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < INNER
    base = x_ptr + outer * R * INNER
    acc = tl.zeros((BLOCK_R, BLOCK_N), dtype=tl.float32)
    if PIPE:  # whole row blocks; the loads of block r0 go out before block r0 - BLOCK_R is added
        ptrs = base + tl.arange(0, BLOCK_R).to(tl.int64)[:, None] * INNER + offs_n[None, :]
        if EVEN_N:
            x = tl.load(ptrs, eviction_policy="evict_first")
        else:
            x = tl.load(ptrs, mask=mask_n[None, :], other=0.0, eviction_policy="evict_first")
        for r0 in range(BLOCK_R, R, BLOCK_R):
            offs_r = r0 + tl.arange(0, BLOCK_R)
            ptrs = base + offs_r.to(tl.int64)[:, None] * INNER + offs_n[None, :]
            if EVEN_N:
                x_next = tl.load(ptrs, eviction_policy="evict_first")
            else:
                x_next = tl.load(ptrs, mask=mask_n[None, :], other=0.0, eviction_policy="evict_first")
            acc += x.to(tl.float32)
            x = x_next
        acc += x.to(tl.float32)
    else:
        for r0 in range(0, R, BLOCK_R):
            offs_r = r0 + tl.arange(0, BLOCK_R)
            ptrs = base + offs_r.to(tl.int64)[:, None] * INNER + offs_n[None, :]
            if GROUPED:
                if EVEN_R and EVEN_N:
                    x = tl.load(ptrs, eviction_policy="evict_first")
                elif EVEN_R:
                    x = tl.load(ptrs, mask=mask_n[None, :], other=0.0, eviction_policy="evict_first")
                else:
                    x = tl.load(ptrs, mask=(offs_r[:, None] < R) & mask_n[None, :], other=0.0,
                                eviction_policy="evict_first")
            else:
                x = tl.load(ptrs, mask=(offs_r[:, None] < R) & mask_n[None, :], other=0.0)
            acc += x.to(tl.float32)
    s = tl.sum(acc, axis=0)
    if EVEN_N:
        tl.store(y_ptr + outer * INNER + offs_n, s.to(y_ptr.dtype.element_ty))
    else:
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
            strips = triton.cdiv(inner, meta["BLOCK_N"])
            return (outer * strips,) if meta["GROUPED"] else (outer, strips)

        _sum_mid_kernel[grid](x, y, R, inner)
        return y
