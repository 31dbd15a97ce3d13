"""InstanceNorm2d with affine parameters: normalises each (sample, channel) plane of an N x C x H x W fp32 tensor."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Normalization",
    "dtype": "float32",
    "flops": "7 * N * C * H * W",
    "bytes": "2 * N * C * H * W * 4 + 2 * C * 4",
    "small": {"N": 2, "C": 4, "H": 10, "W": 12},
    "atol": 1e-3, "rtol": 1e-3,
}

N = 48
C = 128
H = 224
W = 224


class Model(nn.Module):
    """nn.InstanceNorm2d(C, affine=True) with randomly initialised affine parameters."""

    def __init__(self, channels: int, eps: float = 1e-5):
        super().__init__()
        self.norm = nn.InstanceNorm2d(channels, eps=eps, affine=True)
        with torch.no_grad():
            self.norm.weight.copy_(1.0 + 0.5 * torch.randn(channels))
            self.norm.bias.copy_(0.5 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def get_inputs():
    return [torch.randn(N, C, H, W) * 1.5 + 0.3]


def get_init_inputs():
    return [C]
