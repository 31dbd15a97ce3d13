"""3x3 Conv2d (no padding), ReLU, then a learned per-channel bias add."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * COUT * (H - KS + 1) * (W - KS + 1) * CIN * KS * KS + 2 * N * COUT * (H - KS + 1) * (W - KS + 1)",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * KS * KS + 2 * COUT + N * COUT * (H - KS + 1) * (W - KS + 1))",
    "small": {"N": 2, "CIN": 4, "COUT": 8, "H": 9, "W": 10},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 64
CIN = 64
COUT = 128
H = 128
W = 128
KS = 3


class Model(nn.Module):
    """out = relu(conv2d(x)) + bias, bias of shape (COUT, 1, 1)."""

    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(out_channels, 1, 1) * 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x)) + self.bias


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT, KS]
