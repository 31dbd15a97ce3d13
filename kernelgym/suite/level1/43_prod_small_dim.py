"""Product over a short middle dimension (K = 16) of a BATCH x K x D fp32 tensor with values in [0.5, 1.5)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Reduce",
    "dtype": "float32",
    "flops": "BATCH * K * D",
    "bytes": "BATCH * K * D * 4 + BATCH * D * 4",
    "small": {"BATCH": 3, "K": 6, "D": 50},
}

BATCH = 8192
K = 16
D = 12288


class Model(nn.Module):
    """torch.prod over dim 1."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.prod(x, dim=1)


def get_inputs():
    return [torch.rand(BATCH, K, D) + 0.5]


def get_init_inputs():
    return []
