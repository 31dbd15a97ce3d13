"""CBAM spatial attention: x * sigmoid(Conv2d_7x7(cat[mean_c(x), max_c(x)])), a channel reduction feeding a tiny conv."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "4 * N * C * HW * HW + 2 * N * 2 * 49 * HW * HW + 4 * N * HW * HW",
    "bytes": "4 * (2 * N * C * HW * HW + 2 * 49 + 1)",
    "small": {"N": 2, "C": 10, "HW": 9},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 64
C = 256
HW = 112


class Model(nn.Module):
    """Channel mean and max maps, 7x7 conv to one attention map, sigmoid, broadcast multiply with x."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 1, 7, padding=3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        pooled = torch.cat([x.mean(dim=1, keepdim=True), x.amax(dim=1, keepdim=True)], dim=1)
        return x * torch.sigmoid(self.conv(pooled))


def get_inputs():
    return [torch.randn(N, C, HW, HW) + torch.randn(N, 1, HW, HW)]


def get_init_inputs():
    return []
