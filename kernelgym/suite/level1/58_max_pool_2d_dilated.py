"""2D max pooling with a dilated 3x3 window (dilation 2), stride 2 and padding 1."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Pooling",
    "dtype": "float32",
    "flops": "N * C * ((H + 2 * PAD - DIL * (KSIZE - 1) - 1) // STRIDE + 1) * ((W + 2 * PAD - DIL * (KSIZE - 1) - 1) // STRIDE + 1) * KSIZE * KSIZE",
    "bytes": "4 * (N * C * H * W + N * C * ((H + 2 * PAD - DIL * (KSIZE - 1) - 1) // STRIDE + 1) * ((W + 2 * PAD - DIL * (KSIZE - 1) - 1) // STRIDE + 1))",
    "small": {"N": 2, "C": 3, "H": 11, "W": 9},
}

N = 96
C = 48
H = 384
W = 384
KSIZE = 3
STRIDE = 2
PAD = 1
DIL = 2


class Model(nn.Module):
    """nn.MaxPool2d(3, stride=2, padding=1, dilation=2)."""

    def __init__(self, kernel_size: int, stride: int, padding: int, dilation: int):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [KSIZE, STRIDE, PAD, DIL]
