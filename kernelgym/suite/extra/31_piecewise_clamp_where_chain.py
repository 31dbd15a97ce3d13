"""Piecewise elementwise function built from clamp and nested where: cubic in the middle, log1p on the right, parabola on the left, clamped output."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Math",
    "level": 1,
    "dtype": "float32",
    "flops": "10 * R * C",
    "bytes": "2 * 4 * R * C",
    "small": {"R": 37, "C": 111},
}

R = 16384
C = 6144


class Model(nn.Module):
    """t = clamp(x, -4, 4); y = log1p(t)+0.3 if t > 1, 0.5 t^2 - 1.2 if t < -1, else 0.25 t^3 + 0.5 t; clamp(y, -1, 1.5)."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        t = torch.clamp(x, -4.0, 4.0)
        right = torch.log1p(t) + 0.3
        left = 0.5 * t * t - 1.2
        mid = 0.25 * t * t * t + 0.5 * t
        y = torch.where(t > 1.0, right, torch.where(t < -1.0, left, mid))
        return torch.clamp(y, -1.0, 1.5)


def get_inputs():
    return [torch.randn(R, C) * 2.0]


def get_init_inputs():
    return []
