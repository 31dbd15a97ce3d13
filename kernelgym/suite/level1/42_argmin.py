"""Index of the minimum along the middle dimension of a BATCH x R x D fp32 tensor (int64 output)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Reduce",
    "dtype": "float32",
    "flops": "BATCH * R * D",
    "bytes": "BATCH * R * D * 4 + BATCH * D * 8",
    "small": {"BATCH": 2, "R": 40, "D": 36},
}

BATCH = 128
R = 512
D = 12288


class Model(nn.Module):
    """torch.argmin over dim 1."""

    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.argmin(x, dim=1)


def get_inputs():
    return [torch.randn(BATCH, R, D)]


def get_init_inputs():
    return []
