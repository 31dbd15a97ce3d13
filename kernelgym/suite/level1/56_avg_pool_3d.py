"""3D average pooling (3x3x3, stride 2, padding 1, padding counted) of a batch of cubic volumes."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Pooling",
    "dtype": "float32",
    "flops": "N * C * ((S + 2 * PAD - KSIZE) // STRIDE + 1) ** 3 * KSIZE ** 3",
    "bytes": "4 * (N * C * S ** 3 + N * C * ((S + 2 * PAD - KSIZE) // STRIDE + 1) ** 3)",
    "small": {"N": 2, "C": 3, "S": 7},
}

N = 24
C = 32
S = 96
KSIZE = 3
STRIDE = 2
PAD = 1


class Model(nn.Module):
    """nn.AvgPool3d(3, stride=2, padding=1) on an (N, C, S, S, S) tensor."""

    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.AvgPool3d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, S, S, S)]


def get_init_inputs():
    return [KSIZE, STRIDE, PAD]
