"""Pixel unshuffle (space-to-depth) with downscale factor 2: (B, C, H, W) -> (B, 4C, H/2, W/2)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "SpatialOps",
    "level": 1,
    "dtype": "float32",
    "flops": "0",
    "bytes": "2 * 4 * B * C * H * W",
    "small": {"B": 2, "C": 3, "H": 8, "W": 14},
}

B = 40
C = 48
H = 512
W = 768
R = 2


class Model(nn.Module):
    """out[b, c*4 + i*2 + j, h, w] = x[b, c, 2h + i, 2w + j]."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.pixel_unshuffle(x, R)


def get_inputs():
    return [torch.randn(B, C, H, W)]


def get_init_inputs():
    return []
