"""Circular shift then horizontal flip of the spatial dims: torch.flip(torch.roll(x, shifts=(SH, SW), dims=(2, 3)), dims=(3,))."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "SpatialOps",
    "level": 1,
    "dtype": "float32",
    "flops": "0",
    "bytes": "2 * 4 * B * C * H * W",
    "small": {"B": 2, "C": 3, "H": 11, "W": 13},
}

B = 16
C = 64
H = 250
W = 375
SH = 37
SW = -101


class Model(nn.Module):
    """out[b, c, i, j] = x[b, c, (i - SH) mod H, (W - 1 - j - SW) mod W]."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.flip(torch.roll(x, shifts=(SH, SW), dims=(2, 3)), dims=(3,))


def get_inputs():
    return [torch.randn(B, C, H, W)]


def get_init_inputs():
    return []
