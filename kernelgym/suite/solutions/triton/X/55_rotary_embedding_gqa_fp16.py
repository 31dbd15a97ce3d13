"""Triton rotary embedding: each program takes a block of positions of one sequence, loads cos/sin once and rotates every head of q (and k) there, fp32 math, one fp16 rounding."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _rope_kernel(x_ptr, o_ptr, pos_ptr, cos_ptr, sin_ptr, H, S, HALF,
                 stride_xb, stride_xh, stride_xs, stride_ob, stride_oh, stride_os, stride_pb, stride_cs,
                 BLOCK_S: tl.constexpr, BLOCK_H: tl.constexpr):
    pid_s = tl.program_id(0)
    b = tl.program_id(1)
    offs_s = pid_s * BLOCK_S + tl.arange(0, BLOCK_S)
    offs_d = tl.arange(0, BLOCK_H)
    s_mask = offs_s < S
    d_mask = offs_d < HALF
    mask = s_mask[:, None] & d_mask[None, :]
    pos = tl.load(pos_ptr + b * stride_pb + offs_s, mask=s_mask, other=0)
    c_base = cos_ptr + pos[:, None] * stride_cs + offs_d[None, :]
    s_base = sin_ptr + pos[:, None] * stride_cs + offs_d[None, :]
    cos1 = tl.load(c_base, mask=mask, other=0.0).to(tl.float32)
    cos2 = tl.load(c_base + HALF, mask=mask, other=0.0).to(tl.float32)
    sin1 = tl.load(s_base, mask=mask, other=0.0).to(tl.float32)
    sin2 = tl.load(s_base + HALF, mask=mask, other=0.0).to(tl.float32)
    x_row = x_ptr + b.to(tl.int64) * stride_xb + offs_s[:, None] * stride_xs + offs_d[None, :]
    o_row = o_ptr + b.to(tl.int64) * stride_ob + offs_s[:, None] * stride_os + offs_d[None, :]
    for h in range(0, H):
        xp = x_row + h * stride_xh
        x1 = tl.load(xp, mask=mask, other=0.0).to(tl.float32)
        x2 = tl.load(xp + HALF, mask=mask, other=0.0).to(tl.float32)
        o1 = x1 * cos1 - x2 * sin1          # rotate_half(x) = (-x2, x1)
        o2 = x2 * cos2 + x1 * sin2
        op = o_row + h * stride_oh
        tl.store(op, o1.to(o_ptr.dtype.element_ty), mask=mask)
        tl.store(op + HALF, o2.to(o_ptr.dtype.element_ty), mask=mask)


def _rope(x, positions, cos, sin):
    x = x.contiguous()
    B, H, S, D = x.shape
    out = torch.empty_like(x)
    HALF = D // 2
    BLOCK_H = triton.next_power_of_2(HALF)
    BLOCK_S = max(1, min(64, 4096 // BLOCK_H))
    grid = (triton.cdiv(S, BLOCK_S), B)
    _rope_kernel[grid](x, out, positions, cos, sin, H, S, HALF,
                       x.stride(0), x.stride(1), x.stride(2), out.stride(0), out.stride(1), out.stride(2),
                       positions.stride(0), cos.stride(0),
                       BLOCK_S=BLOCK_S, BLOCK_H=BLOCK_H, num_warps=4)
    return out


class ModelNew(nn.Module):
    def __init__(self, head_dim: int, max_positions: int):
        super().__init__()
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
        t = torch.arange(max_positions, dtype=torch.float32)
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos().to(torch.float16))
        self.register_buffer("sin_cached", emb.sin().to(torch.float16))

    def forward(self, q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor):
        positions = positions.contiguous()
        cos = self.cos_cached.contiguous()
        sin = self.sin_cached.contiguous()
        return _rope(q, positions, cos, sin), _rope(k, positions, cos, sin)
