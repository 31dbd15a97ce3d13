"""2D 5x5 'valid' convolution (no padding) on wide rectangular inputs (64 x 512)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * (H - KSIZE + 1) * (W - KSIZE + 1) * CIN * KSIZE * KSIZE",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * KSIZE * KSIZE + COUT + N * COUT * (H - KSIZE + 1) * (W - KSIZE + 1))",
    "small": {"N": 2, "CIN": 3, "COUT": 5, "H": 7, "W": 12},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 80
CIN = 24
COUT = 96
H = 64
W = 512
KSIZE = 5


class Model(nn.Module):
    """nn.Conv2d(CIN, COUT, 5) without padding."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT, KSIZE]
