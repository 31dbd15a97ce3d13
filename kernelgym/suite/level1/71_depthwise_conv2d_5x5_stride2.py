"""Depthwise 5x5 convolution with stride 2, padding 2 and no bias (MobileNet-style downsampling)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * C * ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1) * 25",
    "bytes": "4 * (N * C * H * W + C * 25 + N * C * ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1))",
    "small": {"N": 2, "C": 3, "H": 11, "W": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 64
C = 96
H = 320
W = 320


class Model(nn.Module):
    """nn.Conv2d(channels, channels, 5, stride=2, padding=2, groups=channels, bias=False)."""

    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 5, stride=2, padding=2, groups=channels, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [C]
