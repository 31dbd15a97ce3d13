"""bf16 2x upsampling ConvTranspose2d (kernel 4, stride 2, padding 1), exact GELU and GroupNorm."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "bfloat16",
    "flops": "2 * N * CIN * COUT * H * W * 16 + 18 * N * COUT * (2 * H) * (2 * W)",
    "bytes": "2 * (N * CIN * H * W + CIN * COUT * 16 + 3 * COUT + N * COUT * (2 * H) * (2 * W))",
    "small": {"N": 2, "CIN": 8, "COUT": 8, "H": 4, "W": 5, "GROUPS": 4},
}

N = 64
CIN = 256
COUT = 128
H = 64
W = 64
GROUPS = 16


class Model(nn.Module):
    """out = GroupNorm(GROUPS, COUT)(gelu(conv_transpose2d(x, k=4, s=2, p=1)))."""

    def __init__(self, in_channels, out_channels, groups):
        super().__init__()
        self.deconv = nn.ConvTranspose2d(in_channels, out_channels, 4, stride=2, padding=1)
        self.norm = nn.GroupNorm(groups, out_channels, eps=1e-5)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(F.gelu(self.deconv(x)))


def get_inputs():
    return [torch.randn(N, CIN, H, W, dtype=torch.bfloat16)]


def get_init_inputs():
    return [CIN, COUT, GROUPS]
