"""Cosine similarity loss: mean over rows of 1 - cos(a_i, b_i) for 4096-dimensional embeddings."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Loss",
    "dtype": "float32",
    "flops": "6 * B * D",
    "bytes": "4 * (2 * B * D + 1)",
    "small": {"B": 16, "D": 100},
}

B = 32768
D = 4096


class Model(nn.Module):
    """torch.mean(1 - F.cosine_similarity(a, b, dim=1))."""

    def __init__(self):
        super().__init__()

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        return torch.mean(1 - F.cosine_similarity(a, b, dim=1))


def get_inputs():
    a = torch.randn(B, D)
    # b is a noisy copy of a with a per-row mixing weight: similarities spread over (0, 1)
    b = torch.randn(B, D) + a * (torch.rand(B, 1) * 3)
    return [a, b]


def get_init_inputs():
    return []
