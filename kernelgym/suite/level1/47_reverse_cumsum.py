"""Reverse (suffix) cumulative sum along dim 1 of a B x D fp32 matrix: out[i, j] = sum_{k >= j} x[i, k]."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Reduce",
    "dtype": "float32",
    "flops": "B * D",
    "bytes": "2 * B * D * 4",
    "small": {"B": 6, "D": 333},
    "atol": 1e-3, "rtol": 1e-3,
}

B = 16384
D = 20000


class Model(nn.Module):
    """Suffix sums written as flip -> cumsum -> flip."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cumsum(x.flip(1), dim=1).flip(1)


def get_inputs():
    return [torch.randn(B, D)]


def get_init_inputs():
    return []
