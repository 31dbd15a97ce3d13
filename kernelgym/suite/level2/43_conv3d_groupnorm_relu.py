"""3x3x3 Conv3d (no padding), GroupNorm with a learned affine, then ReLU."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "2 * N * COUT * (D - 2) * (H - 2) * (W - 2) * CIN * 27 + 9 * N * COUT * (D - 2) * (H - 2) * (W - 2)",
    "bytes": "4 * (N * CIN * D * H * W + COUT * CIN * 27 + 3 * COUT + N * COUT * (D - 2) * (H - 2) * (W - 2))",
    "small": {"N": 2, "CIN": 3, "COUT": 8, "D": 5, "H": 6, "W": 6, "GROUPS": 4},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 8
CIN = 32
COUT = 64
D = 32
H = 64
W = 64
GROUPS = 8


class Model(nn.Module):
    """out = relu(GroupNorm(GROUPS, COUT)(conv3d_3x3x3(x)))."""

    def __init__(self, in_channels, out_channels, groups):
        super().__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, 3)
        self.norm = nn.GroupNorm(groups, out_channels, eps=1e-5)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.norm(self.conv(x)))


def get_inputs():
    return [torch.randn(N, CIN, D, H, W)]


def get_init_inputs():
    return [CIN, COUT, GROUPS]
