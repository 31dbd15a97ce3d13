"""Elementwise logistic sigmoid 1 / (1 + exp(-x)) on a large 2D fp32 tensor."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Activation",
    "dtype": "float32",
    "flops": "4 * B * D",
    "bytes": "2 * B * D * 4",
    "small": {"B": 32, "D": 48},
}

B = 24576
D = 49152


class Model(nn.Module):
    """Applies the sigmoid function."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(x)


def get_inputs():
    return [torch.randn(B, D) * 3]


def get_init_inputs():
    return []
