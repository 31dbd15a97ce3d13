"""3D max pooling (3x3x3 window, stride 2, padding 1) of volumetric feature maps."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Pooling",
    "dtype": "float32",
    "flops": "N * C * ((D + 2 * PAD - KSIZE) // STRIDE + 1) * ((H + 2 * PAD - KSIZE) // STRIDE + 1) * ((W + 2 * PAD - KSIZE) // STRIDE + 1) * KSIZE ** 3",
    "bytes": "4 * (N * C * D * H * W + N * C * ((D + 2 * PAD - KSIZE) // STRIDE + 1) * ((H + 2 * PAD - KSIZE) // STRIDE + 1) * ((W + 2 * PAD - KSIZE) // STRIDE + 1))",
    "small": {"N": 2, "C": 2, "D": 6, "H": 7, "W": 8},
}

N = 20
C = 32
D = 64
H = 128
W = 128
KSIZE = 3
STRIDE = 2
PAD = 1


class Model(nn.Module):
    """nn.MaxPool3d over an (N, C, D, H, W) volume."""

    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.MaxPool3d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, D, H, W)]


def get_init_inputs():
    return [KSIZE, STRIDE, PAD]
