"""Triton MSE loss: persistent grid-stride partial sums of squared differences, then a deterministic final sum."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _sq_diff_partial_kernel(a_ptr, b_ptr, part_ptr, numel, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(pid * BLOCK, numel, nprog * BLOCK):
        idx = start + offs
        mask = idx < numel
        a = tl.load(a_ptr + idx, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + idx, mask=mask, other=0.0).to(tl.float32)
        d = a - b
        acc += d * d
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _finish_mean_kernel(part_ptr, out_ptr, n_parts, inv_numel, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_parts, BLOCK):
        idx = start + offs
        acc += tl.load(part_ptr + idx, mask=idx < n_parts, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0) * inv_numel)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        a = predictions.contiguous().view(-1)
        b = targets.contiguous().view(-1)
        numel = a.numel()
        BLOCK = 4096
        n_parts = max(1, min(triton.cdiv(numel, BLOCK), 132 * 8))
        parts = torch.empty((n_parts,), device=a.device, dtype=torch.float32)
        out = torch.empty((), device=a.device, dtype=predictions.dtype)
        _sq_diff_partial_kernel[(n_parts,)](a, b, parts, numel, BLOCK=BLOCK, num_warps=8)
        _finish_mean_kernel[(1,)](parts, out, n_parts, 1.0 / numel, BLOCK=1024, num_warps=4)
        return out
