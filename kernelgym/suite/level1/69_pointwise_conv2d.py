"""Pointwise (1x1) 2D convolution projecting 128 -> 256 channels, with bias."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * H * W * CIN * COUT",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN + COUT + N * COUT * H * W)",
    "small": {"N": 2, "CIN": 12, "COUT": 20, "H": 8, "W": 7},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 224
CIN = 128
COUT = 256
H = 96
W = 96


class Model(nn.Module):
    """nn.Conv2d(in_channels, out_channels, kernel_size=1)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]
