"""1D average pooling (kernel 8, stride 4, zero padding 2 counted in the average) over long signals."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Pooling",
    "dtype": "float32",
    "flops": "N * C * ((L + 2 * PAD - KSIZE) // STRIDE + 1) * KSIZE",
    "bytes": "4 * (N * C * L + N * C * ((L + 2 * PAD - KSIZE) // STRIDE + 1))",
    "small": {"N": 2, "C": 5, "L": 70},
}

N = 64
C = 96
L = 100000
KSIZE = 8
STRIDE = 4
PAD = 2


class Model(nn.Module):
    """nn.AvgPool1d(8, stride=4, padding=2) on an (N, C, L) tensor (count_include_pad=True)."""

    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.AvgPool1d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, L)]


def get_init_inputs():
    return [KSIZE, STRIDE, PAD]
