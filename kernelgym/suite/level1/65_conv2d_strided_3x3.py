"""Downsampling 3x3 convolution with stride 2 and padding 1 (128 -> 256 channels, with bias)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1) * CIN * 9",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * 9 + COUT + N * COUT * ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1))",
    "small": {"N": 2, "CIN": 4, "COUT": 8, "H": 9, "W": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 192
CIN = 128
COUT = 256
H = 112
W = 112


class Model(nn.Module):
    """nn.Conv2d(in_channels, out_channels, 3, stride=2, padding=1)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]
