"""ConvTranspose1d upsampling by 2 (kernel 4, padding 1), GELU, then GroupNorm."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * CIN * COUT * 4 * L + 28 * N * COUT * L",
    "bytes": "4 * (N * CIN * L + 4 * CIN * COUT + 3 * COUT + 2 * N * COUT * L)",
    "small": {"N": 2, "CIN": 8, "COUT": 8, "L": 16, "G": 2},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 256
CIN = 256
COUT = 128
L = 2048
G = 16


class Model(nn.Module):
    """Stride-2 transposed convolution doubling the length, exact GELU, GroupNorm(G)."""

    def __init__(self, in_channels, out_channels, groups):
        super().__init__()
        self.deconv = nn.ConvTranspose1d(in_channels, out_channels, 4, stride=2, padding=1)
        self.norm = nn.GroupNorm(groups, out_channels)
        nn.init.uniform_(self.norm.weight, 0.5, 1.5)  # not the defaults (1, 0): a kernel must read them
        nn.init.uniform_(self.norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(F.gelu(self.deconv(x)))


def get_inputs():
    return [torch.randn(N, CIN, L)]


def get_init_inputs():
    return [CIN, COUT, G]
