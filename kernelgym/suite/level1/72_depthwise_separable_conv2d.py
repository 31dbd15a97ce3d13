"""Depthwise-separable convolution: depthwise 3x3 (no bias) followed by a pointwise 1x1 (with bias)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * H * W * CIN * 9 + 2 * N * H * W * CIN * COUT",
    "bytes": "4 * (N * CIN * H * W + CIN * 9 + COUT * CIN + COUT + N * COUT * H * W)",
    "small": {"N": 2, "CIN": 4, "COUT": 6, "H": 8, "W": 9},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 96
CIN = 64
COUT = 128
H = 160
W = 160


class Model(nn.Module):
    """Depthwise nn.Conv2d(CIN, CIN, 3, padding=1, groups=CIN) then nn.Conv2d(CIN, COUT, 1)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.depthwise = nn.Conv2d(in_channels, in_channels, 3, padding=1, groups=in_channels, bias=False)
        self.pointwise = nn.Conv2d(in_channels, out_channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pointwise(self.depthwise(x))


def get_inputs():
    # scaled so that the output is O(1)
    return [torch.randn(N, CIN, H, W) * 2]


def get_init_inputs():
    return [CIN, COUT]
