"""Transposed 3D convolution (3x3x3, stride 2, padding 1, output_padding 1) doubling each dimension."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * CIN * COUT * S ** 3 * 27",
    "bytes": "4 * (N * CIN * S ** 3 + CIN * COUT * 27 + COUT + N * COUT * 8 * S ** 3)",
    "small": {"N": 2, "CIN": 3, "COUT": 2, "S": 4},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 12
CIN = 64
COUT = 32
S = 32


class Model(nn.Module):
    """nn.ConvTranspose3d(in_channels, out_channels, 3, stride=2, padding=1, output_padding=1): (S, S, S) -> (2S, 2S, 2S)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.deconv = nn.ConvTranspose3d(in_channels, out_channels, 3, stride=2, padding=1, output_padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.deconv(x)


def get_inputs():
    # scaled so that the output is O(1)
    return [torch.randn(N, CIN, S, S, S) * 2]


def get_init_inputs():
    return [CIN, COUT]
