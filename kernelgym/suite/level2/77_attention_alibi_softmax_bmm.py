"""Attention with ALiBi distance bias: softmax(Q K^T / sqrt(d) - slope_h * |i - j|) V, slopes 2^(-8 (h+1) / NH)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "4 * B * NH * S * S * D + 8 * B * NH * S * S",
    "bytes": "4 * 4 * B * NH * S * D",
    "small": {"B": 1, "NH": 4, "S": 40, "D": 16},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 2
NH = 16
S = 2048
D = 64


class Model(nn.Module):
    """Bidirectional attention whose scores are penalised linearly in token distance with per-head slopes."""

    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        nh, s = q.shape[1], q.shape[2]
        slopes = torch.exp2(-8.0 * torch.arange(1, nh + 1, device=q.device, dtype=q.dtype) / nh)
        pos = torch.arange(s, device=q.device, dtype=q.dtype)
        dist = (pos[None, :] - pos[:, None]).abs()
        scores = torch.matmul(q, k.transpose(-2, -1)) * (q.shape[-1] ** -0.5)
        scores = scores - slopes[:, None, None] * dist
        return torch.matmul(torch.softmax(scores, dim=-1), v)


def get_inputs():
    q = torch.randn(B, NH, S, D)
    k = torch.randn(B, NH, S, D)
    v = torch.randn(B, NH, S, D)
    return [q, k, v]


def get_init_inputs():
    return []
