"""NCHW -> NHWC permutation followed by a per-channel affine transform, materialised contiguously."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Math",
    "dtype": "float32",
    "flops": "2 * N * C * H * W",
    "bytes": "4 * (2 * N * C * H * W + 2 * C)",
    "small": {"N": 2, "C": 5, "H": 7, "W": 6},
}

N = 64
C = 96
H = 224
W = 224


class Model(nn.Module):
    """(x.permute(0, 2, 3, 1) * weight + bias).contiguous(): output (N, H, W, C)."""

    def __init__(self, channels: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(channels))
        self.bias = nn.Parameter(torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return (x.permute(0, 2, 3, 1) * self.weight + self.bias).contiguous()


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [C]
