"""2D convolution with an asymmetric 3x7 kernel and matching (1, 3) padding."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * H * W * CIN * KH * KW",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * KH * KW + COUT + N * COUT * H * W)",
    "small": {"N": 2, "CIN": 3, "COUT": 4, "H": 6, "W": 10},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 80
CIN = 32
COUT = 64
H = 160
W = 256
KH = 3
KW = 7


class Model(nn.Module):
    """nn.Conv2d(CIN, COUT, (3, 7), padding=(1, 3))."""

    def __init__(self, in_channels: int, out_channels: int, kernel_h: int, kernel_w: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, (kernel_h, kernel_w), padding=(kernel_h // 2, kernel_w // 2))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT, KH, KW]
