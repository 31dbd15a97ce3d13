"""Triton solution: x viewed as (outer, R, inner); each program sums R (or a share of it) for a strip of inner columns.

The sweep at the first call keeps the fastest config. First the earlier launch exactly (BLOCK_R 32, BLOCK_N 128,
8 warps, 2D grid with the outer index fastest: 0.99x of eager on the H200, 0.96-0.98x on the H100; ptxas keeps one
16-byte load per thread in flight there). The GROUPED configs number the programs so that the strips of one outer
slice are neighbours: the programs resident together walk the same rows and read them whole (a 12 KiB row of the
task shape across its 24 strips) rather than 512-byte pieces of many slices; they load with evict_first (read
once), drop the masks where the blocks divide R and inner, and keep 4-8 loads per thread in flight (PREFETCH issues
the next row block's loads before adding the current one). No register spills for sm_90.

SPLIT (new, not measured on a GPU yet): at the task shape every unsplit program reads a whole 2 MiB strip
(4096 rows x 512 B) and only 3456 of them exist, about 5 per SM resident at once, so each runs for ~0.4 ms and the
last wave drains for a large part of that while fewer and fewer loads are in flight (the 2-4% the earlier configs
miss against eager). SPLIT > 1 cuts R into SPLIT equal row ranges, numbered strip fastest, then range, then outer
slice (programs resident together still read whole rows), so programs are 4-8x shorter and the tail is too; each
adds its fp32 partial column sums into the output with one atomic add per column (the output starts as zeros; a
1.7 MiB fill). ``reset_to_zero`` re-zeroes it between the sweep's timing runs and before the run after the sweep.
Adds keep fp32 throughout; only their order varies between runs (far inside atol 2e-3 / rtol 1e-4 at |sum| ~ 64).
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl


def _config(r, n, grouped, pre, split, warps=8):
    return triton.Config({"BLOCK_R": r, "BLOCK_N": n, "GROUPED": grouped, "PREFETCH": pre, "SPLIT": split},
                         num_warps=warps)


#: the earlier fixed launch first (GROUPED off: the same code and grid as before), then the two grouped variants
#: most likely to have won the earlier sweep, then split variants (each config is one more compilation)
SUM_CONFIGS = [triton.Config({"BLOCK_R": 32, "BLOCK_N": 128, "GROUPED": False, "PREFETCH": False, "SPLIT": 1},
                             num_warps=8)]
SUM_CONFIGS += [_config(r, n, True, pre, split)
                for r, n, pre, split in [(32, 128, True, 1), (64, 128, False, 1), (32, 128, True, 4),
                                         (32, 128, True, 8), (64, 128, False, 8)]]


@triton.autotune(configs=SUM_CONFIGS, key=["R", "INNER"], reset_to_zero=["y_ptr"])
@triton.heuristics({
    # the row range of one split, a whole number of row blocks
    "CHUNK": lambda a: triton.cdiv(triton.cdiv(a["R"], a["SPLIT"]), a["BLOCK_R"]) * a["BLOCK_R"],
    "EVEN_R": lambda a: a["GROUPED"] and a["R"] % (a["BLOCK_R"] * a["SPLIT"]) == 0,
    "EVEN_N": lambda a: a["GROUPED"] and a["INNER"] % a["BLOCK_N"] == 0,
    # the pipelined loop loads the first row block before the loop: whole row blocks only, at least one
    "PIPE": lambda a: (a["GROUPED"] and a["PREFETCH"] and a["R"] % (a["BLOCK_R"] * a["SPLIT"]) == 0
                       and a["R"] >= a["BLOCK_R"] * a["SPLIT"]),
})
@triton.jit
def _sum_mid_kernel(x_ptr, y_ptr, R, INNER, BLOCK_R: tl.constexpr, BLOCK_N: tl.constexpr, GROUPED: tl.constexpr,
                    PREFETCH: tl.constexpr, SPLIT: tl.constexpr, CHUNK: tl.constexpr, EVEN_R: tl.constexpr,
                    EVEN_N: tl.constexpr, PIPE: tl.constexpr):
    if GROUPED:  # 1D grid, the strips of one (outer slice, row range) numbered together
        pid = tl.program_id(0)
        n_strips = tl.cdiv(INNER, BLOCK_N)
        pid_n = pid % n_strips
        rest = pid // n_strips
        split = rest % SPLIT
        outer = (rest // SPLIT).to(tl.int64)
    else:
        outer = tl.program_id(0).to(tl.int64)
        pid_n = tl.program_id(1)
        split = 0
    r_lo = split * CHUNK
    r_hi = tl.minimum(r_lo + CHUNK, R)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    mask_n = offs_n < INNER
    base = x_ptr + outer * R * INNER
    acc = tl.zeros((BLOCK_R, BLOCK_N), dtype=tl.float32)
    if PIPE:  # whole row blocks; the loads of block r0 go out before block r0 - BLOCK_R is added
        ptrs = base + (r_lo + tl.arange(0, BLOCK_R)).to(tl.int64)[:, None] * INNER + offs_n[None, :]
        if EVEN_N:
            x = tl.load(ptrs, eviction_policy="evict_first")
        else:
            x = tl.load(ptrs, mask=mask_n[None, :], other=0.0, eviction_policy="evict_first")
        for r0 in range(r_lo + BLOCK_R, r_hi, BLOCK_R):
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
        for r0 in range(r_lo, r_hi, BLOCK_R):
            offs_r = r0 + tl.arange(0, BLOCK_R)
            ptrs = base + offs_r.to(tl.int64)[:, None] * INNER + offs_n[None, :]
            if GROUPED:
                if EVEN_R and EVEN_N:
                    x = tl.load(ptrs, eviction_policy="evict_first")
                elif EVEN_R:
                    x = tl.load(ptrs, mask=mask_n[None, :], other=0.0, eviction_policy="evict_first")
                else:
                    x = tl.load(ptrs, mask=(offs_r[:, None] < r_hi) & mask_n[None, :], other=0.0,
                                eviction_policy="evict_first")
            else:
                x = tl.load(ptrs, mask=(offs_r[:, None] < R) & mask_n[None, :], other=0.0)
            acc += x.to(tl.float32)
    s = tl.sum(acc, axis=0)
    y_ptrs = y_ptr + outer * INNER + offs_n
    if SPLIT > 1:  # partial sums of one row range: added into the zeroed output
        if EVEN_N:
            tl.atomic_add(y_ptrs, s, sem="relaxed")
        else:
            tl.atomic_add(y_ptrs, s, mask=mask_n, sem="relaxed")
    elif EVEN_N:
        tl.store(y_ptrs, s.to(y_ptr.dtype.element_ty))
    else:
        tl.store(y_ptrs, s.to(y_ptr.dtype.element_ty), mask=mask_n)


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
        # zeros: the SPLIT configs add their partial sums into it (the others overwrite it)
        y = torch.zeros(out_shape, device=x.device, dtype=torch.float32)

        def grid(meta):
            strips = triton.cdiv(inner, meta["BLOCK_N"])
            return (outer * meta["SPLIT"] * strips,) if meta["GROUPED"] else (outer, strips)

        _sum_mid_kernel[grid](x, y, R, inner)
        return y if x.dtype == torch.float32 else y.to(x.dtype)
