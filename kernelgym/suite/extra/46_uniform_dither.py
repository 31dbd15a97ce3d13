"""Uniform dithering: y = x + WIDTH * (U(0, 1) - 0.5) with fresh uniform noise per call (statistical check: mean of x, std sqrt(var(x) + WIDTH^2 / 12))."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Random",
    "level": 1,
    "dtype": "float32",
    "check": "statistical",
    "flops": "3 * R * C",
    "bytes": "2 * 4 * R * C",
    "small": {"R": 200, "C": 400},
}

R = 12288
C = 16384
WIDTH = 3.0


class Model(nn.Module):
    """x in [-0.5, 0.5) has std 0.29; the dithered output has std ~0.93."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + WIDTH * (torch.rand_like(x) - 0.5)


def get_inputs():
    return [torch.rand(R, C) - 0.5]


def get_init_inputs():
    return []
