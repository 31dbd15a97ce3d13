"""Triplet margin loss F.triplet_margin_loss(anchor, positive, negative, margin=1, p=2, eps=1e-6), mean over the batch; a scalar.

Note PyTorch's pairwise distance adds eps to the difference: d(a, b) = ||a - b + eps||_2.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Loss",
    "level": 1,
    "dtype": "float32",
    "flops": "6 * N * D",
    "bytes": "3 * 4 * N * D + 4",
    "small": {"N": 50, "D": 64},
}

N = 786432
D = 256


class Model(nn.Module):
    """mean(max(d(a, p) - d(a, n) + margin, 0))."""

    def __init__(self):
        super().__init__()

    def forward(self, anchor: torch.Tensor, positive: torch.Tensor, negative: torch.Tensor) -> torch.Tensor:
        return F.triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6)


def get_inputs():
    a = torch.randn(N, D)
    return [a, a + 0.6 * torch.randn(N, D), a + 0.7 * torch.randn(N, D)]


def get_init_inputs():
    return []
