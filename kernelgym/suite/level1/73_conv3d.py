"""3D convolution with a 3x3x3 kernel and padding 1 (with bias) on video-like volumes."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * D * H * W * CIN * 27",
    "bytes": "4 * (N * CIN * D * H * W + COUT * CIN * 27 + COUT + N * COUT * D * H * W)",
    "small": {"N": 2, "CIN": 3, "COUT": 4, "D": 4, "H": 6, "W": 5},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 24
CIN = 16
COUT = 32
D = 48
H = 64
W = 64


class Model(nn.Module):
    """nn.Conv3d(in_channels, out_channels, 3, padding=1)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, D, H, W)]


def get_init_inputs():
    return [CIN, COUT]
