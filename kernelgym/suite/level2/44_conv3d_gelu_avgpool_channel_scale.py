"""3x3x3 Conv3d (no padding), exact GELU, 2x2x2 average pooling and a learned per-channel scale."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * COUT * (D - 2) * (H - 2) * (W - 2) * CIN * 27 + 10 * N * COUT * (D - 2) * (H - 2) * (W - 2)",
    "bytes": "4 * (N * CIN * D * H * W + COUT * CIN * 27 + 2 * COUT + N * COUT * ((D - 2) // 2) * ((H - 2) // 2) * ((W - 2) // 2))",
    "small": {"N": 2, "CIN": 3, "COUT": 6, "D": 6, "H": 8, "W": 7},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 16
CIN = 16
COUT = 32
D = 32
H = 64
W = 64


class Model(nn.Module):
    """out = avg_pool3d(gelu(conv3d_3x3x3(x)), 2) * scale, scale of shape (COUT, 1, 1, 1)."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, 3)
        self.scale = nn.Parameter(torch.rand(out_channels, 1, 1, 1) * 2.0 + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.avg_pool3d(F.gelu(self.conv(x)), 2) * self.scale


def get_inputs():
    return [torch.randn(N, CIN, D, H, W)]


def get_init_inputs():
    return [CIN, COUT]
