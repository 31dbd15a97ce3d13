"""Conv3d, GroupNorm, LeakyReLU, then mean over the spatial dims to (N, C_out), on inputs with per-channel offsets."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * CIN * COUT * 27 * S * S * S + 12 * N * COUT * S * S * S",
    "bytes": "4 * (N * CIN * S * S * S + 27 * CIN * COUT + 3 * COUT + N * COUT)",
    "small": {"N": 2, "CIN": 3, "COUT": 8, "S": 6, "G": 2},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 16
CIN = 32
COUT = 64
S = 32
G = 8


class Model(nn.Module):
    """3x3x3 conv, GroupNorm(G), LeakyReLU(0.1), global spatial mean."""

    def __init__(self, in_channels, out_channels, groups):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, 3, padding=1)
        self.norm = nn.GroupNorm(groups, out_channels)
        nn.init.uniform_(self.norm.weight, 0.5, 1.5)  # not the defaults (1, 0): a kernel must read them
        nn.init.uniform_(self.norm.bias, -0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.leaky_relu(self.norm(self.conv(x)), 0.1).mean(dim=(2, 3, 4))


def get_inputs():
    return [torch.randn(N, CIN, S, S, S) + torch.randn(N, CIN, 1, 1, 1)]


def get_init_inputs():
    return [CIN, COUT, G]
