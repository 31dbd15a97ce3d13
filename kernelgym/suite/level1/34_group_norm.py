"""GroupNorm with G groups and per-channel affine parameters on an N x C x H x W fp32 tensor."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Normalization",
    "dtype": "float32",
    "flops": "7 * N * C * H * W",
    "bytes": "2 * N * C * H * W * 4 + 2 * C * 4",
    "small": {"N": 2, "G": 3, "C": 12, "H": 6, "W": 7},
    "atol": 1e-3, "rtol": 1e-3,
}

N = 32
G = 24
C = 384
H = 128
W = 128


class Model(nn.Module):
    """nn.GroupNorm(G, C) with randomly initialised affine parameters."""

    def __init__(self, groups: int, channels: int, eps: float = 1e-5):
        super().__init__()
        self.norm = nn.GroupNorm(groups, channels, eps=eps)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(channels))
            self.norm.bias.copy_(0.5 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs():
    return [torch.randn(N, C, H, W) * 2 - 0.5]


def get_init_inputs():
    return [G, C]
