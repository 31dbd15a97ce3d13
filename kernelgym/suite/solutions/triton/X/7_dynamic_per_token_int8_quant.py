"""Triton per-token int8 quantization: one program per row, absmax pass then an IEEE-division + half-to-even rounding pass."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rint_half_even(y):
    # round half to even, exact for |y| < 2^22 (the quotient here is at most ~127)
    r = tl.floor(y + 0.5)
    tie = (r - y) == 0.5
    odd = (r - 2.0 * tl.floor(r * 0.5)) != 0.0
    return tl.where(tie & odd, r - 1.0, r)


@triton.jit
def _per_token_quant_kernel(x_ptr, q_ptr, s_ptr, D, stride_x, stride_q, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x_row = x_ptr + row.to(tl.int64) * stride_x
    q_row = q_ptr + row.to(tl.int64) * stride_q
    amax = tl.zeros((BLOCK,), dtype=tl.float32)
    for d0 in range(0, D, BLOCK):
        mask = d0 + offs < D
        x = tl.load(x_row + d0 + offs, mask=mask, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.abs(x))
    scale = tl.max(amax, axis=0) * (1.0 / 127.0)
    tl.store(s_ptr + row, scale)
    for d0 in range(0, D, BLOCK):
        mask = d0 + offs < D
        x = tl.load(x_row + d0 + offs, mask=mask, other=0.0).to(tl.float32)
        y = tl.math.div_rn(x, scale)
        q = tl.minimum(tl.maximum(_rint_half_even(y), -127.0), 127.0)
        tl.store(q_row + d0 + offs, q.to(tl.int8), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor):
        x = x.contiguous()
        T, D = x.shape
        q = torch.empty((T, D), dtype=torch.int8, device=x.device)
        scale = torch.empty((T, 1), dtype=torch.float32, device=x.device)
        BLOCK = min(4096, triton.next_power_of_2(D))
        _per_token_quant_kernel[(T,)](x, q, scale, D, x.stride(0), q.stride(0), BLOCK=BLOCK, num_warps=8)
        return q, scale
