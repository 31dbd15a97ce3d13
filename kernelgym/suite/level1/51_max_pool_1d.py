"""1D max pooling (kernel 4, stride 2, padding 1) over long sequences of many channels."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Pooling",
    "dtype": "float32",
    "flops": "N * C * ((L + 2 * PAD - KSIZE) // STRIDE + 1) * KSIZE",
    "bytes": "4 * (N * C * L + N * C * ((L + 2 * PAD - KSIZE) // STRIDE + 1))",
    "small": {"N": 2, "C": 3, "L": 50},
}

N = 64
C = 128
L = 65536
KSIZE = 4
STRIDE = 2
PAD = 1


class Model(nn.Module):
    """Max pooling along the last axis of an (N, C, L) tensor."""

    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.MaxPool1d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, L)]


def get_init_inputs():
    return [KSIZE, STRIDE, PAD]
