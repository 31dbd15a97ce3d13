"""Multi-head self-attention block: fused QKV projection, 12-head attention, output projection (fp32)."""
import math

import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * B * S * E * 4 * E + 4 * B * S * S * E",
    "bytes": "4 * (2 * B * S * E + 4 * E * E + 4 * E)",
    "small": {"B": 2, "S": 16, "E": 32, "HEADS": 2},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 16
S = 512
E = 768
HEADS = 12


class Model(nn.Module):
    """x -> Linear(E, 3E) -> split heads -> softmax(QK^T/sqrt(d))V -> merge heads -> Linear(E, E)."""

    def __init__(self, embed_dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(embed_dim, 3 * embed_dim)
        self.out = nn.Linear(embed_dim, embed_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, e = x.shape
        d = e // self.heads
        qkv = self.qkv(x).view(b, s, 3, self.heads, d).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d)
        probs = torch.softmax(scores, dim=-1)
        y = torch.matmul(probs, v).transpose(1, 2).reshape(b, s, e)
        return self.out(y)


def get_inputs():
    # activations with std 3 so the projected queries and keys give peaked attention and O(1) outputs
    return [torch.randn(B, S, E) * 3]


def get_init_inputs():
    return [E, HEADS]
