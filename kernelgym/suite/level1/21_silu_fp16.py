"""Elementwise SiLU (swish), x * sigmoid(x), on a 3D fp16 activation tensor (BATCH x S x D)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

KERNELGYM = {
    "category": "Activation",
    "dtype": "float16",
    "flops": "5 * BATCH * S * D",
    "bytes": "2 * BATCH * S * D * 2",
    "small": {"BATCH": 2, "S": 10, "D": 64},
}

BATCH = 144
S = 4096
D = 3072


class Model(nn.Module):
    """Applies SiLU."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.silu(x)


def get_inputs():
    return [torch.randn(BATCH, S, D, dtype=torch.float16) * 3]


def get_init_inputs():
    return []
