"""Scaled dot-product attention softmax(Q K^T / sqrt(d)) V written out with plain torch ops (fp32)."""
import math

import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "4 * B * H * S * S * D + 5 * B * H * S * S",
    "bytes": "4 * 4 * B * H * S * D",
    "small": {"B": 2, "H": 2, "S": 40, "D": 16},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 8
H = 16
S = 1024
D = 64


class Model(nn.Module):
    """Non-causal attention over (B, H, S, D) query, key and value tensors."""

    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        probs = torch.softmax(scores, dim=-1)
        return torch.matmul(probs, v)


def get_inputs():
    # queries (std 2) and keys (std 1.5) give moderately peaked attention, so outputs are O(1)
    q = torch.randn(B, H, S, D) * 2
    k = torch.randn(B, H, S, D) * 1.5
    v = torch.randn(B, H, S, D)
    return [q, k, v]


def get_init_inputs():
    return []
