"""ConvTranspose3d upsampling by 2 (kernel 4, padding 1), GroupNorm, then SiLU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * CIN * COUT * 64 * S * S * S + 80 * N * COUT * S * S * S",
    "bytes": "4 * (N * CIN * S * S * S + 64 * CIN * COUT + 3 * COUT + 8 * N * COUT * S * S * S)",
    "small": {"N": 2, "CIN": 4, "COUT": 4, "S": 4, "G": 2},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 8
CIN = 64
COUT = 32
S = 24
G = 8


class Model(nn.Module):
    """Stride-2 3D transposed convolution, GroupNorm(G) with affine parameters, SiLU."""

    def __init__(self, in_channels, out_channels, groups):
        super().__init__()
        self.deconv = nn.ConvTranspose3d(in_channels, out_channels, 4, stride=2, padding=1)
        self.norm = nn.GroupNorm(groups, out_channels)
        with torch.no_grad():
            self.norm.weight.copy_(1 + 0.3 * torch.randn(out_channels))
            self.norm.bias.copy_(0.3 * torch.randn(out_channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(self.norm(self.deconv(x)))


def get_inputs():
    return [torch.randn(N, CIN, S, S, S)]


def get_init_inputs():
    return [CIN, COUT, G]
