"""Cumulative product along dim 1 of a B x D fp32 matrix with factors in [0.99, 1.01), so the products stay O(1)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Reduce",
    "dtype": "float32",
    "flops": "B * D",
    "bytes": "2 * B * D * 4",
    "small": {"B": 6, "D": 400},
    "atol": 1e-4, "rtol": 1e-3,
}

B = 98304
D = 4096


class Model(nn.Module):
    """torch.cumprod over dim 1."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumprod(x, dim=1)


def get_inputs():
    return [torch.rand(B, D) * 0.02 + 0.99]


def get_init_inputs():
    return []
