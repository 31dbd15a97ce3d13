"""Elementwise fused multiply-add x * y + z over three large matrices."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Math",
    "dtype": "float32",
    "flops": "2 * R * K",
    "bytes": "4 * 4 * R * K",
    "small": {"R": 16, "K": 333},
}

R = 24576
K = 16384


class Model(nn.Module):
    """x * y + z."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
        return x * y + z


def get_inputs():
    return [torch.randn(R, K), torch.randn(R, K), torch.randn(R, K)]


def get_init_inputs():
    return []
