"""Dilated (atrous) 3x3 convolution with dilation 2 and padding 2, preserving spatial size."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * H * W * CIN * 9",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * 9 + COUT + N * COUT * H * W)",
    "small": {"N": 2, "CIN": 4, "COUT": 4, "H": 9, "W": 10},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 96
CIN = 64
COUT = 64
H = 192
W = 192
DIL = 2


class Model(nn.Module):
    """nn.Conv2d(CIN, COUT, 3, padding=2, dilation=2)."""

    def __init__(self, in_channels: int, out_channels: int, dilation: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=dilation, dilation=dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT, DIL]
