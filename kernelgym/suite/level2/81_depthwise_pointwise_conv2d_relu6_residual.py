"""MobileNet-style separable block: x + Conv1x1(relu6(DepthwiseConv3x3(x)))."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * C * HW * HW * (9 + C) + 4 * N * C * HW * HW",
    "bytes": "4 * (2 * N * C * HW * HW + 9 * C + C * C + 2 * C)",
    "small": {"N": 2, "C": 8, "HW": 9},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 32
C = 256
HW = 96


class Model(nn.Module):
    """Depthwise 3x3 conv with bias, ReLU6, pointwise conv, residual add."""

    def __init__(self, channels):
        super().__init__()
        self.dw = nn.Conv2d(channels, channels, 3, padding=1, groups=channels)
        self.pw = nn.Conv2d(channels, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.pw(F.relu6(self.dw(x)))


def get_inputs():
    return [torch.randn(N, C, HW, HW)]


def get_init_inputs():
    return [C]
