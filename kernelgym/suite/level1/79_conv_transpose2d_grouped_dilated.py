"""Grouped (4 groups), dilated (dilation 2) transposed 3x3 convolution with stride 1 and padding 2."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * CIN * (COUT // GROUPS) * H * W * 9",
    "bytes": "4 * (N * CIN * H * W + CIN * (COUT // GROUPS) * 9 + COUT + N * COUT * H * W)",
    "small": {"N": 2, "CIN": 4, "COUT": 8, "GROUPS": 2, "H": 7, "W": 6},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 16
CIN = 128
COUT = 128
GROUPS = 4
H = 192
W = 192


class Model(nn.Module):
    """nn.ConvTranspose2d(in_channels, out_channels, 3, padding=2, dilation=2, groups=groups): output keeps H x W."""

    def __init__(self, in_channels: int, out_channels: int, groups: int):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, 3, padding=2, dilation=2, groups=groups)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.deconv(x)


def get_inputs():
    # scaled so that the output is O(1)
    return [torch.randn(N, CIN, H, W) * 2]


def get_init_inputs():
    return [CIN, COUT, GROUPS]
