"""3x3 same-padded Conv2d, 2x2 max pooling, HardSwish and a learned per-channel scale."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * COUT * H * W * CIN * KS * KS + N * COUT * H * W + 5 * N * COUT * (H // 2) * (W // 2)",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * KS * KS + 2 * COUT + N * COUT * (H // 2) * (W // 2))",
    "small": {"N": 2, "CIN": 4, "COUT": 6, "H": 10, "W": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 64
CIN = 64
COUT = 64
H = 128
W = 128
KS = 3


class Model(nn.Module):
    """out = hardswish(max_pool2d(conv2d(x, padding=KS // 2), 2)) * scale, scale of shape (COUT, 1, 1)."""

    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.scale = nn.Parameter(torch.rand(out_channels, 1, 1) * 1.5 + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.max_pool2d(self.conv(x), 2)
        return F.hardswish(y) * self.scale


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT, KS]
