"""Causal (masked) scaled dot-product attention with an explicit upper-triangular -inf mask (fp32)."""
import math

import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * H * S * S * D + 3 * B * H * S * S",
    "bytes": "4 * 4 * B * H * S * D",
    "small": {"B": 2, "H": 2, "S": 37, "D": 16},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 4
H = 16
S = 2048
D = 64


class Model(nn.Module):
    """Causal attention: position i attends to positions j <= i."""

    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        s = q.shape[-2]
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        mask = torch.triu(torch.ones(s, s, dtype=torch.bool, device=q.device), diagonal=1)
        scores = scores.masked_fill(mask, float("-inf"))
        probs = torch.softmax(scores, dim=-1)
        return torch.matmul(probs, v)


def get_inputs():
    # queries (std 2) and keys (std 1.5) give peaked attention, so outputs are O(1)
    q = torch.randn(B, H, S, D) * 2
    k = torch.randn(B, H, S, D) * 1.5
    v = torch.randn(B, H, S, D)
    return [q, k, v]


def get_init_inputs():
    return []
