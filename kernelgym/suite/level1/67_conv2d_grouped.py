"""Grouped 3x3 convolution: 192 -> 384 channels in 6 groups, padding 1."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * H * W * (CIN // GROUPS) * 9",
    "bytes": "4 * (N * CIN * H * W + COUT * (CIN // GROUPS) * 9 + COUT + N * COUT * H * W)",
    "small": {"N": 2, "CIN": 6, "COUT": 12, "GROUPS": 3, "H": 8, "W": 7},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 160
CIN = 192
COUT = 384
GROUPS = 6
H = 64
W = 64


class Model(nn.Module):
    """nn.Conv2d(in_channels, out_channels, 3, padding=1, groups=groups)."""

    def __init__(self, in_channels: int, out_channels: int, groups: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 3, padding=1, groups=groups)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT, GROUPS]
