"""Multi-head attention whose query/key head dim (192) differs from its value head dim (128), fp32."""
import math

import torch
import torch.nn as nn

KERNELGYM = {
    "category": "MatrixMultiply",
    "dtype": "float32",
    "flops": "2 * B * H * S * S * (DQK + DV) + 5 * B * H * S * S",
    "bytes": "4 * B * H * S * (2 * DQK + 2 * DV)",
    "small": {"B": 2, "H": 3, "S": 24, "DQK": 24, "DV": 16},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 4
H = 16
S = 1024
DQK = 192
DV = 128


class Model(nn.Module):
    """softmax(Q K^T / sqrt(DQK)) V with Q, K: (B, H, S, DQK) and V: (B, H, S, DV)."""

    def __init__(self):
        super().__init__()

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
        scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / math.sqrt(q.shape[-1]))
        probs = torch.softmax(scores, dim=-1)
        return torch.matmul(probs, v)


def get_inputs():
    # queries (std 2) and keys (std 1.5) give peaked attention, so outputs are O(1)
    q = torch.randn(B, H, S, DQK) * 2
    k = torch.randn(B, H, S, DQK) * 1.5
    v = torch.randn(B, H, S, DV)
    return [q, k, v]


def get_init_inputs():
    return []
