"""Dilated 3x3 Conv2d (dilation 2), Mish, 2x2 average pooling, then a learned per-channel scale."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * C * C * 9 * HW * HW + 12 * N * C * HW * HW",
    "bytes": "4 * (N * C * HW * HW + 9 * C * C + 2 * C + N * C * HW * HW // 4)",
    "small": {"N": 2, "C": 6, "HW": 10},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 32
C = 96
HW = 128


class Model(nn.Module):
    """Same-size dilated convolution, Mish, AvgPool2d(2), channel scaling."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=2, dilation=2)
        self.scale = nn.Parameter(1 + torch.rand(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.avg_pool2d(F.mish(self.conv(x)), 2)
        return y * self.scale[None, :, None, None]


def get_inputs():
    return [torch.randn(N, C, HW, HW) * 2]


def get_init_inputs():
    return [C]
