"""ResNet-style stem: 7x7 convolution, stride 2, padding 3, 3 -> 64 channels, no bias."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1) * CIN * 49",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * 49 + N * COUT * ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1))",
    "small": {"N": 2, "COUT": 8, "H": 12, "W": 11},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 48
CIN = 3
COUT = 64
H = 448
W = 448


class Model(nn.Module):
    """nn.Conv2d(3, COUT, 7, stride=2, padding=3, bias=False)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 7, stride=2, padding=3, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]
