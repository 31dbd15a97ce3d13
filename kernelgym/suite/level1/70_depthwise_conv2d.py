"""Depthwise 3x3 convolution (groups = channels, padding 1, with bias) on 256x256 feature maps."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * C * H * W * 9",
    "bytes": "4 * (2 * N * C * H * W + C * 9 + C)",
    "small": {"N": 2, "C": 3, "H": 9, "W": 10},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 48
C = 128
H = 256
W = 256


class Model(nn.Module):
    """nn.Conv2d(channels, channels, 3, padding=1, groups=channels)."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1, groups=channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [C]
