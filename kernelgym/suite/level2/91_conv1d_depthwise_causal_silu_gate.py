"""Mamba-style short causal depthwise Conv1d (kernel 4) with SiLU, gated by SiLU of a second input z."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * B * D * L * KS + 10 * B * D * L",
    "bytes": "4 * (3 * B * D * L + KS * D + D)",
    "small": {"B": 2, "D": 12, "L": 40},
    "atol": 1e-2, "rtol": 1e-2,
}

B = 16
D = 2048
L = 4096
KS = 4


class Model(nn.Module):
    """Depthwise causal convolution over time, SiLU, multiply by SiLU(z)."""

    def __init__(self, channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel_size, groups=channels, padding=kernel_size - 1)

    def forward(self, x: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)[..., : x.shape[-1]]
        return F.silu(y) * F.silu(z)


def get_inputs():
    return [torch.randn(B, D, L) * 2, torch.randn(B, D, L) * 2]


def get_init_inputs():
    return [D, KS]
