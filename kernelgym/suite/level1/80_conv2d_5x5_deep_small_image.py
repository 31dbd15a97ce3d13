"""5x5 convolution with padding 2 and no bias on deep (256-channel) but small (28x28) feature maps."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * H * W * CIN * 25",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * 25 + N * COUT * H * W)",
    "small": {"N": 2, "CIN": 8, "COUT": 8, "H": 6, "W": 6},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 80
CIN = 256
COUT = 256
H = 28
W = 28


class Model(nn.Module):
    """nn.Conv2d(in_channels, out_channels, 5, padding=2, bias=False)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, 5, padding=2, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT]
