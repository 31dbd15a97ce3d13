"""2D convolution with a square 3x3 kernel and padding 1 (with bias) on square images."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * H * W * CIN * 9",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * 9 + COUT + N * COUT * H * W)",
    "small": {"N": 2, "CIN": 4, "COUT": 8, "H": 8, "W": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 96
CIN = 64
COUT = 128
H = 128
W = 128


class Model(nn.Module):
    """nn.Conv2d(in_channels, out_channels, 3, padding=1)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]
