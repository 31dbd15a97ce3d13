"""Rotary position embedding (rotate-half convention) applied to fp16 queries and grouped-query keys at given positions; returns (q_rot, k_rot).

cos/sin tables are fp16 buffers (precomputed in float32, base 10000). The reference evaluates
x * cos + rotate_half(x) * sin in fp16 arithmetic; computing it in fp32 and rounding once differs by ~1 fp16 ulp,
inside the fp16 tolerance.
"""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "SpatialOps",
    "level": 1,
    "dtype": "float16",
    "flops": "3 * B * S * (HQ + HK) * D",
    "bytes": "2 * 2 * B * S * (HQ + HK) * D + 8 * B * S",
    "small": {"B": 2, "S": 12, "HQ": 4, "HK": 2, "D": 16, "MAXPOS": 64},
}

B = 8
S = 4096
HQ = 32
HK = 8
D = 128
MAXPOS = 16384


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Model(nn.Module):
    """q: (B, HQ, S, D), k: (B, HK, S, D), positions: (B, S) int64 in [0, MAXPOS)."""

    def __init__(self, head_dim: int, max_positions: int):
        super().__init__()
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
        t = torch.arange(max_positions, dtype=torch.float32)
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos().to(torch.float16))
        self.register_buffer("sin_cached", emb.sin().to(torch.float16))

    def forward(self, q: torch.Tensor, k: torch.Tensor, positions: torch.Tensor):
        cos = self.cos_cached[positions].unsqueeze(1).to(q.dtype)     # (B, 1, S, D)
        sin = self.sin_cached[positions].unsqueeze(1).to(q.dtype)
        q_rot = q * cos + rotate_half(q) * sin
        k_rot = k * cos + rotate_half(k) * sin
        return q_rot, k_rot


def get_inputs():
    q = torch.randn(B, HQ, S, D, dtype=torch.float16)
    k = torch.randn(B, HK, S, D, dtype=torch.float16)
    start = torch.randint(0, MAXPOS - S + 1, (B, 1))
    positions = start + torch.arange(S).unsqueeze(0)          # each sequence continues from its own offset
    return [q, k, positions]


def get_init_inputs():
    return [D, MAXPOS]
