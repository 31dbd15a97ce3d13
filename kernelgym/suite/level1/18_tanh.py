"""Elementwise hyperbolic tangent on a 3D fp32 tensor (B x C x L)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Activation",
    "dtype": "float32",
    "flops": "6 * B * C * L",
    "bytes": "2 * B * C * L * 4",
    "small": {"B": 2, "C": 6, "L": 100},
}

B = 6144
C = 96
L = 2048


class Model(nn.Module):
    """Applies tanh."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x)


def get_inputs():
    return [torch.randn(B, C, L) * 2]


def get_init_inputs():
    return []
