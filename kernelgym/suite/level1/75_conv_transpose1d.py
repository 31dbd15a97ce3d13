"""Transposed 1D convolution (kernel 4, stride 2, padding 1) that upsamples sequences by 2x."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * CIN * COUT * L * KSIZE",
    "bytes": "4 * (N * CIN * L + CIN * COUT * KSIZE + COUT + N * COUT * 2 * L)",
    "small": {"N": 2, "CIN": 4, "COUT": 3, "L": 13},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 224
CIN = 128
COUT = 64
L = 8192
KSIZE = 4


class Model(nn.Module):
    """nn.ConvTranspose1d(CIN, COUT, 4, stride=2, padding=1): output length 2 * L."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.deconv = nn.ConvTranspose1d(in_channels, out_channels, kernel_size, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.deconv(x)


def get_inputs():
    return [torch.randn(N, CIN, L)]


def get_init_inputs():
    return [CIN, COUT, KSIZE]
