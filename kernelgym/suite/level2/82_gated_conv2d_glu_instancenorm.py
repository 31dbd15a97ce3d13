"""Gated convolution: Conv2d to 2C channels, GLU over channels, then affine InstanceNorm2d."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Fusion",
    "dtype": "float32",
    "flops": "4 * N * CIN * COUT * 9 * HW * HW + 12 * N * COUT * HW * HW",
    "bytes": "4 * (N * CIN * HW * HW + 18 * CIN * COUT + 4 * COUT + N * COUT * HW * HW)",
    "small": {"N": 2, "CIN": 4, "COUT": 6, "HW": 8},
    "atol": 1e-2, "rtol": 1e-2,
}

N = 128
CIN = 64
COUT = 128
HW = 64


class Model(nn.Module):
    """3x3 conv producing value and gate halves, GLU on the channel dim, per-instance normalisation."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, 2 * out_channels, 3, padding=1)
        self.norm = nn.InstanceNorm2d(out_channels, affine=True)
        with torch.no_grad():
            self.norm.weight.copy_(1 + 0.3 * torch.randn(out_channels))
            self.norm.bias.copy_(0.3 * torch.randn(out_channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(F.glu(self.conv(x), dim=1))


def get_inputs():
    return [torch.randn(N, CIN, HW, HW)]


def get_init_inputs():
    return [CIN, COUT]
