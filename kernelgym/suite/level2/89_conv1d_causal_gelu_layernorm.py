"""Causal Conv1d (left zero padding), GELU, then LayerNorm across channels at every time step."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * C * C * KS * L + 20 * N * C * L",
    "bytes": "4 * (2 * N * C * L + KS * C * C + 3 * C)",
    "small": {"N": 2, "C": 12, "L": 30, "KS": 3},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 32
C = 512
L = 2048
KS = 5


class Model(nn.Module):
    """Left-padded (causal) convolution over time, exact GELU, channel LayerNorm via transposes."""

    def __init__(self, channels, kernel_size):
        super().__init__()
        self.kernel_size = kernel_size
        self.conv = nn.Conv1d(channels, channels, kernel_size)
        self.norm = nn.LayerNorm(channels)
        nn.init.uniform_(self.norm.weight, 0.5, 1.5)  # not the defaults (1, 0): a kernel must read them
        nn.init.uniform_(self.norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.gelu(self.conv(F.pad(x, (self.kernel_size - 1, 0))))
        return self.norm(y.transpose(1, 2)).transpose(1, 2)


def get_inputs():
    return [torch.randn(N, C, L)]


def get_init_inputs():
    return [C, KS]
