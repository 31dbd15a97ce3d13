"""2D max pooling with a 3x3 window, stride 2 and padding 1 on a batch of square feature maps."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Pooling",
    "dtype": "float32",
    "flops": "N * C * ((H + 2 * PAD - KSIZE) // STRIDE + 1) * ((W + 2 * PAD - KSIZE) // STRIDE + 1) * KSIZE * KSIZE",
    "bytes": "4 * (N * C * H * W + N * C * ((H + 2 * PAD - KSIZE) // STRIDE + 1) * ((W + 2 * PAD - KSIZE) // STRIDE + 1))",
    "small": {"N": 2, "C": 3, "H": 9, "W": 8},
}

N = 40
C = 64
H = 512
W = 512
KSIZE = 3
STRIDE = 2
PAD = 1


class Model(nn.Module):
    """nn.MaxPool2d(3, stride=2, padding=1) on an (N, C, H, W) tensor."""

    def __init__(self, kernel_size: int, stride: int, padding: int):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.pool(x)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [KSIZE, STRIDE, PAD]
