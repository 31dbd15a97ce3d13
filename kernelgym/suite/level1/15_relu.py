"""Elementwise ReLU, max(x, 0), on a large 2D fp32 tensor with an odd row length."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Activation",
    "dtype": "float32",
    "flops": "B * D",
    "bytes": "2 * B * D * 4",
    "small": {"B": 16, "D": 250},
}

B = 12288
D = 100000


class Model(nn.Module):
    """Applies ReLU."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(B, D)]


def get_init_inputs():
    return []
