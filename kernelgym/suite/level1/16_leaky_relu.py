"""Elementwise LeakyReLU with negative slope 0.1 on a 3D fp32 tensor (N x L x C)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Activation",
    "dtype": "float32",
    "flops": "2 * N * L * C",
    "bytes": "2 * N * L * C * 4",
    "small": {"N": 2, "L": 16, "C": 30},
}

N = 192
L = 2048
C = 3000


class Model(nn.Module):
    """Applies LeakyReLU with a configurable negative slope."""

    def __init__(self, negative_slope: float = 0.1):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(x, negative_slope=self.negative_slope)


def get_inputs():
    return [torch.randn(N, L, C)]


def get_init_inputs():
    return [0.1]
