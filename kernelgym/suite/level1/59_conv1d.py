"""1D convolution (kernel 5, 'same' padding, with bias) over long multichannel sequences."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * L * CIN * KSIZE",
    "bytes": "4 * (N * CIN * L + COUT * CIN * KSIZE + COUT + N * COUT * L)",
    "small": {"N": 2, "CIN": 4, "COUT": 6, "L": 30},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 128
CIN = 64
COUT = 128
L = 16384
KSIZE = 5


class Model(nn.Module):
    """nn.Conv1d(CIN, COUT, 5, padding=2)."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int):
        super().__init__()
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, L)]


def get_init_inputs():
    return [CIN, COUT, KSIZE]
