"""3x3 same-padded Conv2d, InstanceNorm2d (per-sample, per-channel statistics) and LeakyReLU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * COUT * H * W * CIN * KS * KS + 8 * N * COUT * H * W",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * KS * KS + COUT + N * COUT * H * W)",
    "small": {"N": 2, "CIN": 4, "COUT": 6, "H": 8, "W": 9},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 32
CIN = 64
COUT = 128
H = 128
W = 128
KS = 3
NEG_SLOPE = 0.2


class Model(nn.Module):
    """out = leaky_relu(instance_norm(conv2d(x, padding=KS // 2)), NEG_SLOPE)."""

    def __init__(self, in_channels, out_channels, kernel_size, negative_slope):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.norm = nn.InstanceNorm2d(out_channels, eps=1e-5)
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(self.norm(self.conv(x)), self.negative_slope)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT, KS, NEG_SLOPE]
