"""Inference-mode BatchNorm2d on an N x C x H x W fp32 tensor using stored running statistics and affine params."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Normalization",
    "dtype": "float32",
    "flops": "2 * N * C * H * W",
    "bytes": "2 * N * C * H * W * 4 + 4 * C * 4",
    "small": {"N": 2, "C": 6, "H": 9, "W": 11},
}

N = 64
C = 192
H = 180
W = 180


class Model(nn.Module):
    """BatchNorm2d applied with its running statistics (eval semantics, whatever the module mode)."""

    def __init__(self, channels: int, eps: float = 1e-5):
        super().__init__()
        self.bn = nn.BatchNorm2d(channels, eps=eps)
        with torch.no_grad():
            self.bn.weight.copy_(1.0 + 0.3 * torch.randn(channels))
            self.bn.bias.copy_(0.3 * torch.randn(channels))
            self.bn.running_mean.copy_(0.5 * torch.randn(channels))
            self.bn.running_var.copy_(0.5 + 1.5 * torch.rand(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.batch_norm(x, self.bn.running_mean, self.bn.running_var, self.bn.weight, self.bn.bias,
                            training=False, eps=self.bn.eps)


def get_inputs():
    return [torch.randn(N, C, H, W)]


def get_init_inputs():
    return [C]
