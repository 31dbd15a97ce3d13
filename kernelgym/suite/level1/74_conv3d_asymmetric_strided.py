"""3D convolution with a 3x5x5 kernel, stride (1, 2, 2) and padding (1, 2, 2), without bias."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Convolution",
    "dtype": "float32",
    "flops": "2 * N * COUT * D * ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1) * CIN * 75",
    "bytes": "4 * (N * CIN * D * H * W + COUT * CIN * 75 + N * COUT * D * ((H - 1) // 2 + 1) * ((W - 1) // 2 + 1))",
    "small": {"N": 2, "CIN": 3, "COUT": 4, "D": 3, "H": 8, "W": 7},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 12
CIN = 32
COUT = 64
D = 16
H = 128
W = 128


class Model(nn.Module):
    """nn.Conv3d(in_channels, out_channels, (3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2), bias=False)."""

    def __init__(self, in_channels: int, out_channels: int):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, (3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2), bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.conv(x)


def get_inputs():
    return [torch.randn(N, CIN, D, H, W)]


def get_init_inputs():
    return [CIN, COUT]
