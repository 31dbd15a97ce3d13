"""2D average pooling (3x3, stride 2, padding 1) that excludes the zero padding from each average."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Pooling",
    "dtype": "float32",
    "flops": "N * C * ((H + 2 * PAD - KSIZE) // STRIDE + 1) * ((W + 2 * PAD - KSIZE) // STRIDE + 1) * KSIZE * KSIZE",
    "bytes": "4 * (N * C * H * W + N * C * ((H + 2 * PAD - KSIZE) // STRIDE + 1) * ((W + 2 * PAD - KSIZE) // STRIDE + 1))",
    "small": {"N": 2, "C": 3, "H": 10, "W": 7},
}

N = 40
C = 96
H = 400
W = 400
KSIZE = 3
STRIDE = 2
PAD = 1


class Model(nn.Module):
    """nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False)."""

    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.AvgPool2d(kernel_size=kernel_size, stride=stride, padding=padding, count_include_pad=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [KSIZE, STRIDE, PAD]
