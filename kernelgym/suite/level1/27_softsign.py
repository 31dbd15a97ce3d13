"""Elementwise Softsign, x / (1 + |x|), on a 2D fp32 tensor."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Activation",
    "dtype": "float32",
    "flops": "3 * B * D",
    "bytes": "2 * B * D * 4",
    "small": {"B": 24, "D": 80},
}

B = 16384
D = 24576


class Model(nn.Module):
    """Applies Softsign."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.softsign(x)


def get_inputs():
    return [torch.randn(B, D) * 2]


def get_init_inputs():
    return []
