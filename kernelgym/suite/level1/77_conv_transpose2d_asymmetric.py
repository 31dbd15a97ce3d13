"""Transposed 2D convolution with a 3x5 kernel, stride (1, 2), padding (1, 2), output_padding (0, 1)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * CIN * COUT * H * W * 15",
    "bytes": "4 * (N * CIN * H * W + CIN * COUT * 15 + COUT + N * COUT * H * 2 * W)",
    "small": {"N": 2, "CIN": 3, "COUT": 4, "H": 5, "W": 7},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 144
CIN = 64
COUT = 64
H = 96
W = 128


class Model(nn.Module):
    """nn.ConvTranspose2d(in_channels, out_channels, (3, 5), stride=(1, 2), padding=(1, 2), output_padding=(0, 1)):
    output (N, COUT, H, 2 * W)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, (3, 5), stride=(1, 2), padding=(1, 2), output_padding=(0, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.deconv(x)


def get_inputs():
    # scaled so that the output is O(1)
    return [torch.randn(N, CIN, H, W) * 2]


def get_init_inputs():
    return [CIN, COUT]
