"""Batched matrix power torch.linalg.matrix_power(A, POWER) of small square matrices scaled so that A^POWER is O(1)."""
import torch
import torch.nn as nn

KERNELGYM = {
    "category": "LinearAlgebra",
    "level": 1,
    "dtype": "float32",
    "flops": "3 * 2 * BATCH * NDIM * NDIM * NDIM",
    "bytes": "2 * 4 * BATCH * NDIM * NDIM",
    "small": {"BATCH": 4, "NDIM": 16},
    "atol": 1e-2,
    "rtol": 1e-2,
}

BATCH = 16384
NDIM = 64
POWER = 6


class Model(nn.Module):
    """A^6 (e.g. A^2, A^4 = (A^2)^2, A^6 = A^4 A^2: three products); TF32 products meet atol = rtol = 1e-2."""

    def __init__(self):
        super().__init__()

    def forward(self, A: torch.Tensor) -> torch.Tensor:
        return torch.linalg.matrix_power(A, POWER)


def get_inputs():
    return [torch.randn(BATCH, NDIM, NDIM) * (1.25 / NDIM ** 0.5)]


def get_init_inputs():
    return []
