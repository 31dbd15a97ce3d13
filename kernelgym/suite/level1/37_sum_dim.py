"""Sum over the middle dimension (keepdim) of a BATCH x R x D fp32 tensor: a strided column reduction."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "Reduce",
    "dtype": "float32",
    "flops": "BATCH * R * D",
    "bytes": "BATCH * R * D * 4 + BATCH * D * 4",
    "small": {"BATCH": 3, "R": 50, "D": 40},
    "atol": 2e-3, "rtol": 1e-4,
}

BATCH = 144
R = 4096
D = 3072


class Model(nn.Module):
    """torch.sum over dim 1 with keepdim=True."""

    def __init__(self, dim: int = 1):
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sum(x, dim=self.dim, keepdim=True)


def get_inputs():
    return [torch.randn(BATCH, R, D)]


def get_init_inputs():
    return [1]
