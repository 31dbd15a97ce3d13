"""Additive Gaussian noise: y = x + SIGMA * N(0, 1) with fresh noise per call (statistical check: mean ~0.5, std ~sqrt(1 + SIGMA^2))."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Random",
    "level": 1,
    "dtype": "float32",
    "check": "statistical",
    "flops": "2 * N",
    "bytes": "2 * 4 * N",
    "small": {"N": 131072},
}

N = 268_435_456
SIGMA = 0.75


class Model(nn.Module):
    """x + SIGMA * randn_like(x); without the noise the std would be 1.0 instead of 1.25."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + SIGMA * torch.randn_like(x)


def get_inputs():
    return [torch.randn(N) + 0.5]


def get_init_inputs():
    return []
