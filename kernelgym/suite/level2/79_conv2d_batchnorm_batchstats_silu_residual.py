"""Residual conv block: x + silu(BatchNorm2d(Conv2d_3x3(x))) with BatchNorm using the batch's own statistics."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * C * C * 9 * HW * HW + 16 * N * C * HW * HW",
    "bytes": "4 * (2 * N * C * HW * HW + 9 * C * C + 3 * C)",
    "small": {"N": 2, "C": 6, "HW": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 48
C = 128
HW = 128


class Model(nn.Module):
    """Same-channel 3x3 convolution, batch-statistics BatchNorm2d, SiLU, residual add."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels, track_running_stats=False)
        with torch.no_grad():
            self.bn.weight.copy_(1 + 0.3 * torch.randn(channels))
            self.bn.bias.copy_(0.3 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + F.silu(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(N, C, HW, HW)]


def get_init_inputs():
    return [C]
