"""Mamba-style short causal depthwise conv1d (kernel 4, left padding) with bias, followed by SiLU; x is (B, D, L)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Convolution",
    "level": 2,
    "dtype": "float32",
    "flops": "2 * KW * B * D * L + 4 * B * D * L",
    "bytes": "4 * (2 * B * D * L + D * KW + D)",
    "small": {"B": 2, "D": 24, "L": 50},
}

B = 8
D = 5120
L = 2048
KW = 4


class Model(nn.Module):
    """y[b, d, t] = silu(bias[d] + sum_j w[d, j] * x[b, d, t - (KW - 1) + j]) with x = 0 for negative times."""

    def __init__(self, channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel_size=kernel_size, groups=channels, padding=kernel_size - 1,
                              bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.conv(x)[..., : x.shape[-1]])


def get_inputs():
    return [torch.randn(B, D, L)]


def get_init_inputs():
    return [D, KW]
