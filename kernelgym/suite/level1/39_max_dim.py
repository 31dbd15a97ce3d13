"""Maximum over the last dimension of a BATCH x S x D fp32 tensor (values only)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Reduce",
    "dtype": "float32",
    "flops": "BATCH * S * D",
    "bytes": "BATCH * S * D * 4 + BATCH * S * 4",
    "small": {"BATCH": 2, "S": 8, "D": 70},
}

BATCH = 160
S = 2048
D = 3000


class Model(nn.Module):
    """torch.max over the last dimension, returning the values."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.max(x, dim=-1).values


def get_inputs():
    return [torch.randn(BATCH, S, D)]


def get_init_inputs():
    return []
