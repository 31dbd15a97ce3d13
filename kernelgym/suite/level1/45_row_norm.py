"""Euclidean (L2) norm of every row of a B x D fp32 matrix."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Reduce",
    "dtype": "float32",
    "flops": "2 * B * D",
    "bytes": "B * D * 4 + B * 4",
    "small": {"B": 30, "D": 90},
}

B = 294912
D = 6144


class Model(nn.Module):
    """torch.linalg.vector_norm(x, 2, dim=1)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.linalg.vector_norm(x, ord=2, dim=1)


def get_inputs():
    return [torch.randn(B, D)]


def get_init_inputs():
    return []
