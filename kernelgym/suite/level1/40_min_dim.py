"""Minimum over the middle dimension of a BATCH x R x D fp32 tensor (torch.amin, strided reduction)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Reduce",
    "dtype": "float32",
    "flops": "BATCH * R * D",
    "bytes": "BATCH * R * D * 4 + BATCH * D * 4",
    "small": {"BATCH": 2, "R": 33, "D": 40},
}

BATCH = 72
R = 3000
D = 8192


class Model(nn.Module):
    """torch.amin over dim 1."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.amin(x, dim=1)


def get_inputs():
    return [torch.randn(BATCH, R, D)]


def get_init_inputs():
    return []
