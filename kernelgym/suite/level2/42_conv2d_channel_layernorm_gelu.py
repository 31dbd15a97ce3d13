"""3x3 same-padded Conv2d, LayerNorm over the channel dimension at each pixel, then exact GELU."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * COUT * H * W * CIN * KS * KS + 16 * N * COUT * H * W",
    "bytes": "4 * (N * CIN * H * W + COUT * CIN * KS * KS + 3 * COUT + N * COUT * H * W)",
    "small": {"N": 2, "CIN": 4, "COUT": 12, "H": 7, "W": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 64
CIN = 64
COUT = 96
H = 96
W = 96
KS = 3


class Model(nn.Module):
    """y = conv2d(x, padding=KS // 2); out = gelu(LayerNorm(COUT) applied over channels per pixel), NCHW."""

    def __init__(self, in_channels, out_channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2)
        self.norm = nn.LayerNorm(out_channels, eps=1e-6)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x).permute(0, 2, 3, 1)
        return F.gelu(self.norm(y)).permute(0, 3, 1, 2)


def get_inputs():
    return [torch.randn(N, CIN, H, W)]


def get_init_inputs():
    return [CIN, COUT, KS]
