"""Transposed 2D convolution (4x4 kernel, stride 2, padding 1) that doubles the spatial size."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * CIN * COUT * H * W * 16",
    "bytes": "4 * (N * CIN * H * W + CIN * COUT * 16 + COUT + N * COUT * 4 * H * W)",
    "small": {"N": 2, "CIN": 4, "COUT": 3, "H": 5, "W": 6},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 112
CIN = 64
COUT = 32
H = 128
W = 128


class Model(nn.Module):
    """nn.ConvTranspose2d(in_channels, out_channels, 4, stride=2, padding=1)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, 4, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.deconv(x)


def get_inputs():
    # scaled so that the output is O(1)
    return [torch.randn(N, CIN, H, W) * 2]


def get_init_inputs():
    return [CIN, COUT]
