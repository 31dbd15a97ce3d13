"""2D convolution with a 5x3 kernel, stride (1, 2) and padding (2, 1) on odd-sized images."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * H * ((W - 1) // 2 + 1) * CIN * 15",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * 15 + COUT + N * COUT * H * ((W - 1) // 2 + 1))",
    "small": {"N": 2, "CIN": 3, "COUT": 5, "H": 9, "W": 11},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 128
CIN = 32
COUT = 64
H = 255
W = 191


class Model(nn.Module):
    """nn.Conv2d(in_channels, out_channels, (5, 3), stride=(1, 2), padding=(2, 1))."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, (5, 3), stride=(1, 2), padding=(2, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]
